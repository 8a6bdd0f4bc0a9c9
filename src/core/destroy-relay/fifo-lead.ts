/**
 * The Node side of the sh destroy hook (handlers/destroy-hook.sh): a leader that a hook became by
 * claiming its domain's lock serves the FIFO the lock names (saying so in its `up` file, from when a
 * hook's watchdog counts); each hook writes its pid there, and the leader opens that hook's reply FIFO
 * (the acknowledgement), reads and removes its request file (its claim), destroys its object with the
 * rest and writes the outcome back. It prevents a Node start per destroyed object, one object destroyed
 * by both the leader and its hook's fallback, and a leader that ends or dies leaving a hook waiting, or
 * its lock, FIFO or a hook's files behind.
 */
import {
  closeSync,
  constants,
  fstatSync,
  lstatSync,
  openSync,
  readdirSync,
  readFileSync,
  rmSync,
  unlinkSync,
  writeFileSync,
} from 'node:fs';
import { Socket } from 'node:net';
import { join } from 'node:path';
import type { Clock } from '../clock';
import { isRecord } from '../records';
import {
  ACK,
  DECLINED,
  fifoName,
  RELAY_DOMAIN,
  hookPid,
  isDomainName,
  lockName,
  MAX_REQUEST_BYTES,
  replyName,
  replyText,
  requestFields,
  requestName,
  servingName,
  staleEntries,
} from './fifo-protocol';
import { ENV } from '../protocol';
import { printableLine } from '../printable';
import { nodeSignals, releaseOnSignals, type SignalPort } from './lead-signals';
import type { DestroyOutcome } from './relay';
import { runsOver } from './whole-destroy';

/** A lock this process holds, the FIFO it names, and the file that says it serves the FIFO. */
export interface FifoLead {
  readonly dir: string;
  readonly lock: string;
  readonly fifo: string;
  readonly serving: string;
}

/** A request's outcome, or `declined` for one this leader does not serve (another stack's, another domain's). */
export type Served = DestroyOutcome | 'declined';

export interface FifoLeadOptions {
  readonly clock: Clock;
  /** How long a leader with nothing in flight waits for another hook before it ends. @default 400 */
  readonly lingerMs?: number;
  /** Where its signals come from (lead-signals.ts). @default Node's own process */
  readonly signals?: SignalPort;
}

/** How long a leader that removed its FIFO still reads hooks that opened it just before. */
const GRACE_MS = 50;

/**
 * The FIFO this process leads: the sh hook that exec'd it wrote its pid (now this process's) in the lock
 * of `domain` and made the FIFO before. Undefined otherwise: this process then destroys as the Node hook.
 */
export const claimedFifo = (dir: string, env: NodeJS.ProcessEnv): FifoLead | undefined => {
  const domain = env[RELAY_DOMAIN];
  if (!isDomainName(domain)) return undefined;
  const lock = join(dir, lockName(domain));
  const fifo = join(dir, fifoName(domain, process.pid));
  if (lockHolder(lock) !== process.pid) return undefined;
  const made = lstatSync(fifo, { throwIfNoEntry: false });
  const serving = join(dir, servingName(domain, process.pid));
  return made?.isFIFO() && made.uid === process.getuid?.() ? { dir, lock, fifo, serving } : undefined;
};

/**
 * Leads: `own` is this process's own object; every hook that writes to the FIFO until the leader is idle
 * for `lingerMs` is served by `serve`. Whatever happens, the lock and the FIFO are removed, hooks that
 * opened the FIFO before are still answered, and the leftovers of dead hooks and leaders are swept.
 */
export const leadFifo = async (
  lead: FifoLead,
  own: () => Promise<DestroyOutcome>,
  serve: (fields: Readonly<Record<string, string>>) => Promise<Served>,
  options: FifoLeadOptions,
): Promise<DestroyOutcome> => {
  const orphans: string[] = [];
  const tracker = inFlight();
  const reader = new Socket({ fd: openSync(lead.fifo, constants.O_RDWR | constants.O_NONBLOCK), writable: false });
  let text = '';
  reader.setEncoding('utf8');
  reader.on('error', () => reader.destroy());
  reader.on('data', (chunk: string) => {
    text += chunk;
    const lines = text.split('\n');
    text = (lines.pop() ?? '').slice(-64);
    for (const pid of lines.map(hookPid))
      if (pid !== undefined) void tracker.track(answer(lead.dir, pid, serve, orphans));
  });
  const removeOnExit = () => release(lead);
  process.once('exit', removeOnExit);
  const unhook = releaseOnSignals(options.signals ?? nodeSignals(), removeOnExit, tracker.count);
  markServing(lead.serving);
  try {
    const outcome = await tracker.track(own());
    await lingered(tracker, options.clock, options.lingerMs ?? 400);
    release(lead);
    await lingered(tracker, options.clock, GRACE_MS);
    return { code: outcome.code, lines: [...outcome.lines, ...orphans] };
  } finally {
    release(lead);
    reader.destroy();
    await tracker.quiet();
    process.removeListener('exit', removeOnExit);
    unhook();
    sweep(lead.dir);
  }
};

/** Resolves once nothing was in flight and nothing arrived for `ms`. */
const lingered = async (tracker: ReturnType<typeof inFlight>, clock: Clock, ms: number) => {
  for (;;) {
    await tracker.quiet();
    const seen = tracker.arrivals();
    await clock.sleep(ms);
    if (tracker.count() === 0 && tracker.arrivals() === seen) return;
  }
};

