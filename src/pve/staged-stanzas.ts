/**
 * Which interfaces a node's staged diff touches, by stanza name, so an apply can tell its own
 * staged changes from someone else's before a reload makes both live. Only `iface`/`auto` names
 * leave this module: option lines may hold a `wpa-psk` value or a `pre-up` command.
 * Source: [PC] PVE/Network/Interfaces.pm: the parser's line grammar (stanza-lines.ts), and the
 * writer's stanza order, which each listed row's `priority` keeps (the parser numbers in file order).
 */
import { isRecord } from '../core/records';
import { fitsRow, isAutoLine, kindOf, type LineKind } from './stanza-lines';

/** What the changed lines of a `changes` diff belong to. */
export interface StagedStanzas {
  /** Interfaces with a changed line, or that may hold one the diff does not place exactly. */
  readonly interfaces: readonly string[];
  /** A changed line outside any interface (a `source` line, an option after a blank line). */
  readonly outside: boolean;
  /** A changed line in a stanza neither the diff nor the list names (a hidden bridge's, say). */
  readonly unplaced: boolean;
  /** Those of `interfaces` with a changed line other than an `auto` line naming them (network-apply.ts). */
  readonly beyondAuto: readonly string[];
}

type Mark = ' ' | '-' | '+';
type Line = { readonly mark: Mark; readonly text: string };
/** A line's stanza: named (one, or one of several), top level, or unknown. */
type Owner = { readonly names: readonly string[]; readonly unplaced?: true } | 'top';
type Boundary = { readonly header: readonly string[] } | 'top';

const HUNK = /^@@ -\d+(?:,(\d+))? \+\d+(?:,(\d+))? @@/;
const UNKNOWN: Owner = { names: [], unplaced: true };

const isMark = (value: string): value is Mark => value === ' ' || value === '-' || value === '+';

/** The hunks' lines, each hunk as long as its header says (so a `---` inside one is a line). */
const hunksOf = (changes: string): Line[][] => {
  const hunks: Line[][] = [];
  let open: Line[] = []; // the hunk being read, once a header set the counts
  let [oldLeft, newLeft] = [0, 0];
  for (const text of changes.split('\n')) {
    if (oldLeft > 0 || newLeft > 0) {
      const mark = text[0] ?? ' ';
      if (!isMark(mark)) continue; // `\ No newline at end of file`
      if (mark !== '+') oldLeft -= 1;
      if (mark !== '-') newLeft -= 1;
      open.push({ mark, text: text.slice(1) });
      continue;
    }
    const hunk = HUNK.exec(text);
    if (!hunk) continue;
    [oldLeft, newLeft] = [Number(hunk[1] ?? 1), Number(hunk[2] ?? 1)];
    open = [];
    hunks.push(open);
  }
  return hunks;
};

/** The staged file's stanzas in file order: the listed rows by `priority` (lo is never listed). */
const stanzaOrder = (rows: unknown) => {
  const byPriority = new Map<number, string>();
  const priorityOf = new Map<string, number>();
  const rowOf = new Map<string, Readonly<Record<string, unknown>>>();
  for (const row of Array.isArray(rows) ? rows : []) {
    if (!isRecord(row)) continue;
    const { iface, priority } = row;
    const at = typeof priority === 'string' && priority.trim() === '' ? NaN : Number(priority);
    if (typeof iface !== 'string' || !Number.isInteger(at)) continue;
    byPriority.set(at, iface);
    priorityOf.set(iface, at);
    rowOf.set(iface, row);
  }
  const listed = [...byPriority.keys()];
  return { byPriority, priorityOf, rowOf, first: Math.min(...listed), last: Math.max(...listed) };
};
type Order = ReturnType<typeof stanzaOrder>;

/** The priority of a stanza by name; none for an unlisted one or a header that names none (`auto` alone). */
const priorityOf = (order: Order, name: string | undefined): number | undefined =>
  name === undefined ? undefined : order.priorityOf.get(name);

/** The first header or top-level line of a hunk's staged side. */
const firstBoundary = (lines: readonly Line[]): Boundary | undefined => {
  for (const line of lines) {
    const kind = line.mark === '-' ? 'option' : kindOf(line.text);
    if (kind === 'top' || typeof kind === 'object') return kind;
  }
  return undefined;
};

/** The stanzas from priority `start` up to (not with) `to`; unknown if one between is not listed. */
const between = (order: Order, start: number | undefined, to: string | undefined): Owner => {
  const end = to === undefined ? order.last + 1 : order.priorityOf.get(to);
  if (start === undefined || end === undefined || end <= start) return UNKNOWN;
  const names: string[] = [];
  for (let at = start; at < end; at += 1) {
    const name = order.byPriority.get(at);
    if (name === undefined) return UNKNOWN;
    names.push(name);
  }
  return { names };
};

/** Where the previous hunk left the staged side, and the last stanza it named (undefined: none yet). */
interface Left {
  readonly owner: Owner;
  readonly named?: string;
  readonly started: boolean;
}

/** The priority the next hunk's stanza is at least at: where the last one left off, or the first. */
const startOf = (order: Order, { owner, named, started }: Left): number | undefined => {
  if (!started) return order.first;
  if (owner !== 'top' && owner.names.length === 1 && !owner.unplaced) return priorityOf(order, owner.names[0]);
  const at = owner === 'top' && named !== undefined ? order.priorityOf.get(named) : undefined;
  return at === undefined ? undefined : at + 1;
};

