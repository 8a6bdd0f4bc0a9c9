/**
 * The relay sockets of leaders that are gone, removed by a plan's read (run.ts sweepRelay). A leader that exits
 * removes its own (relay.ts serveRemovingAtExit); one SIGKILLed cannot, and its socket stayed in the relay folder
 * until the next destroy's first hook found it refused. A socket that refuses a connection twice, 50 ms apart, the
 * same file both times, has no server: a leader binds and listens in one call, so only that instant refuses a live
 * one, as relay.ts reasons when it takes a refused socket over. Every connect is bounded.
 */
import { readdirSync } from 'node:fs';
import { createConnection } from 'node:net';
import { join } from 'node:path';
import type { Clock } from '../clock';
import { inodeOf, removeIf } from './socket-file';

/** How long a connect may take before the socket counts as live (a Unix socket answers at once). */
const CONNECT_MS = 1_000;
/** Between the two refusals. */
const AGAIN_MS = 50;

/** Removes the sockets in `dir` that refuse twice; never throws. */
export const sweepSockets = async (dir: string, clock: Clock): Promise<void> => {
  let names: string[];
  try {
    names = readdirSync(dir).filter((name) => name.endsWith('.sock'));
  } catch {
    return;
  }
  const seen = await Promise.all(
    names.map(async (name) => {
      const path = join(dir, name);
      const inode = inodeOf(path, true);
      return { path, inode, refused: await refuses(path, clock) };
    }),
  );
  const stale = seen.flatMap(({ path, inode, refused }) => (refused && inode !== undefined ? [{ path, inode }] : []));
  if (stale.length === 0) return;
  await clock.sleep(AGAIN_MS);
  for (const { path, inode } of stale) {
    if (inodeOf(path) === inode && (await refuses(path, clock))) removeIf(path, inode);
  }
};

/** Whether a connect to `path` is refused (no server); false when it connects, times out or fails otherwise. */
const refuses = (path: string, clock: Clock): Promise<boolean> =>
  new Promise((resolve) => {
    const abort = new AbortController();
    const socket = createConnection(path);
    const done = (refused: boolean) => {
      abort.abort();
      socket.destroy();
      resolve(refused);
    };
    clock.sleep(CONNECT_MS, abort.signal).then(
      () => done(false),
      () => undefined,
    );
    socket.once('connect', () => done(false));
    socket.once('error', (error: NodeJS.ErrnoException) => done(error.code === 'ECONNREFUSED'));
  });
