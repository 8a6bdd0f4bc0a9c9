/**
 * Destroy hooks of one target share one handler run and one connection. Terraform runs a destroy hook
 * per object, `-parallelism` at a time; each hook that finds no run serving its target becomes that
 * run (the leader): it listens on a socket, destroys its own object, and destroys the objects of every
 * hook that connects while it works, over one session, until none has come for a moment. A follower
 * sends its object, prints the lines the leader logged for it and exits with its object's outcome, so
 * Terraform still shows each object's lines under its own resource and fails only the objects that
 * failed. Measured before this (README, Limits): 200 unit destroys cost one process and one SSH
 * connection each, about 0.48 CPU-s apiece, 0.21 of it the handler's start-up.
 *
 * The socket lives in a directory of Terraform's data dir that only this user may enter, so whoever
 * answers on it is this user (no predictable shared path, no peer to authenticate). Correctness never
 * rests on there being one leader: two hooks that both lead serve disjoint objects, and a follower whose
 * leader vanished before answering destroys its object again (a destroy of an absent object is a no-op).
 */
import { lstatSync, mkdirSync, unlinkSync } from 'node:fs';
import { createConnection, createServer, type Server, type Socket } from 'node:net';
import { join } from 'node:path';
import type { Clock } from './clock';

/** What a hook hands over: its kind and the lifecycle's target and identity, as the hook read them. */
export interface DestroyRequest {
  readonly kind: string;
  readonly target: unknown;
  readonly identity: unknown;
}

/** One object's outcome: its exit code and the lines its destroy logged. */
export interface DestroyOutcome {
  readonly code: number;
  readonly lines: readonly string[];
}

/** The leader's work: destroys one object over the run's shared session. */
export type DestroyOne = (request: DestroyRequest) => Promise<DestroyOutcome>;

export interface RelayOptions {
  /** The socket's path, relative to the working directory (a socket path holds at most 107 bytes). */
  readonly socket: string;
  readonly clock: Clock;
  /** How long a leader with nothing in flight waits for another hook before it ends. @default 400 */
  readonly lingerMs?: number;
  /** How long a follower waits for its object's outcome. @default 900_000 */
  readonly waitMs?: number;
}

/** A request or an answer on the socket is one JSON line of at most this many bytes. */
const MAX_LINE = 1 << 20;
/** Most lines of one object's outcome sent to its follower; the leader's own hook logs all of its own. */
const MAX_LINES = 200;
/** Attempts to reach or become a leader before a hook destroys its object alone. */
const ATTEMPTS = 5;

/**
 * Destroys `request` through the target's leader, leading when there is none; `lead` is called once,
 * by the hook that leads, and gives the work and the end of the shared session.
 */
export const relayDestroy = async (
  request: DestroyRequest,
  lead: () => { destroy: DestroyOne; close: () => Promise<void> },
  options: RelayOptions,
): Promise<DestroyOutcome> => {
  for (let attempt = 0; attempt < ATTEMPTS; attempt += 1) {
    const answer = await follow(request, options);
    if (answer.kind === 'answered') return answer.outcome;
    if (answer.kind === 'leader-lost' && attempt > 0) await options.clock.sleep(50 * attempt);
    const server = await listen(options.socket);
    if (server === 'unusable') break;
    if (server === 'in-use') {
      // Nobody answered twice, a moment apart, on a socket that is there: its leader was killed, so it is
      // stale. Once may be a leader that has bound it and not yet listens (seen in CI: a hook that removed
      // it then failed the live leader's lstat), which the next attempt reaches.
      if (answer.kind === 'no-leader' && attempt > 1) removeStale(options.socket);
      await options.clock.sleep(25 * (attempt + 1));
      continue;
    }
    return serve(server, request, lead(), options);
  }
  return destroyAlone(lead(), request);
};

/** Destroys `request` in a run of its own: `work`'s session serves it alone and is closed after. */
export const destroyAlone = async (
  work: { destroy: DestroyOne; close: () => Promise<void> },
  request: DestroyRequest,
): Promise<DestroyOutcome> => {
  try {
    return await work.destroy(request);
  } finally {
    await work.close();
  }
};

type Followed =
  | { kind: 'answered'; outcome: DestroyOutcome }
  /** Nobody listens: no socket, or one a leader that ended left. */
  | { kind: 'no-leader' }
  /** A leader took the request and went before answering (it ended, or was killed). */
  | { kind: 'leader-lost' };

const follow = (request: DestroyRequest, options: RelayOptions): Promise<Followed> =>
  new Promise((resolve) => {
    const waitMs = options.waitMs ?? 900_000;
    const socket = createConnection(options.socket);
    let answer = '';
    let connected = false;
    const timer = setTimeout(() => {
      socket.destroy();
      resolve({
        kind: 'answered',
        outcome: {
          code: 1,
          lines: [
            `destroy: the run destroying this target's objects gave no outcome in ${waitMs / 1000} s;` +
              ' the object may or may not be removed: destroy again',
          ],
        },
      });
    }, waitMs);
    const done = (followed: Followed) => {
      clearTimeout(timer);
      socket.destroy();
      resolve(followed);
    };
    socket.setEncoding('utf8');
    socket.on('connect', () => {
      connected = true;
      socket.write(`${JSON.stringify(request)}\n`);
    });
    socket.on('data', (chunk: string) => {
      answer += chunk;
      if (answer.length > MAX_LINE) done({ kind: 'leader-lost' });
      const end = answer.indexOf('\n');
      if (end >= 0) {
        const outcome = parseOutcome(answer.slice(0, end));
        done(outcome === undefined ? { kind: 'leader-lost' } : { kind: 'answered', outcome });
      }
    });
    socket.on('error', () => done(connected ? { kind: 'leader-lost' } : { kind: 'no-leader' }));
    socket.on('close', () => done(connected ? { kind: 'leader-lost' } : { kind: 'no-leader' }));
  });

