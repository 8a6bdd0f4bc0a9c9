/**
 * One kube test server per jest run. Nothing starts it up front (a run without kube tests pays nothing): the first
 * kube test file starts the server and records it in the run directory (run-shared.ts), later files reuse it, and
 * globalTeardown stops it by pid. Starting costs ~5 CPU-seconds and ~330 MiB, too much to pay once per file.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import { kubeRequest } from './kube-http';
import { kubeBinary, READY_MS, startKubeProcesses, stopPid, type KubeProcesses } from './kube-processes';
import { runDir, withRunLock } from './run-shared';

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

/** Part of jest globalTeardown: stops the shared server if a file started one. */
export const kubeRunTeardown = async (): Promise<void> => {
  const dir = runDir();
  const procs = dir === undefined ? undefined : recordOf(dir);
  if (procs) await stopRecorded(procs);
};

/** The run's server, started on first use; undefined outside a jest run. */
export const sharedKubeProcesses = async (): Promise<KubeProcesses | undefined> => {
  const dir = runDir();
  if (dir === undefined) return undefined;
  return withRunLock(dir, 'kube', READY_MS + 30_000, async () => {
    const recorded = recordOf(dir);
    if (recorded) {
      const admin = { server: recorded.server, caPem: recorded.caPem, token: recorded.tokens.admin };
      if ((await kubeRequest(admin, 'GET', '/readyz').catch(() => undefined))?.status === 200) return recorded;
      await stopRecorded(recorded); // its worker died (pdeathsig took the processes) or it hangs
    }
    const { stop: _owned, ...procs } = await startKubeProcesses(); // stopped by pid in kubeRunTeardown
    fs.writeFileSync(path.join(dir, 'server.json'), JSON.stringify(procs), { mode: 0o600 });
    return procs;
  });
};
