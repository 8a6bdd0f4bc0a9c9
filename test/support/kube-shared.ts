/**
 * One kube test server per jest run. globalSetup only makes a private run directory (so a run without kube tests
 * pays nothing); the first kube test file starts the server and records it there, later files reuse it, and
 * globalTeardown stops it by pid. Starting costs ~5 CPU-seconds and ~330 MiB, too much to pay once per file.
 */
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { kubeRequest } from './kube-http';
import {
  kubeBinary,
  READY_MS,
  startKubeProcesses,
  stopPid,
  sweepDeadKubeDirs,
  type KubeProcesses,
} from './kube-processes';

export const RUN_DIR_ENV = 'CDKTF_KUBE_RUN_DIR';
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** jest globalSetup: the run directory, inherited by the test workers through the environment. */
export const kubeRunSetup = (): void => {
  sweepDeadKubeDirs();
  process.env[RUN_DIR_ENV] = fs.mkdtempSync(path.join(os.tmpdir(), `cdktf-kube-run-${process.pid}-`));
};

const recordOf = (runDir: string): KubeProcesses | undefined => {
  try {
    return JSON.parse(fs.readFileSync(path.join(runDir, 'server.json'), 'utf8')) as KubeProcesses;
  } catch {
    return undefined;
  }
};

const stopRecorded = async (procs: KubeProcesses) => {
  await stopPid(procs.pids.apiserver, kubeBinary('kube-apiserver'));
  await stopPid(procs.pids.etcd, kubeBinary('etcd'));
  fs.rmSync(procs.dir, { recursive: true, force: true });
};

/** jest globalTeardown: stops the shared server if a file started one, and removes the run directory. */
export const kubeRunTeardown = async (): Promise<void> => {
  const runDir = process.env[RUN_DIR_ENV];
  if (!runDir) return;
  const procs = recordOf(runDir);
  if (procs) await stopRecorded(procs);
  fs.rmSync(runDir, { recursive: true, force: true });
  delete process.env[RUN_DIR_ENV];
};

/** Runs `fn` holding the run's lock file; a lock whose holder died is taken over. */
const withLock = async <T>(runDir: string, fn: () => Promise<T>): Promise<T> => {
  const lock = path.join(runDir, 'lock');
  for (const deadline = Date.now() + READY_MS + 30_000; ; await sleep(100)) {
    try {
      fs.writeFileSync(lock, String(process.pid), { flag: 'wx', mode: 0o600 });
      break;
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code !== 'EEXIST') throw e;
      const holder = Number(fs.readFileSync(lock, 'utf8'));
      if (holder && !fs.existsSync(`/proc/${holder}`)) fs.rmSync(lock, { force: true });
      if (Date.now() > deadline) {
        throw new Error(`kube test server: ${lock} held by pid ${holder} for too long`, { cause: e });
      }
    }
  }
  try {
    return await fn();
  } finally {
    fs.rmSync(lock, { force: true });
  }
};

/** The run's server, started on first use; undefined outside a jest run with kube-global-setup. */
export const sharedKubeProcesses = async (): Promise<KubeProcesses | undefined> => {
  const runDir = process.env[RUN_DIR_ENV];
  if (!runDir) return undefined;
  return withLock(runDir, async () => {
    const recorded = recordOf(runDir);
    if (recorded) {
      const admin = { server: recorded.server, caPem: recorded.caPem, token: recorded.tokens.admin };
      if ((await kubeRequest(admin, 'GET', '/readyz').catch(() => undefined))?.status === 200) return recorded;
      await stopRecorded(recorded); // its worker died (pdeathsig took the processes) or it hangs
    }
    const { stop: _owned, ...procs } = await startKubeProcesses(); // stopped by pid in kubeRunTeardown
    fs.writeFileSync(path.join(runDir, 'server.json'), JSON.stringify(procs), { mode: 0o600 });
    return procs;
  });
};
