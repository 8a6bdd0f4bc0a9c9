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
  const table = Array.from({ length: a.length + 1 }, () => new Array<number>(b.length + 1).fill(0));
  for (let i = a.length - 1; i >= 0; i -= 1) {
    for (let j = b.length - 1; j >= 0; j -= 1) {
      table[i]![j] = ka[i] === kb[j] ? table[i + 1]![j + 1]! + 1 : Math.max(table[i + 1]![j]!, table[i]![j + 1]!);
    }
  }
  const ops: Op[] = [];
  let [i, j] = [0, 0];
  while (i < a.length || j < b.length) {
    if (i < a.length && j < b.length && ka[i] === kb[j]) ops.push({ kind: ' ', text: a[i]!, oldAt: i++, newAt: j++ });
    else if (j < b.length && (i === a.length || table[i]![j + 1]! > table[i + 1]![j]!)) {
      ops.push({ kind: '+', text: b[j]!, oldAt: i, newAt: j++ });
    } else ops.push({ kind: '-', text: a[i]!, oldAt: i++, newAt: j });
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

/** The unified diff, or undefined when the files are equal under -b (PVE then sends no `changes`). */
export const unifiedDiff = (from: DiffFile, to: DiffFile): string | undefined => {
  const ops = editScript(linesOf(from.text), linesOf(to.text));
  const changed = ops.flatMap((op, index) => (op.kind === ' ' ? [] : [index]));
  if (changed.length === 0) return undefined;
  let out = `--- ${from.name}\t${diffTime(from.mtimeMs)}\n+++ ${to.name}\t${diffTime(to.mtimeMs)}\n`;
  let k = 0;
  while (k < changed.length) {
    let end = k;
    while (end + 1 < changed.length && changed[end + 1]! - changed[end]! <= 2 * CONTEXT + 1) end += 1;
    const first = Math.max(changed[k]! - CONTEXT, 0);
    const last = Math.min(changed[end]! + CONTEXT, ops.length - 1);
    const hunk = ops.slice(first, last + 1);
    const oldCount = hunk.filter((op) => op.kind !== '+').length;
    const newCount = hunk.filter((op) => op.kind !== '-').length;
    out += `@@ -${range(hunk[0]!.oldAt, oldCount)} +${range(hunk[0]!.newAt, newCount)} @@\n`;
    for (const op of hunk) out += `${op.kind}${op.text}\n`;
    k = end + 1;
  }
  return out;
};
