/**
 * How the destroy hooks of one target find one leader and hand it their objects. Terraform runs a hook per
 * object, `-parallelism` at a time; the first finds no run for its target and leads one over a socket in a
 * folder only this user may enter, the others send their objects and print its answers. It prevents a hook
 * hanging on a dead leader, and a failing or killed hook leaving a socket, a server, a session or another
 * hook's half-done destroy behind: every wait is bounded and the leader ends in one `finally`.
 */
import { createConnection, createServer, type Server, type Socket } from 'node:net';
import type { Clock } from '../clock';
import { HandlerError } from '../errors';
import { printableLine } from '../printable';
import { isRecord } from '../records';
import { inodeOf, removeIf } from './socket-file';

/** What a hook hands over: its kind and the lifecycle's target and identity, as the hook read them. */
export interface DestroyRequest {
  readonly kind: string;
  readonly target: unknown;
  readonly identity: unknown;
  /**
   * Set when the hook's construct says `adopt: true` (HOMELAB_ADOPT): a kind that marks its objects on
   * the target may then remove one without the mark.
   */
  readonly adopt?: true;
}

/** One object's outcome: its exit code and the lines its destroy logged. */
export interface DestroyOutcome {
  readonly code: number;
  readonly lines: readonly string[];
}

/** A run's work: destroys one object over the run's session; `close` ends the session. */
export interface DestroyWork {
  readonly destroy: (request: DestroyRequest) => Promise<DestroyOutcome>;
  readonly close: () => Promise<void>;
}

export interface RelayOptions {
  /** The socket's path, relative to the working directory (a socket path holds at most 107 bytes). */
  readonly socket: string;
  readonly clock: Clock;
  /** How long a leader with nothing in flight waits for another hook before it ends. @default 400 */
  readonly lingerMs?: number;
  /** How long a follower waits for its object's outcome. @default 900_000 */
  readonly waitMs?: number;
  /** How long a leader waits for a connected hook's request. @default 10_000 */
  readonly requestMs?: number;
  /** How long a hook tries to reach or become a leader before it destroys alone. @default 10_000 */
  readonly electMs?: number;
}

/** A request or an answer is one JSON line of at most this many characters. */
const MAX_LINE = 1 << 20;
/** Most lines of one object's outcome sent to its follower. */
const MAX_LINES = 200;

/** Destroys `request` in a run of its own: `work`'s session serves it alone and is closed after. */
export const destroyAlone = async (work: DestroyWork, request: DestroyRequest): Promise<DestroyOutcome> => {
  try {
    return await settled(work, request);
  } finally {
    await work.close();
  }
};

/** `work.destroy`, whose throw is the object's failure, never the run's. */
const settled = (work: DestroyWork, request: DestroyRequest): Promise<DestroyOutcome> =>
  work.destroy(request).catch((error: unknown) => failed(request, error, []));

export const failed = (request: DestroyRequest, error: unknown, lines: readonly string[]): DestroyOutcome => ({
  code: 1,
  lines: [...lines, printableLine(`${request.kind} destroy: ${describeError(error)}`)],
});

/**
 * Destroys `request` through the target's leader, leading when there is none; `lead` is called once, by
 * the hook that leads. A socket refused twice a moment apart, the same file both times, is a killed
 * leader's: it is removed and the next attempt leads. Correctness never rests on one leader: two that
 * both lead serve disjoint objects, and a follower whose leader vanished sends its object again.
 */
export const relayDestroy = async (
  request: DestroyRequest,
  lead: () => DestroyWork,
  options: RelayOptions,
): Promise<DestroyOutcome> => {
  const { clock, socket } = options;
  const deadline = clock.now() + (options.electMs ?? 10_000);
  let refused: number | undefined;
  let lost = 0;
  for (let attempt = 0; clock.now() < deadline; attempt += 1) {
    const answer = await follow(request, options);
    if (answer.kind === 'answered') return answer.outcome;
    if (answer.kind === 'lost' && (lost += 1) > 2) break; // a leader that drops every object: destroy alone
    const server = await listen(socket);
    if (server === 'unusable') break;
    if (server !== 'in-use') return serveRemovingAtExit(server, request, lead(), options);
    if (answer.kind === 'refused' && answer.inode === refused) removeIf(socket, answer.inode);
    refused = answer.kind === 'refused' ? answer.inode : undefined;
    await clock.sleep(20 + Math.random() * 30 * Math.min(attempt + 1, 4));
  }
  return destroyAlone(lead(), request);
};

