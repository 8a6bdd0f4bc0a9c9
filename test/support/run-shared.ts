/**
 * What the test files of one jest run share, whichever worker runs them: globalSetup makes a private run directory
 * and hands it to the workers through the environment; a file starts a shared fixture once under the run's lock for
 * it (the kube API server, kube-shared.ts; the packed library, packed-library.ts); globalTeardown removes it.
 *
 * The run directory also holds the run's TMPDIR, and its path in the environment marks every process the run starts.
 * Ctrl-C kills jest's workers before any afterAll runs (issue 28: npm's git-install children and 35 MB of temp
 * folders were left, and every run left cdktf's `Testing` synth folders in /tmp): the main jest process ends the
 * marked processes and removes the directory on SIGINT, SIGTERM or SIGHUP, and globalTeardown does the same.
 */
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { endProcesses, type RunProcess, runProcesses } from './run-processes';

export const RUN_DIR_ENV = 'CDKTF_HOMELAB_RUN_DIR';
/** Set by a test that starts a jest run of its own (interrupt-run.test.ts): that run's processes are this run's too. */
export const ENCLOSING_RUN_ENV = 'CDKTF_HOMELAB_ENCLOSING_RUN_DIR';
const PREFIX = 'cdktf-homelab-run-';
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** Run directories of jest processes that died without their globalTeardown. */
const sweepDeadRunDirs = (): void => {
  for (const name of fs.readdirSync(os.tmpdir())) {
    const pid = Number(new RegExp(`^${PREFIX}(\\d+)-`).exec(name)?.[1]);
    if (pid && !fs.existsSync(`/proc/${pid}`))
      fs.rmSync(path.join(os.tmpdir(), name), { recursive: true, force: true });
  }
};

/**
 * Ends the run's processes, but for this process's own children when `spare` (jest's workers and its transformer's
 * esbuild, which jest ends itself as it exits); returns what it found running.
 */
const endRunProcesses = (dir: string, spare: boolean): RunProcess[] => {
  const find = () =>
    [...runProcesses({ name: RUN_DIR_ENV, value: dir }), ...runProcesses({ name: ENCLOSING_RUN_ENV, value: dir })]
      .filter((p, i, all) => all.findIndex((q) => q.pid === p.pid) === i)
      .filter((p) => !spare || p.parent !== process.pid);
  const found = find();
  const left = found.length === 0 ? [] : endProcesses(find);
  if (left.length > 0) console.error(`test run: still running after SIGKILL: ${left.map((p) => p.pid).join(' ')}`);
  return found;
};

const commands = (found: RunProcess[]): string => found.map((p) => `${p.pid} ${p.command.slice(0, 120)}`).join('; ');

const STOP_SIGNALS = ['SIGINT', 'SIGTERM', 'SIGHUP'] as const;

/** Ctrl-C (or a kill) of the main jest process: end the run's processes, remove its folder, then die of the signal. */
const onStopSignal = (signal: NodeJS.Signals): void => {
  for (const s of STOP_SIGNALS) process.removeListener(s, onStopSignal);
  const dir = runDir();
  if (dir) {
    endRunProcesses(dir, false);
    fs.rmSync(dir, { recursive: true, force: true });
  }
  process.kill(process.pid, signal);
  setImmediate(() => process.exit(130)); // another listener kept the signal from ending the process
};

/**
 * jest globalSetup: the run directory, inherited by the test workers through the environment, with the run's TMPDIR
 * in it (mode 1777 as /tmp, the directory 0711: a test server may run as another user).
 */
export const runSetup = (): void => {
  sweepDeadRunDirs();
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), `${PREFIX}${process.pid}-`));
  fs.chmodSync(dir, 0o711);
  const temp = path.join(dir, 'tmp');
  fs.mkdirSync(temp);
  fs.chmodSync(temp, 0o1777);
  process.env[RUN_DIR_ENV] = dir;
  process.env.TMPDIR = temp;
  for (const s of STOP_SIGNALS) process.once(s, onStopSignal);
};

/** The run directory; undefined outside a jest run (a file run by hand starts its own fixtures). */
export const runDir = (): string | undefined => process.env[RUN_DIR_ENV];

/** jest globalTeardown, after the fixtures are stopped: ends what a file left running and removes the run directory. */
export const runTeardown = (): void => {
  for (const s of STOP_SIGNALS) process.removeListener(s, onStopSignal);
  const dir = runDir();
  if (dir) {
    const left = endRunProcesses(dir, true);
    if (left.length > 0) console.error(`test run: ended what the files left running: ${commands(left)}`);
    fs.rmSync(dir, { recursive: true, force: true });
  }
  delete process.env[RUN_DIR_ENV];
};

/** Runs `fn` holding the run's lock `name`, waiting at most `waitMs` for it; a lock whose holder died is taken over. */
export const withRunLock = async <T>(dir: string, name: string, waitMs: number, fn: () => Promise<T>): Promise<T> => {
  const lock = path.join(dir, `${name}.lock`);
  for (const deadline = Date.now() + waitMs; ; await sleep(100)) {
    try {
      fs.writeFileSync(lock, String(process.pid), { flag: 'wx', mode: 0o600 });
      break;
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code !== 'EEXIST') throw e;
      const holder = Number(fs.readFileSync(lock, 'utf8'));
      if (holder && !fs.existsSync(`/proc/${holder}`)) fs.rmSync(lock, { force: true });
      if (Date.now() > deadline) {
        throw new Error(`shared test fixture: ${lock} held by pid ${holder} for too long`, { cause: e });
      }
    }
  }
  try {
    return await fn();
  } finally {
    fs.rmSync(lock, { force: true });
  }
};
