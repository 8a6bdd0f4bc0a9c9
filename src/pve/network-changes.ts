/**
 * What a node has staged in /etc/network/interfaces.new: a count of changed lines and the names of
 * the interfaces they touch. The diff text PVE sends may hold `wpa-psk` values or `pre-up` commands,
 * so it never leaves this module and staged-stanzas.ts: callers get numbers and names only. A
 * non-empty diff never counts 0, or a node would read settled.
 */
import { type StagedStanzas, stagedStanzas } from './staged-stanzas';
import { isRecord } from '../core/records';

/** A unified-diff hunk header: `@@ -start[,count] +start[,count] @@`; a missing count means 1. */
const HUNK = /^@@ -\d+(?:,(\d+))? \+\d+(?:,(\d+))? @@/;

/**
 * Changed (`+`/`-`) lines in the `changes` text of `GET nodes/{node}/network` (`diff -b -N -u`).
 * Hunk headers give each hunk's length, so a removed line whose own text starts with `--` (`---`
 * inside a hunk) is counted and only the file headers before a hunk are skipped.
 */
export const countChangedLines = (changes: string): number => {
  if (changes === '') return 0;
  let oldLeft = 0;
  let newLeft = 0;
  let changed = 0;
  for (const line of changes.split('\n')) {
    if (oldLeft > 0 || newLeft > 0) {
      const mark = line[0];
      if (mark === '-' || mark === ' ' || mark === undefined) oldLeft -= 1;
      if (mark === '+' || mark === ' ' || mark === undefined) newLeft -= 1;
      if (mark === '-' || mark === '+') changed += 1;
      continue;
    }
    const hunk = HUNK.exec(line);
    if (hunk) {
      oldLeft = Number(hunk[1] ?? 1);
      newLeft = Number(hunk[2] ?? 1);
    }
  }
  return Math.max(changed, 1);
};

/** What a node has staged, read from one `GET nodes/{node}/network` envelope. */
export interface NodeStaging {
  readonly lines: number;
  readonly stanzas: StagedStanzas;
  /**
   * Each listed bond's slaves: staging a bond makes PVE's writer mark each of them `auto`. A Map, since the
   * names are the server's: a bond named `__proto__` would set a plain object's prototype.
   */
  readonly slaves: ReadonlyMap<string, readonly string[]>;
  /** The interfaces the node lists (its staged view when something is staged). */
  readonly present: readonly string[];
  /** The node's rows, as listed: what a removal's plan reads for the interfaces naming it (removal-block.ts). */
  readonly rows?: readonly unknown[];
}

const NOTHING: StagedStanzas = { interfaces: [], outside: false, unplaced: false, beyondAuto: [] };

/** The staging of a whole envelope: `changes` beside `data` (absent when nothing is staged). */
export const nodeStagingOf = (envelope: unknown): NodeStaging => {
  const { changes, data }: Readonly<Record<string, unknown>> = isRecord(envelope) ? envelope : {};
  const text = typeof changes === 'string' ? changes : '';
  const lines = countChangedLines(text);
  const stanzas = lines === 0 ? NOTHING : stagedStanzas(text, data);
  const rows = Array.isArray(data) ? data : [];
  return { lines, stanzas, slaves: bondSlaves(data), present: listed(data), rows };
};

const listed = (rows: unknown): string[] =>
  (Array.isArray(rows) ? rows : []).flatMap((row) => {
    const iface = isRecord(row) ? row.iface : undefined;
    return typeof iface === 'string' ? [iface] : [];
  });

const bondSlaves = (rows: unknown): Map<string, string[]> => {
  const slaves = new Map<string, string[]>();
  for (const row of Array.isArray(rows) ? rows : []) {
    if (!isRecord(row)) continue;
    const { iface, type, slaves: listed } = row;
    if (type !== 'bond' || typeof iface !== 'string' || typeof listed !== 'string') continue;
    slaves.set(
      iface,
      listed.split(/\s+/).filter((name) => name !== '' && name !== 'none'),
    );
  }
  return slaves;
};

/**
 * "n2: settled", "n2: 1 staged line", or "n3: 5 staged lines, 1 by someone else: vmbr9" when
 * `bySomeoneElse` names what the stack does not declare.
 */
export const stagedSummary = (node: string, lines: number, bySomeoneElse: readonly string[] = []): string => {
  if (lines === 0) return `${node}: settled`;
  const count = `${node}: ${lines} staged line${lines === 1 ? '' : 's'}`;
  return bySomeoneElse.length === 0
    ? count
    : `${count}, ${bySomeoneElse.length} by someone else: ${bySomeoneElse.join(', ')}`;
};