const inFlight = () => {
  let count = 0;
  let arrivals = 0;
  const idle: Array<() => void> = [];
  const track = async <T>(job: Promise<T>): Promise<T> => {
    count += 1;
    arrivals += 1;
    try {
      return await job;
    } finally {
      count -= 1;
      if (count === 0) for (const resolve of idle.splice(0)) resolve();
    }
  };
  const quiet = () => (count === 0 ? Promise.resolve() : new Promise<void>((resolve) => idle.push(resolve)));
  return { track, quiet, count: () => count, arrivals: () => arrivals };
};

/**
 * Serves the hook `pid`: its reply FIFO opened without blocking (it fails when the hook is gone: then its
 * object is left to it), its request read and removed, the outcome written back. The removal is the
 * claim: a hook that ran out of time removes its request before it falls back, so a request already gone
 * is that hook's to destroy, and the leader leaves it (two destroys of one object at once otherwise). A
 * hook gone after the acknowledgement still has its object destroyed, said in the leader's own lines.
 */
const answer = async (
  dir: string,
  pid: number,
  serve: (fields: Readonly<Record<string, string>>) => Promise<Served>,
  orphans: string[],
) => {
  const replyPath = join(dir, replyName(pid));
  const requestPath = join(dir, requestName(pid));
  const fd = openReply(replyPath);
  removeFile(replyPath);
  const request = fd === undefined ? undefined : readRequest(requestPath);
  const claimed = removeFile(requestPath);
  if (fd === undefined) return;
  if (!claimed) {
    closeSync(fd);
    return;
  }
  const writer = new Socket({ fd, readable: false });
  let gone = false;
  writer.on('error', () => {
    gone = true;
    writer.destroy();
  });
  writer.write(ACK);
  const fields = request === undefined ? undefined : requestFields(request);
  const served = fields === undefined ? malformed : await serve(fields).catch(unexpected);
  if (gone && served !== 'declined') orphans.push(...orphanedHook(pid, fields?.[ENV.kind], served));
  await new Promise<void>((resolve) => writer.end(served === 'declined' ? DECLINED : replyText(served), resolve));
  writer.destroy();
};

/** The leader's lines about a hook that went after its acknowledgement, whose object it still destroyed. */
const orphanedHook = (pid: number, kind: string | undefined, { code, lines }: DestroyOutcome): string[] => [
  printableLine(
    `${kind ?? 'an object'} of hook ${pid}: its hook ended before the answer; this run ` +
      (code === 0 ? 'destroyed it' : 'failed to destroy it, and its next destroy tries again'),
  ),
  ...lines,
];

const malformed: DestroyOutcome = { code: 2, lines: ['destroy: the relay refused a malformed request'] };

const unexpected = (error: unknown): DestroyOutcome => ({
  code: 1,
  lines: [`destroy: the relay failed: ${error instanceof Error ? error.message : String(error)}`],
});

/** The hook's reply FIFO open for writing, or undefined when it is not a FIFO with its reader there. */
const openReply = (path: string): number | undefined => {
  let fd: number | undefined;
  try {
    fd = openSync(path, constants.O_WRONLY | constants.O_NONBLOCK | constants.O_NOFOLLOW);
    if (fstatSync(fd).isFIFO()) return fd;
  } catch {
    // ENXIO: no reader, its hook is gone; ENOENT: it never made it
  }
  if (fd !== undefined) closeSync(fd);
  return undefined;
};

/** A request file's text: a regular file of at most MAX_REQUEST_BYTES, never followed through a link. */
const readRequest = (path: string): string | undefined => {
  let fd: number | undefined;
  try {
    fd = openSync(path, constants.O_RDONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK);
    const stat = fstatSync(fd);
    return stat.isFile() && stat.size <= MAX_REQUEST_BYTES ? readFileSync(fd, 'utf8') : undefined;
  } catch {
    return undefined;
  } finally {
    if (fd !== undefined) closeSync(fd);
  }
};

/** Removes the lock while it still names this process, then the FIFO: new hooks find no leader. */
const release = (lead: FifoLead): void => {
  if (lockHolder(lead.lock) === process.pid) removeFile(lead.lock);
  removeFile(lead.fifo);
  removeFile(lead.serving);
};

/** Says this leader reads its FIFO; a hook that finds no such file waits on (destroy-hook.sh's watchdog). */
const markServing = (path: string): void => {
  try {
    writeFileSync(path, '', { flag: 'wx', mode: 0o600 });
  } catch {
    // already there, or not made: a hook then waits its polls out, then 5 s, as for a leader still starting
  }
};

/** The pid a lock names, or undefined when there is no lock or it is not one pid. */
const lockHolder = (path: string): number | undefined => {
  try {
    return hookPid(readFileSync(path, 'utf8').replace(/\n$/, ''));
  } catch {
    return undefined;
  }
};

/**
 * Removes the leftovers of hooks and leaders that were killed (fifo-protocol.ts says which), and the outcome
 * folders of teardowns whose Terraform is gone (teardown.ts).
 */
export const sweep = (dir: string): void => {
  let names: string[];
  try {
    names = readdirSync(dir);
  } catch {
    return;
  }
  // A lock is never empty (the sh hook links it from a file that holds the pid): one whose pid is unreadable is stale.
  for (const name of staleEntries(names, isAlive, (lock) => lockHolder(join(dir, lock)))) removeFile(join(dir, name));
  for (const name of runsOver(names)) rmSync(join(dir, name), { recursive: true, force: true });
};

const isAlive = (pid: number): boolean => {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return isRecord(error) && error.code === 'EPERM';
  }
};

/** Removes `path`; false when it was already gone (another sweep, or its owner, removed it). */
const removeFile = (path: string): boolean => {
  try {
    unlinkSync(path);
    return true;
  } catch {
    return false;
  }
};
