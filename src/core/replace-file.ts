/**
 * A file replaced whole: a fresh temporary file beside it (a random name opened with O_EXCL and O_NOFOLLOW,
 * so never an existing path or a link someone planted), then renamed over it. A reader sees the old text or
 * the new, never half of either. A failure throws, and the temporary file is gone. `keepMode` gives the new
 * file the old one's permissions exactly, whatever the umask: prune-record had turned a 0600 record 0644.
 */
import { randomBytes } from 'node:crypto';
import { closeSync, constants, fchmodSync, openSync, renameSync, rmSync, statSync, writeSync } from 'node:fs';
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

/** Replaces `path` with `text`. */
export const replaceFile = (path: string, text: string, mode: ReplaceMode): void => {
  const temp = join(dirname(path), `.${basename(path)}.${randomBytes(8).toString('hex')}`);
  const kept = typeof mode === 'number' ? undefined : modeOf(path);
  let fd: number | undefined;
  try {
    fd = openSync(temp, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW, typeof mode === 'number' ? mode : (kept ?? 0o666));
    if (kept !== undefined) fchmodSync(fd, kept);
    writeSync(fd, text);
    closeSync(fd);
    fd = undefined;
    renameSync(temp, path);
  } catch (error) {
    if (fd !== undefined) closeSync(fd);
    rmSync(temp, { force: true });
    throw error;
  }
};