type Followed =
  | { kind: 'answered'; outcome: DestroyOutcome }
  /** No socket: nobody leads. */
  | { kind: 'absent' }
  /** A socket nobody listens on: a leader that is binding it, or one that was killed (`inode` tells). */
  | { kind: 'refused'; inode: number }
  /** A leader took the request and went before answering (it was killed, or it is ending). */
  | { kind: 'lost' };

const follow = (request: DestroyRequest, options: RelayOptions): Promise<Followed> =>
  new Promise((resolve) => {
    const inode = inodeOf(options.socket);
    if (inode === undefined) return resolve({ kind: 'absent' });
    const waitMs = options.waitMs ?? 900_000;
    const socket = createConnection(options.socket);
    let text = '';
    let connected = false;
    const done = (followed: Followed) => {
      clearTimeout(timer);
      socket.destroy();
      resolve(followed);
    };
    const unanswered =
      `destroy: the run destroying this target's objects gave no outcome in ${waitMs / 1000} s;` +
      ' the object may or may not be removed: destroy again';
    const timer = setTimeout(() => done({ kind: 'answered', outcome: { code: 1, lines: [unanswered] } }), waitMs);
    socket.setEncoding('utf8');
    socket.on('connect', () => {
      connected = true;
      socket.write(`${JSON.stringify(request)}\n`);
    });
    socket.on('data', (chunk: string) => {
      text += chunk;
      const end = text.indexOf('\n');
      const outcome = end < 0 ? undefined : parseOutcome(text.slice(0, end));
      if (outcome !== undefined) done({ kind: 'answered', outcome });
      else if (end >= 0 || text.length > MAX_LINE) done({ kind: 'lost' });
    });
    socket.on('error', (error: NodeJS.ErrnoException) => {
      if (connected) done({ kind: 'lost' });
      else done(error.code === 'ECONNREFUSED' ? { kind: 'refused', inode } : { kind: 'absent' });
    });
    socket.on('close', () => done(connected ? { kind: 'lost' } : { kind: 'absent' }));
  });

/** A listening server, `in-use` when a socket is there, `unusable` when the folder refuses one. */
const listen = (socket: string): Promise<Server | 'in-use' | 'unusable'> =>
  new Promise((resolve) => {
    const server = createServer();
    server.once('error', (error: NodeJS.ErrnoException) =>
      resolve(error.code === 'EADDRINUSE' ? 'in-use' : 'unusable'),
    );
    server.listen(socket, () => resolve(server));
  });

/**
 * `serve`, and the socket removed however Node exits meanwhile: a run whose Terraform is gone exits at once
 * (handler-cli.ts, stop.ts) with its server open, and the socket stayed in the relay folder (found by the fault
 * campaign's `destroy-whole` rounds: terraform SIGKILLed, a drop-in's Node destroy leading; seed 5801, round 39).
 * A leader killed by SIGKILL still leaves it: the next plan's read (stale-sockets.ts) or hook removes it.
 */
const serveRemovingAtExit = async (server: Server, own: DestroyRequest, work: DestroyWork, options: RelayOptions) => {
  const inode = inodeOf(options.socket);
  const removeAtExit = () => {
    if (inode !== undefined) removeIf(options.socket, inode);
  };
  process.once('exit', removeAtExit);
  try {
    return await serve(server, own, work, options);
  } finally {
    process.off('exit', removeAtExit);
  }
};

/**
 * Leads: destroys its own object and every follower's, and ends once no destroy is in flight and no hook
 * came for `lingerMs`. A follower whose hook went before its answer still has its object destroyed, and
 * said in the leader's lines. Whatever happens, the server closes (which removes the socket) and the
 * session closes after the last destroy.
 */
