/**
 * A file replaced (or created) whole: a fresh temporary file beside it (a random name opened with O_EXCL and
 * O_NOFOLLOW, so never an existing path or a link someone planted), then renamed over it (or linked in, which never
 * lands on an existing path). A reader sees the old text or the new, never half of either. A failure throws, and
 * the temporary file is gone. `keepMode` gives the new file the old one's permissions exactly, whatever the umask:
 * prune-record had turned a 0600 record 0644.
 */
import { randomBytes } from 'node:crypto';
import { closeSync, constants, fchmodSync, linkSync, openSync, renameSync, rmSync, statSync, writeSync } from 'node:fs';
import { basename, dirname, join } from 'node:path';

const { O_WRONLY, O_CREAT, O_EXCL, O_NOFOLLOW } = constants;

/** The mode a file gets: `mode` (less the umask), or with `keepMode` the replaced file's own (0666 when new). */
export type ReplaceMode = number | { readonly keepMode: true };

/** The permission bits of `path` when it exists. */
const modeOf = (path: string): number | undefined => {
  try {
    return statSync(path).mode & 0o7777;
  } catch {
    return undefined;
  }
};

/** Writes `text` to a fresh temporary file beside `path`, then `place`s it; a failure leaves no temporary file. */
const writeBeside = (path: string, text: string, mode: ReplaceMode, place: (temp: string) => void): void => {
  const temp = join(dirname(path), `.${basename(path)}.${randomBytes(8).toString('hex')}`);
  const kept = typeof mode === 'number' ? undefined : modeOf(path);
  let fd: number | undefined;
  try {
    fd = openSync(temp, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW, typeof mode === 'number' ? mode : (kept ?? 0o666));
    if (kept !== undefined) fchmodSync(fd, kept);
    writeSync(fd, text);
    closeSync(fd);
    fd = undefined;
    place(temp);
  } catch (error) {
    if (fd !== undefined) closeSync(fd);
    throw error;
  } finally {
    rmSync(temp, { force: true });
  }
};

/** Replaces `path` with `text`. */
export const replaceFile = (path: string, text: string, mode: ReplaceMode): void =>
  writeBeside(path, text, mode, (temp) => renameSync(temp, path));

/**
 * Creates `path` with `text`, whole or not at all, and never over an existing path (EEXIST): the finished file
 * is hard-linked into place, which fails when anything is there.
 */
export const createFile = (path: string, text: string, mode: number): void =>
  writeBeside(path, text, mode, (temp) => linkSync(temp, path));
