/**
 * A relay socket's file, named by its inode: removed only while it is still the file that was seen, since another
 * hook may have replaced it meanwhile (relay.ts takes a refused socket over; stale-sockets.ts sweeps one left by a
 * SIGKILLed leader). One definition for both, so they judge "the same file" alike.
 */
import { lstatSync, unlinkSync } from 'node:fs';

/** The inode of the file at `path` (of a socket alone, with `socketOnly`), or undefined. */
export const inodeOf = (path: string, socketOnly = false): number | undefined => {
  try {
    const stat = lstatSync(path);
    return socketOnly && !stat.isSocket() ? undefined : stat.ino;
  } catch {
    return undefined;
  }
};

/** Removes `path` when it is still the file `inode` named; quiet when another hook or sweep removed it first. */
export const removeIf = (path: string, inode: number): void => {
  try {
    if (inodeOf(path) === inode) unlinkSync(path);
  } catch {
    // another hook or sweep removed it first
  }
};
