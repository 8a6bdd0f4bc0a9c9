/**
 * The processes a test run started, found by a marker in their environment (or by their session), and how to end
 * them. Issue 28: Ctrl-C on `npm test` kills jest and its workers at once, so no afterAll runs; npm's git-install
 * children (which ignore SIGTERM while their own children run) and the fixtures started in a process group of their
 * own (the simulator, nspawn) were left running. Everything a run starts inherits its environment, so the marker
 * finds them even after they were reparented.
 */
import { readdirSync, readFileSync } from 'node:fs';

export interface RunProcess {
  readonly pid: number;
  /** Its parent's pid. */
  readonly parent: number;
  /** The command line, spaces for NULs: what a report names. */
  readonly command: string;
}

export interface Marker {
  readonly name: string;
  readonly value: string;
  /** A session id whose every process belongs to the run too (a run started with setsid). */
  readonly session?: number;
}

/** What a process's environment and stat say, as read from /proc. */
interface ProcessFacts {
  readonly pid: number;
  readonly environ: string;
  readonly stat: string;
  readonly cmdline: string;
}

/** Whether a NUL-separated environment block holds `name=value`. */
export const environHolds = (environ: string, name: string, value: string): boolean =>
  environ.split('\0').includes(`${name}=${value}`);

/** A field of a /proc/PID/stat line counted after the command, which may hold spaces: 1 the parent, 3 the session. */
const statField = (stat: string, index: number): number =>
  Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[index]);
export const sessionOf = (stat: string): number => statField(stat, 3);

/** A process belongs to the run when its environment holds the marker or it sits in the run's session. */
export const belongsToRun = (facts: ProcessFacts, marker: Marker): boolean =>
  environHolds(facts.environ, marker.name, marker.value) ||
  (marker.session !== undefined && facts.stat !== '' && sessionOf(facts.stat) === marker.session);

const readOr = (path: string): string => {
  try {
    return readFileSync(path, 'latin1');
  } catch {
    return ''; // the process ended while we looked, or is not ours to read
  }
};

/** Every live process of the run but this one. */
export const runProcesses = (marker: Marker): RunProcess[] =>
  readdirSync('/proc')
    .filter((name) => /^\d+$/.test(name) && Number(name) !== process.pid)
    .map((name) => ({
      pid: Number(name),
      environ: readOr(`/proc/${name}/environ`),
      stat: readOr(`/proc/${name}/stat`),
      cmdline: readOr(`/proc/${name}/cmdline`),
    }))
    .filter((facts) => facts.cmdline !== '' && belongsToRun(facts, marker)) // a zombie has no command line
    .map((facts) => ({
      pid: facts.pid,
      parent: statField(facts.stat, 1),
      command: facts.cmdline.replace(/\0/g, ' ').trim(),
    }));

const sleepSync = (ms: number): void => {
  Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, ms);
};

const signal = (pid: number, name: NodeJS.Signals): void => {
  try {
    process.kill(pid, name);
  } catch {
    // it ended meanwhile
  }
};

/**
 * Ends the processes `find` returns: SIGTERM (nspawn halts its container in order), then SIGKILL to whatever is left
 * after `graceMs`, again for any started meanwhile, for at most `totalMs`. Synchronous, so that a signal handler
 * finishes it before jest goes on. Returns what was still running at the end.
 */
export const endProcesses = (find: () => RunProcess[], graceMs = 3000, totalMs = 10_000): RunProcess[] => {
  const deadline = Date.now() + totalMs;
  const first = find();
  for (const p of first) signal(p.pid, 'SIGTERM');
  for (const termEnd = Date.now() + graceMs; Date.now() < termEnd && find().length > 0;) sleepSync(100);
  let left = find();
  while (left.length > 0 && Date.now() < deadline) {
    for (const p of left) signal(p.pid, 'SIGKILL');
    sleepSync(100);
    left = find();
  }
  return left;
};
