/**
 * The record file's text as synth and prune-record read it. The record is committed, so whoever opens a pull request
 * chooses what is at its path: a link to a token file of the machine that runs CI printed the token's first characters
 * in the synth's error, and one to /dev/zero read until the process aborted (an audit, 2026-12-07). It is read only
 * as a regular file, never through a link, and at most MAX_RECORD_BYTES of it.
 */
import { errorCode } from './errors';
import { IrregularFile, readRegularFile } from './regular-file';

/** Far above any record: one of 10,000 objects is under 2 MiB. */
export const MAX_RECORD_BYTES = 16 * 1024 * 1024;

/** The text of the record at `path`, undefined where there is none; a link or other non-file is refused unread. */
export const readRecordText = (path: string): string | undefined => {
  try {
    return readRegularFile(path, MAX_RECORD_BYTES).bytes.toString('utf8');
  } catch (error) {
    if (errorCode(error) === 'ENOENT') return undefined;
    if (errorCode(error) === 'ELOOP' || (error instanceof IrregularFile && error.reason === 'not-regular'))
      throw new Error(`${path} is not a regular file (a link?): restore it from version control`, { cause: error });
    if (error instanceof IrregularFile)
      throw new Error(`${path} is larger than ${MAX_RECORD_BYTES} bytes: restore it from version control`, {
        cause: error,
      });
    throw error;
  }
};
