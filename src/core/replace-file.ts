/**
 * A file replaced whole: a fresh temporary file beside it (a random name opened with O_EXCL and O_NOFOLLOW,
 * so never an existing path or a link someone planted), then renamed over it. A reader sees the old text or
 * the new, never half of either. A failure throws, and the temporary file is gone.
 */
import { randomBytes } from 'node:crypto';
import { closeSync, constants, openSync, renameSync, rmSync, writeSync } from 'node:fs';
import { basename, dirname, join } from 'node:path';

const { O_WRONLY, O_CREAT, O_EXCL, O_NOFOLLOW } = constants;

/** Replaces `path` with `text`; a file it creates gets `mode` (less the umask). */
export const replaceFile = (path: string, text: string, mode: number): void => {
  const temp = join(dirname(path), `.${basename(path)}.${randomBytes(8).toString('hex')}`);
  let fd: number | undefined;
  try {
    fd = openSync(temp, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW, mode);
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
