/**
 * Stopping an apply at a safe point. Terraform interrupted kills the local-exec hook's shell and
 * leaves the Node handler running orphaned, writing after terraform gave up. A stop request (a
 * signal, the parent gone, the output pipe closed) is a token the batch loops read between steps:
 * between objects, between the nodes of a network apply, never between a write and the poll of the
 * task it started. The run then says in one line what it did and what it left, and exits non-zero.
 */
import { readFileSync } from 'node:fs';
import { errorCode } from './errors';

/** The read side, handed to the apply loops through the kind context. */
export interface StopSignal {
  /** Why the run must stop ("SIGTERM", "its parent process exited"), or undefined while it may go on. */
  readonly reason: string | undefined;
}

/** A signal nothing ever stops: the default where no process is watched (tests, by-hand runs). */
export const NEVER_STOP: StopSignal = { reason: undefined };

/** A stop request and its signal; the first reason wins. */
export const stopSource = (): { readonly signal: StopSignal; stop(reason: string): void } => {
  let reason: string | undefined;
  return {
    signal: {
      get reason() {
        return reason;
      },
    },
    stop: (why) => {
      reason ??= why;
    },
  };
};

/**
 * An object, or a step of one, that a stop left: what of it was done and what was not started.
 * A loop throws it at a safe point; the batch apply folds it into its one line.
 */
export class Stopped extends Error {
  constructor(
    readonly reason: string,
    /** What of the object was done before the stop ("n1 reloaded"), empty when nothing was. */
    readonly done: string,
    /** What was not started ("n2, n3 not reloaded"). */
    readonly left: string,
  ) {
    super(`stopped (${reason}) ${done === '' ? 'before it began' : `after ${done}`}${left === '' ? '' : `; ${left}`}`);
    this.name = 'Stopped';
  }
}

/** Throws `Stopped` when the run must stop; `done` and `left` say what the caller's object leaves. */
export const stopPoint = (signal: StopSignal | undefined, done: string, left: string): void => {
  const reason = signal?.reason;
  if (reason !== undefined) throw new Stopped(reason, done, left);
};

/** What a stopped batch leaves, by object name. */
export interface StoppedBatch {
  readonly applied: readonly string[];
  /** Objects a stop cut between their steps, each with what it left. */
  readonly partly: ReadonlyArray<readonly [string, Stopped]>;
  readonly notStarted: readonly string[];
  /** Objects that failed for another reason (each has its own line). */
  readonly failed: readonly string[];
}

/**
 * The one line a stopped run prints: "stopped by SIGTERM at a safe point, nothing more was written:
 * applied a, b; net stopped after n1 reloaded, n2, n3 not reloaded; not started c, d".
 */
export const stoppedLine = (reason: string, batch: StoppedBatch): string => {
  const list = (names: readonly string[]) => (names.length === 0 ? 'none' : names.join(', '));
  const parts = [
    `applied ${list(batch.applied)}`,
    ...batch.partly.map(([name, stop]) => `${name} ${stop.message.replace(/^stopped \([^)]*\) /, 'stopped ')}`),
    ...(batch.failed.length === 0 ? [] : [`failed ${list(batch.failed)}`]),
    `not started ${list(batch.notStarted)}`,
  ];
  return `stopped by ${reason} at a safe point, nothing more was written: ${parts.join('; ')}`;
};

/** The process as the watcher sees it: a port, so tests drive signals and parent loss by hand. */
export interface StoppableProcess {
  readonly ppid: () => number;
  /** The parent of process `pid`, when the system says (Linux's /proc), else undefined. */
  readonly parentOf: (pid: number) => number | undefined;
  /** Whether process `pid` still runs. */
  readonly alive: (pid: number) => boolean;
  onSignal(name: 'SIGTERM' | 'SIGINT', handler: () => void): void;
  /** Runs `handler` when a standard stream errors (EPIPE: its reader is gone). */
  onStreamError(handler: (stream: string, error: Error) => void): void;
  /** Polls every `ms` until the process exits; the timer must not keep the process alive. */
  every(ms: number, tick: () => void): void;
}

/** How often the parent is checked; a stop waits this long at most to be noticed. */
export const PARENT_CHECK_MS = 200;

/**
 * Why the process is abandoned, checked each tick, or undefined while it is not: its parent exited
 * (the hook's shell killed: the handler is re-parented, its ppid changes), or the process that
 * started its parent did (terraform SIGKILLed leaves the hook's shell and the handler running, and
 * the handler learned it only at its next write to the closed pipe: the fault campaign's orphans).
 */
export const abandonment = (proc: StoppableProcess): (() => string | undefined) => {
  const parent = proc.ppid();
  const starter = proc.parentOf(parent);
  const watched = starter !== undefined && starter > 1 ? starter : undefined;
  return () => {
    if (proc.ppid() !== parent) return `its parent process ${parent} exited`;
    if (watched !== undefined && !proc.alive(watched)) return `the process that started its hook (${watched}) exited`;
    return undefined;
  };
};

/**
 * Turns SIGTERM, SIGINT, the process abandoned (`abandonment`) and a closed stdout or stderr into
 * one stop request.
 */
export const watchProcess = (proc: StoppableProcess, stop: (reason: string) => void): void => {
  const abandoned = abandonment(proc);
  proc.onSignal('SIGTERM', () => stop('SIGTERM'));
  proc.onSignal('SIGINT', () => stop('SIGINT'));
  proc.onStreamError((stream, error) => stop(`its ${stream} closed (${error.message})`));
  proc.every(PARENT_CHECK_MS, () => {
    const reason = abandoned();
    if (reason !== undefined) stop(reason);
  });
};

/** Node's own process as a `StoppableProcess`. */
export const nodeProcess = (): StoppableProcess => ({
  ppid: () => process.ppid,
  parentOf: (pid) => {
    try {
      // `pid (comm) state ppid ...`: comm may hold spaces and parentheses, so read after the last `)`.
      const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
      const ppid = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
      return Number.isInteger(ppid) ? ppid : undefined;
    } catch {
      return undefined;
    }
  },
  alive: (pid) => {
    try {
      process.kill(pid, 0);
      return true;
    } catch (error) {
      return errorCode(error) === 'EPERM';
    }
  },
  onSignal: (name, handler) => void process.on(name, handler),
  onStreamError: (handler) => {
    process.stdout.on('error', (error) => handler('stdout', error));
    process.stderr.on('error', (error) => handler('stderr', error));
  },
  every: (ms, tick) => void setInterval(tick, ms).unref(),
});
