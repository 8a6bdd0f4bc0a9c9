/**
 * A file the user named read whole, but bounded: at most `maxBytes`, and within `waitMs` when it is a pipe
 * or a FIFO, as a kubeconfig given as `<(sops -d config)` is. Without the bounds, a kubeconfig's CA file that
 * was a FIFO of the user's own with a writer that never wrote held the kube handler past its timeoutSeconds
 * (measured: still reading when killed at 15 s, timeoutSeconds 2), and a device would be read until memory
 * ran out. A regular file is read at once; links are followed, as kubectl follows them.
 */
import { closeSync, constants, fstatSync, openSync, readSync } from 'node:fs';
import { errorCode } from './errors';

const { O_RDONLY, O_NONBLOCK } = constants;

/** Why a file was not read whole: longer than the cap, or a pipe that gave no end within the wait. */
export class UnboundedFile extends Error {
  constructor(
    readonly reason: 'too-large' | 'too-slow',
    path: string,
  ) {
    super(`${path} ${reason === 'too-large' ? 'is larger than the cap' : 'gave no end within the wait'}`);
  }
}

/** How long a read of a pipe that has nothing yet sleeps before it tries again. */
const RETRY_MS = 5;

/** The file's bytes; throws UnboundedFile, or node:fs's error (ENOENT, EACCES, ENXIO for a socket). */
export const readBoundedFile = (path: string, maxBytes: number, waitMs: number): Buffer => {
  // O_NONBLOCK: opening a FIFO no one writes to returns at once (and reads as empty) instead of waiting.
  const fd = openSync(path, O_RDONLY | O_NONBLOCK);
  try {
    const regular = fstatSync(fd).isFile();
    const deadline = Date.now() + waitMs;
    const buffer = Buffer.alloc(maxBytes + 1);
    let length = 0;
    for (;;) {
      let read: number;
      try {
        read = readSync(fd, buffer, length, buffer.length - length, null);
      } catch (e) {
        if (regular || errorCode(e) !== 'EAGAIN') throw e;
        if (Date.now() >= deadline) throw new UnboundedFile('too-slow', path);
        // A synchronous sleep, bounded by the deadline: a connection's files are read as it loads, before it sends.
        Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, RETRY_MS);
        continue;
      }
      length += read;
      if (length > maxBytes) throw new UnboundedFile('too-large', path);
      if (read === 0) return buffer.subarray(0, length);
    }
  } finally {
    closeSync(fd);
  }
};
