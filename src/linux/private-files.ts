/**
 * Which of a unit's loaded files other users may not read, so the record's digest of what its process started with
 * (unit-loaded.ts `loadedContent`, written 0644 for a plain read login) takes such a file by its stamp, never its
 * sha256: a drop-in made by hand `0600` to hold a secret was in the record by its digest, and any local user could
 * test guesses of it offline (test/contract/linux/record-secret.test.ts).
 */
import type { FileStat } from './file-stat';

/** Whether a mode (`stat`'s `%a`, octal) lets other users read a file, or search a directory. */
const othersMay = (mode: string, bit: number): boolean => (Number.parseInt(mode, 8) & bit) !== 0;

/** The `m<mode>` of a stat line: whether others may read the file; undefined where the line has none. */
export const othersReadOf = (mode: string | undefined): boolean | undefined =>
  mode === undefined ? undefined : othersMay(mode, 0o004);

/**
 * The directories of the read's `d<ctime> m<mode> <path>` lines (drop-in-dirs.ts: the unit directories and the
 * unit's `.d/` ones) that others may not search.
 */
export const closedDirsOf = (text: string): Set<string> =>
  new Set(
    [...text.matchAll(/^d\d+(?:\.\d+)? m([0-7]+) (.*)$/gm)].flatMap(([, mode = '', path = '']) =>
      othersMay(mode, 0o001) ? [] : [path.replace(/\/$/, '')],
    ),
  );

/** `stats` with each file under a directory of `closed` as one others may not read. */
export const withClosedDirs = (stats: ReadonlyMap<string, FileStat>, closed: ReadonlySet<string>) =>
  new Map(
    [...stats].map(([path, stat]) => [
      path,
      [...closed].some((dir) => path.startsWith(`${dir}/`)) ? { ...stat, othersRead: false } : stat,
    ]),
  );

/**
 * A loaded file's line in the record's digest: its sha256 where any user may read it anyway, else its stamp (ctime,
 * device:inode and size, which change with every write: a `touch` of it costs one restart, never a lie). Undefined
 * where neither is known.
 */
export const contentLine = (path: string, digest: string | undefined, stat: FileStat | undefined) => {
  if (stat?.othersRead === false) return `stamp ${stat.time} ${stat.file} ${stat.bytes ?? ''}  ${path}\n`;
  return digest === undefined ? undefined : `${digest}  ${path}\n`;
};
