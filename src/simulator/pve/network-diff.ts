// `diff -b -N -u` between the running and the staged interfaces file, as PVE computes `changes`:
// headers, 3-line context hunks, and no output at all when the files differ only in whitespace,
// which is the one staged state a client cannot see. Source: [PC] PVE/INotify.pm ccache_compute_diff.
// Not modelled: the "\ No newline at end of file" marker (PVE's writer always ends with a newline).

const CONTEXT = 3;

// -b: runs of whitespace compare equal and trailing whitespace is ignored.
const key = (line: string): string => line.replace(/\s+$/, '').replace(/\s+/g, ' ');

const linesOf = (text: string): string[] => {
  if (text === '') return [];
  const lines = text.split('\n');
  if (lines[lines.length - 1] === '') lines.pop();
  return lines;
};

type Op = { readonly kind: ' ' | '-' | '+'; readonly text: string; readonly oldAt: number; readonly newAt: number };

/** The edit script from a longest common subsequence (the files are small: O(n·m) is fine). */
const editScript = (a: readonly string[], b: readonly string[]): Op[] => {
  const [ka, kb] = [a.map(key), b.map(key)];
  // lcs(i, j): the common subsequence's length of a[i..] and b[j..], in one flat table.
  const width = b.length + 1;
  const table = new Array<number>((a.length + 1) * width).fill(0);
  const lcs = (i: number, j: number): number => table[i * width + j] ?? 0;
  for (let i = a.length - 1; i >= 0; i -= 1) {
    for (let j = b.length - 1; j >= 0; j -= 1) {
      table[i * width + j] = ka[i] === kb[j] ? lcs(i + 1, j + 1) + 1 : Math.max(lcs(i + 1, j), lcs(i, j + 1));
    }
  }
  const ops: Op[] = [];
  let [i, j] = [0, 0];
  while (i < a.length || j < b.length) {
    const [x, y] = [a[i], b[j]];
    if (x !== undefined && y !== undefined && ka[i] === kb[j]) ops.push({ kind: ' ', text: x, oldAt: i++, newAt: j++ });
    else if (y !== undefined && (x === undefined || lcs(i, j + 1) > lcs(i + 1, j))) {
      ops.push({ kind: '+', text: y, oldAt: i, newAt: j++ });
    } else if (x !== undefined) ops.push({ kind: '-', text: x, oldAt: i++, newAt: j });
  }
  return ops;
};

// A range as unified diff prints it: `start,count`, `start` alone for one line, `start-1,0` for none.
const range = (start: number, count: number): string =>
  count === 1 ? `${start + 1}` : `${count === 0 ? start : start + 1},${count}`;

/** A timestamp as diff prints a file's mtime. */
export const diffTime = (ms: number): string =>
  `${new Date(ms).toISOString().replace('T', ' ').replace('Z', '')}000000 +0000`;

export interface DiffFile {
  readonly name: string;
  readonly text: string;
  readonly mtimeMs: number;
}

/** The changed ops' indices in runs closer than two contexts: each run is one hunk, `[first, last]`. */
const hunkRuns = (changed: readonly number[]): Array<[number, number]> => {
  const runs: Array<[number, number]> = [];
  for (const index of changed) {
    const run = runs.at(-1);
    if (run !== undefined && index - run[1] <= 2 * CONTEXT + 1) run[1] = index;
    else runs.push([index, index]);
  }
  return runs;
};

/** The unified diff, or undefined when the files are equal under -b (PVE then sends no `changes`). */
export const unifiedDiff = (from: DiffFile, to: DiffFile): string | undefined => {
  const ops = editScript(linesOf(from.text), linesOf(to.text));
  const changed = ops.flatMap((op, index) => (op.kind === ' ' ? [] : [index]));
  if (changed.length === 0) return undefined;
  let out = `--- ${from.name}\t${diffTime(from.mtimeMs)}\n+++ ${to.name}\t${diffTime(to.mtimeMs)}\n`;
  for (const [firstChange, lastChange] of hunkRuns(changed)) {
    const hunk = ops.slice(Math.max(firstChange - CONTEXT, 0), Math.min(lastChange + CONTEXT, ops.length - 1) + 1);
    const [head] = hunk;
    if (head === undefined) continue; // a run holds at least its own change
    const oldCount = hunk.filter((op) => op.kind !== '+').length;
    const newCount = hunk.filter((op) => op.kind !== '-').length;
    out += `@@ -${range(head.oldAt, oldCount)} +${range(head.newAt, newCount)} @@\n`;
    for (const op of hunk) out += `${op.kind}${op.text}\n`;
  }
  return out;
};