const serve = async (server: Server, own: DestroyRequest, work: DestroyWork, options: RelayOptions) => {
  const orphans: string[] = [];
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
  const quiet = () => (inFlight === 0 ? undefined : new Promise<void>((resolve) => (idle = resolve)));
  server.on('connection', (socket: Socket) => {
    arrivals += 1;
    void track(answerFollower(socket, (request) => settled(work, request), orphans, options.requestMs ?? 10_000));
  });
  let outcome: DestroyOutcome | undefined;
  try {
    outcome = await track(settled(work, own));
    for (;;) {
      await quiet();
      const seen = arrivals;
      await options.clock.sleep(options.lingerMs ?? 400);
      if (inFlight === 0 && arrivals === seen) break;
    }
  } finally {
    server.close();
    await quiet(); // hooks that connected before the close
    await work.close();
  }
  return { code: outcome.code, lines: [...outcome.lines, ...orphans] };
};

/**
 * Reads one request line within `requestMs`, destroys it and answers its outcome, or adds it to `orphans`
 * when its hook went first; settles once that is done, or once the hook went without a request.
 */
const answerFollower = (socket: Socket, destroy: DestroyWork['destroy'], orphans: string[], requestMs: number) =>
  new Promise<void>((resolve) => {
    let text = '';
    let gone = false;
    let started = false;
    const timer = setTimeout(() => socket.destroy(), requestMs);
    socket.setEncoding('utf8');
    socket.on('error', () => socket.destroy()); // a hook killed before its answer: EPIPE, then close
    socket.on('close', () => {
      gone = true;
      clearTimeout(timer);
      if (!started) resolve();
    });
    socket.on('data', (chunk: string) => {
      text += chunk.length > MAX_LINE ? chunk.slice(0, MAX_LINE) : chunk;
      const end = text.indexOf('\n');
      if (end < 0 && text.length <= MAX_LINE) return;
      socket.removeAllListeners('data');
      clearTimeout(timer);
      started = true;
      const request = end < 0 ? undefined : parseRequest(text.slice(0, end));
      const outcome = request === undefined ? Promise.resolve(malformed) : destroy(request);
      void outcome.then(({ code, lines }) => {
        if (gone && request !== undefined) orphans.push(...orphaned(request, code, lines));
        else if (!gone)
          socket.end(`${JSON.stringify({ code, lines: lines.slice(0, MAX_LINES) })}\n`, () => socket.destroy());
        resolve();
      });
    });
  });

const malformed: DestroyOutcome = { code: 2, lines: ['destroy: the relay refused a malformed request'] };

const orphaned = (request: DestroyRequest, code: number, lines: readonly string[]): string[] => [
  printableLine(
    `${request.kind} ${JSON.stringify(request.identity)}: its hook ended before the answer; this run ` +
      (code === 0 ? 'destroyed it' : 'failed to destroy it, and its next destroy tries again'),
  ),
  ...lines,
];

const parseRequest = (line: string): DestroyRequest | undefined => {
  const value = parsed(line);
  return value !== undefined && typeof value.kind === 'string'
    ? {
        kind: value.kind,
        target: value.target,
        identity: value.identity,
        ...(value.adopt === true ? { adopt: true as const } : {}),
      }
    : undefined;
};

const parseOutcome = (line: string): DestroyOutcome | undefined => {
  const { code, lines } = parsed(line) ?? {};
  if (typeof code !== 'number' || !Array.isArray(lines)) return undefined;
  const texts = lines.filter((l): l is string => typeof l === 'string');
  return texts.length === lines.length ? { code, lines: texts } : undefined;
};

const parsed = (line: string): Readonly<Record<string, unknown>> | undefined => {
  try {
    const value: unknown = JSON.parse(line);
    return isRecord(value) ? value : undefined;
  } catch {
    return undefined;
  }
};

/** One printable line of at most 2 KiB, whatever the error carried (a server's message among it). */
export const describeError = (error: unknown): string =>
  printableLine(
    error instanceof HandlerError ? error.oneLine() : error instanceof Error ? error.message : String(error),
  );