const parseOutcome = (line: string): DestroyOutcome | undefined => {
  try {
    const value: unknown = JSON.parse(line);
    if (typeof value !== 'object' || value === null) return undefined;
    const { code, lines } = value as { code?: unknown; lines?: unknown };
    if (typeof code !== 'number' || !Array.isArray(lines) || !lines.every((l) => typeof l === 'string'))
      return undefined;
    return { code, lines: lines as string[] };
  } catch {
    return undefined;
  }
};

/** A listening server, `in-use` when a socket is there, `unusable` when the folder refuses one. */
const listen = (socket: string): Promise<Server | 'in-use' | 'unusable'> =>
  new Promise((resolve) => {
    const server = createServer();
    server.once('error', (error: NodeJS.ErrnoException) =>
      resolve(error.code === 'EADDRINUSE' ? 'in-use' : 'unusable'),
    );
    server.listen(socket, () => resolve(server));
  });

/** A socket nobody answers on is a leader's that was killed: removed, so the next attempt may lead. */
const removeStale = (socket: string): void => {
  try {
    unlinkSync(socket);
  } catch {
    // another hook removed it first
  }
};

/** Leads: destroys its own object and every follower's, then ends once none is in flight or coming. */
const serve = async (
  server: Server,
  own: DestroyRequest,
  work: { destroy: DestroyOne; close: () => Promise<void> },
  options: RelayOptions,
): Promise<DestroyOutcome> => {
  // Another hook may have taken the socket for a killed leader's and removed it already (it saw it bound
  // before it listened): this run still serves whoever connected, and removes no socket at its end.
  const inode = inodeOf(options.socket);
  let inFlight = 0;
  let arrivals = 0;
  let idle: () => void = () => undefined;
  const track = async <T>(job: Promise<T>): Promise<T> => {
    inFlight += 1;
    try {
      return await job;
    } finally {
      inFlight -= 1;
      if (inFlight === 0) idle();
    }
  };
  server.on('connection', (socket: Socket) => {
    arrivals += 1;
    void track(answerFollower(socket, work.destroy));
  });
  const outcome = await track(work.destroy(own));
  // Ends when nothing is in flight and nothing arrived for lingerMs: the next hooks Terraform starts
  // after the followers exit need that long to connect; a later one leads a run of its own.
  for (;;) {
    if (inFlight > 0) await new Promise<void>((resolve) => (idle = resolve));
    const seen = arrivals;
    await options.clock.sleep(options.lingerMs ?? 400);
    if (inFlight === 0 && arrivals === seen) break;
  }
  await new Promise<void>((resolve) => server.close(() => resolve()));
  if (inode !== undefined && inodeOf(options.socket) === inode) removeStale(options.socket);
  await work.close();
  return outcome;
};

const inodeOf = (path: string): number | undefined => {
  try {
    return lstatSync(path).ino;
  } catch {
    return undefined;
  }
};

/** Reads one request line, destroys it, answers its outcome; a malformed request is refused. */
const answerFollower = (socket: Socket, destroy: DestroyOne): Promise<void> =>
  new Promise((resolve) => {
    let text = '';
    socket.setEncoding('utf8');
    socket.on('error', () => resolve());
    socket.on('close', () => resolve());
    socket.on('data', (chunk: string) => {
      text += chunk;
      if (text.length > MAX_LINE) socket.destroy();
      const end = text.indexOf('\n');
      if (end < 0) return;
      socket.removeAllListeners('data');
      const request = parseRequest(text.slice(0, end));
      const outcome: Promise<DestroyOutcome> =
        request === undefined
          ? Promise.resolve({ code: 2, lines: ['destroy: the relay refused a malformed request'] })
          : destroy(request);
      void outcome.then(
        ({ code, lines }) => socket.end(`${JSON.stringify({ code, lines: lines.slice(0, MAX_LINES) })}\n`),
        () => socket.destroy(),
      );
    });
  });

const parseRequest = (line: string): DestroyRequest | undefined => {
  try {
    const value: unknown = JSON.parse(line);
    if (typeof value !== 'object' || value === null) return undefined;
    const { kind, target, identity } = value as Partial<DestroyRequest>;
    return typeof kind === 'string' ? { kind, target, identity } : undefined;
  } catch {
    return undefined;
  }
};

/**
 * The directory the sockets live in, `<data dir>/cdktf-homelab-relay`, or undefined when it is not
 * this user's alone (then each hook destroys its object by itself, as before the relay). The data dir
 * is Terraform's (`.terraform`, or TF_DATA_DIR), in the working directory the hooks run in.
 */
export const relayDirectory = (env: NodeJS.ProcessEnv): string | undefined => {
  const uid = process.getuid?.();
  if (uid === undefined) return undefined;
  const data = env.TF_DATA_DIR ?? '.terraform';
  const dir = join(data, 'cdktf-homelab-relay');
  try {
    const parent = lstatSync(data);
    if (!parent.isDirectory() || parent.uid !== uid) return undefined;
    mkdirSync(dir, { mode: 0o700, recursive: false });
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'EEXIST') return undefined;
  }
  try {
    const own = lstatSync(dir);
    return own.isDirectory() && own.uid === uid && (own.mode & 0o077) === 0 ? dir : undefined;
  } catch {
    return undefined;
  }
};
