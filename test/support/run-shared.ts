/**
 * What the test files of one jest run share, whichever worker runs them: globalSetup makes a private run directory
 * and hands it to the workers through the environment; a file starts a shared fixture once under the run's lock for
 * it (the kube API server, kube-shared.ts; the packed library, packed-library.ts); globalTeardown removes it.
 */
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';

export const RUN_DIR_ENV = 'CDKTF_HOMELAB_RUN_DIR';
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

/** jest globalSetup: the run directory, inherited by the test workers through the environment. */
export const runSetup = (): void => {
  sweepDeadRunDirs();
  process.env[RUN_DIR_ENV] = fs.mkdtempSync(path.join(os.tmpdir(), `${PREFIX}${process.pid}-`));
};

/** The run directory; undefined outside a jest run (a file run by hand starts its own fixtures). */
export const runDir = (): string | undefined => process.env[RUN_DIR_ENV];

/** jest globalTeardown, after the fixtures are stopped: removes the run directory. */
export const runTeardown = (): void => {
  const dir = runDir();
  if (dir) fs.rmSync(dir, { recursive: true, force: true });
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
