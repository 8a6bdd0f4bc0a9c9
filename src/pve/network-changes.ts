/**
 * What a node has staged in /etc/network/interfaces.new, as a count of changed lines. The diff text
 * PVE sends may hold `wpa-psk` values or `pre-up` commands, so it never leaves this module: callers
 * get numbers and summary lines only. A non-empty diff never counts 0, or a node would read settled.
 */

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

/**
 * The staged-line count from a whole `GET nodes/{node}/network` envelope. `changes` is a sibling of
 * `data` and absent when nothing is staged; anything that is not a string counts as nothing staged.
 */
export const stagedLinesOf = (envelope: unknown): number => {
  if (envelope === null || typeof envelope !== 'object') return 0;
  const changes = (envelope as { changes?: unknown }).changes;
  return typeof changes === 'string' ? countChangedLines(changes) : 0;
};

/** "n2: 3 staged lines", "n2: 1 staged line" or "n2: settled". */
export const stagedSummary = (node: string, lines: number): string => {
  if (lines === 0) return `${node}: settled`;
  return `${node}: ${lines} staged line${lines === 1 ? '' : 's'}`;
};

/** One line for the whole apply object, nodes in the declared order: "n2: 3 staged lines; n3: settled". */
export const networkApplySummary = (counts: ReadonlyArray<readonly [string, number]>): string =>
  counts.map(([node, lines]) => stagedSummary(node, lines)).join('; ');

/** Drift for the apply object: any node with staged lines. */
export const hasStagedLines = (counts: ReadonlyArray<readonly [string, number]>): boolean =>
  counts.some(([, lines]) => lines > 0);
