/**
 * A small file read as data, never waited on: opened without following a link (O_NOFOLLOW) and without
 * blocking (O_NONBLOCK: a FIFO planted at the path would wait for a writer forever), read only when it is a
 * regular file, and at most `maxBytes` of it. The last-good memory and a kubeconfig's tokenFile read so.
 */
import { closeSync, constants, fstatSync, openSync, readSync, type Stats } from 'node:fs';

const { O_RDONLY, O_NOFOLLOW, O_NONBLOCK } = constants;

/** Why a file was not read: not a regular file, or longer than the cap. Other failures keep node:fs's code. */
export class IrregularFile extends Error {
  constructor(
    readonly reason: 'not-regular' | 'too-large',
    path: string,
  ) {
    super(`${path} ${reason === 'not-regular' ? 'is not a regular file' : 'is larger than the cap'}`);
  }
}

/** The file's bytes (at most `maxBytes`) and what fstat said of it; throws IrregularFile or node:fs's error. */
export const readRegularFile = (path: string, maxBytes: number): { bytes: Buffer; stat: Stats } => {
  const fd = openSync(path, O_RDONLY | O_NOFOLLOW | O_NONBLOCK);
  try {
    const stat = fstatSync(fd);
    if (!stat.isFile()) throw new IrregularFile('not-regular', path);
    const buffer = Buffer.alloc(maxBytes + 1);
    let length = 0;
    let read: number;
    do {
      read = readSync(fd, buffer, length, buffer.length - length, null);
      length += read;
    } while (read > 0 && length < buffer.length);
    if (length > maxBytes) throw new IrregularFile('too-large', path);
    return { bytes: buffer.subarray(0, length), stat };
  } finally {
    closeSync(fd);
  }
};