/** Those of `names` whose rows fit every staged line the hunk shows before its first boundary. */
const fitting = (order: Order, names: readonly string[], hunk: readonly Line[]): Owner => {
  const end = hunk.findIndex(
    (line) => line.mark !== '-' && kindOf(line.text) !== 'option' && kindOf(line.text) !== 'comment',
  );
  const shown = hunk.slice(0, end < 0 ? hunk.length : end).filter((line) => line.mark !== '-');
  const fits = (name: string) => (line: Line) => {
    const row = order.rowOf.get(name); // names come from the listed rows, so each has one
    return row !== undefined && fitsRow(row, line.text);
  };
  const fit = names.filter((name) => shown.every(fits(name)));
  return fit.length === 0 ? UNKNOWN : { names: fit };
};

/** Of several stanzas, those whose rows fit every line the hunk shows of it; none fitting: unlisted. */
const narrow = (order: Order, owner: Owner, hunk: readonly Line[]): Owner =>
  owner === 'top' || owner.names.length < 2 ? owner : fitting(order, owner.names, hunk);

/**
 * The stanza a hunk opens in when its first boundary is a top-level line (a `source` line PVE keeps
 * in place, and prints after the last stanza when it sat there): a listed stanza from `start` on
 * that such a line directly follows, so one whose next priority is unlisted (top-level lines are
 * numbered with the stanzas, the parser's `$priority++`). Two unlisted priorities in a row before the
 * last listed stanza may be a stanza the list hides followed by such a line: unknown, not guessed.
 * After the last listed stanza the rows decide, as for a hunk with no boundary at all.
 */
const beforeTop = (order: Order, start: number | undefined, bound: number, hunk: readonly Line[]): Owner => {
  if (start === undefined) return UNKNOWN;
  const names: string[] = [];
  for (let at = start; at < Math.min(bound, order.last + 1); at += 1) {
    const [here, next] = [order.byPriority.get(at), order.byPriority.get(at + 1)];
    if (here !== undefined && next === undefined) names.push(here);
    if (here === undefined && next === undefined && at + 1 < order.last) return UNKNOWN;
  }
  return names.length === 0 ? UNKNOWN : fitting(order, names, hunk);
};

/** The priority of the first stanza header on the staged side of `hunks`: NaN for an unlisted one. */
const nextHeader = (order: Order, hunks: readonly (readonly Line[])[]): number => {
  for (const line of hunks.flat()) {
    const kind = line.mark === '-' ? 'option' : kindOf(line.text);
    if (typeof kind === 'object') return priorityOf(order, kind.header[0]) ?? NaN;
  }
  return Infinity;
};

/**
 * The stanza a hunk opens in, on the staged side: the one before its first header (lo is written
 * first, so before lo is the file's preamble), else one between where the last hunk left and the
 * next header, narrowed by the lines shown.
 */
const openingOwner = (order: Order, hunk: readonly Line[], left: Left, later: readonly Line[][]): Owner => {
  const first = firstBoundary(hunk);
  if (first === 'top') return beforeTop(order, startOf(order, left), nextHeader(order, [hunk, ...later]), hunk);
  if (first !== undefined) {
    if (first.header[0] === 'lo') return 'top';
    const at = priorityOf(order, first.header[0]);
    const before = at === undefined ? undefined : order.byPriority.get(at - 1);
    return before === undefined ? UNKNOWN : { names: [before] };
  }
  const next = later.map(firstBoundary).find((kind) => kind !== undefined);
  if (next === 'top') return UNKNOWN;
  return narrow(order, between(order, startOf(order, left), next?.header[0]), hunk);
};

const follow = (owner: Owner, kind: LineKind): Owner => {
  if (typeof kind === 'object') return { names: kind.header };
  return kind === 'top' || kind === 'blank' ? 'top' : owner;
};

/**
 * Walks each hunk on both sides: a removed line belongs to the stanza the old file had it in, an
 * added one to the stanza of the staged file, and a blank line ends a stanza, as the parser reads it.
 * Blank lines, and comments outside a stanza, change nothing ifreload reads.
 */
export const stagedStanzas = (changes: string, rows: unknown): StagedStanzas => {
  const order = stanzaOrder(rows);
  const [touched, beyondAuto] = [new Set<string>(), new Set<string>()];
  let [outside, unplaced] = [false, false];
  const hunks = hunksOf(changes);
  let left: Left = { owner: UNKNOWN, started: false };
  hunks.forEach((hunk, index) => {
    let staged = openingOwner(order, hunk, left, hunks.slice(index + 1));
    let [old, named] = [staged, left.named];
    for (const { mark, text } of hunk) {
      const kind = kindOf(text);
      if (mark !== '+') old = follow(old, kind);
      if (mark !== '-') staged = follow(staged, kind);
      if (mark !== '-' && typeof kind === 'object' && kind.header.length === 1) named = kind.header[0];
      const owner = mark === '-' ? old : staged;
      if (mark === ' ' || kind === 'blank' || (owner === 'top' && kind === 'comment')) continue;
      if (owner === 'top') outside = true;
      else owner.names.forEach((name) => touched.add(name) && (isAutoLine(text) || beyondAuto.add(name)));
      if (owner !== 'top' && owner.unplaced) unplaced = true;
    }
    left = { owner: staged, named, started: true };
  });
  return { interfaces: [...touched].sort(), outside, unplaced, beyondAuto: [...beyondAuto].sort() };
};
