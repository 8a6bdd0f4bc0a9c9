/**
 * A declared unit file that is a symbolic link (`systemctl link`, or a link put in its place by hand). `systemctl
 * disable` of such a unit removes the file with its links: the plan read it in sync (sha256sum follows the link), and
 * an apply that disabled the unit deleted its file, failed and left the unit without one (measured, systemd 252).
 * The read names such files, the diff calls one drift and the apply writes the file in its place (unit-diff.ts,
 * unit-batch.ts `mustWrite`).
 */
import type { LiveUnit } from './unit-control';
import { quote } from './shell';

/** What the check needs of one read entry: the file it reads and what the stack declares there. */
interface LinkedEntry {
  readonly file?: string;
  readonly declared?: { readonly as: string };
}

/** The unit files the entries declare (a drop-in's is not: `systemctl disable` leaves drop-ins). */
const declaredUnitFiles = (entries: readonly LinkedEntry[]): string[] =>
  entries.flatMap((entry) => (entry.declared?.as === 'unit' && entry.file !== undefined ? [entry.file] : []));

/**
 * The read's command printing which declared unit files are symbolic links, one a line: a unit file's path holds no
 * newline (unit-name.ts). Shell builtins only.
 */
export const linkedFilesCommand = (entries: readonly LinkedEntry[]): string => {
  const files = declaredUnitFiles(entries);
  return files.length === 0
    ? 'true'
    : `for f in ${files.map(quote).join(' ')}; do [ -L "$f" ] && echo "$f"; done; true`;
};

/** `live` (one per entry), each entry whose declared unit file `printed` (the command's output) names marked so. */
export const withLinkedFiles = (entries: readonly LinkedEntry[], live: LiveUnit[], printed: string): LiveUnit[] => {
  const links = new Set(printed.split('\n'));
  const declared = new Set(declaredUnitFiles(entries));
  return live.map((unit, index) => {
    const file = entries[index]?.file;
    return file !== undefined && declared.has(file) && links.has(file) ? { ...unit, fileIsLink: true } : unit;
  });
};
