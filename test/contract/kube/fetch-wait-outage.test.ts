// Contract test of a fetch wait against a REAL API server that stops or restarts mid-wait (issue 16 item 9): a stopped
// server (SIGSTOP) no longer holds a 6 s wait for the 30 s request timeout, and a server killed and started again
// 2 s into a 45 s wait is waited out, the verdict written after the restart printed. A server of this file's own.
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { kubeDomain } from '../../../handlers/kube/domain';
import { askedAnnotation, SANDBOXES } from '../../../src/kube/names';
import type { RepoFetchSpec } from '../../../src/kube/kube-repo-fetch';
import { useKubeApiServer, type KubeApiServer } from '../../support/kube-apiserver';
import { CR_VERSION, crPath } from '../../support/kube-crds';
import { READY_MS } from '../../support/kube-processes';
import { kubeExpect, kubeRequest } from '../../support/kube-http';
import { invoke } from '../../support/run-handler';
import type { SandboxObject } from '../../support/sandbox-controller';

jest.setTimeout(READY_MS + 90_000);

const server = useKubeApiServer({ own: true });
let kube: KubeApiServer;
beforeAll(() => {
  kube = server();
});

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const spec = (sandbox: string, budgetSeconds: number): RepoFetchSpec => ({
  namespace: kube.namespace,
  sandbox,
  key: 'site',
  version: CR_VERSION,
  trigger: 'v1',
  budgetSeconds,
});
const createSandbox = (name: string) =>
  kubeExpect(kube.admin, 'POST', crPath(kube.namespace, SANDBOXES), {
    apiVersion: `core.jr2.dev/${CR_VERSION}`,
    kind: 'Sandbox',
    metadata: { name },
    spec: { repos: [{ key: 'site' }] },
  });
const apply = (s: RepoFetchSpec) =>
  invoke(kubeDomain(), 'kube-repo-fetch', 'apply', { name: 'test', kubeconfig: kube.kubeconfig }, s);
/** The ask's stamp once the handler has raised it. */
const askRaised = async (sandbox: string): Promise<string> => {
  for (let i = 0; i < 200; i++) {
    const got = await kubeExpect<SandboxObject>(kube.admin, 'GET', crPath(kube.namespace, SANDBOXES, sandbox));
    const asked = got.metadata.annotations?.[askedAnnotation('site')];
    if (asked !== undefined) return asked;
    await sleep(50);
  }
  throw new Error(`no ask raised on ${sandbox}`);
};
const isRunning = (pid: number) => fs.existsSync(`/proc/${pid}`) && !/^State:\s+Z/m.test(status(pid));
const status = (pid: number) => {
  try {
    return fs.readFileSync(`/proc/${pid}/status`, 'utf8');
  } catch {
    return '';
  }
};
/**
 * Starts the API server again with `argv` and waits for its /readyz, within the bound of a first start (READY_MS).
 * CI runs on fresh clones of f2ec20e and 2bd1db4 saw the restart refused (`listen tcp 127.0.0.1:<port>: bind:
 * address already in use`): the killed server's port was taken, in the moment it was free, by a process of another
 * test file. A start refused so is made again once the port is free (what held it is printed, so the holder can be
 * named); any other failure throws with the end of the server's log.
 */
const restart = async (argv: readonly string[], logFile: string): Promise<ChildProcess> => {
  const port = /--secure-port=(\d+)/.exec(argv.join(' '))?.[1] ?? '?';
  const end = Date.now() + READY_MS;
  for (let attempt = 1; ; attempt++) {
    const log = fs.openSync(logFile, 'a', 0o600);
    const child = spawn('setpriv', ['--pdeathsig', 'KILL', '--', ...argv], { stdio: ['ignore', log, log] });
    fs.closeSync(log);
    const exited = new Promise<'exited'>((resolve) => child.once('exit', () => resolve('exited')));
    for (let answered = false; !answered && Date.now() < end;) {
      const outcome = await Promise.race([exited, sleep(200).then(() => 'waited' as const)]);
      if (outcome === 'exited') break;
      answered = (await kubeRequest(kube.admin, 'GET', '/readyz').catch(() => undefined))?.status === 200;
      if (answered) return child;
    }
    const logged = fs.readFileSync(logFile, 'utf8').split('\n').slice(-30).join('\n');
    if (!/address already in use/.test(logged.split('\n').slice(-3).join('\n')) || Date.now() >= end) {
      if (isRunning(child.pid ?? 0)) child.kill('SIGKILL');
      throw new Error(`the restarted API server was not ready within ${READY_MS} ms; its log ends:\n${logged}`);
    }
    const held = spawnSync('ss', ['-tanp', `( sport = :${port} )`], { encoding: 'utf8' }).stdout;
    console.log(`restart ${attempt}: 127.0.0.1:${port} was in use, by:\n${held}`);
    await sleep(500);
  }
};

test('a stopped API server ends a 6 s wait as stale within its budget, not after the 30 s timeout', async () => {
  await createSandbox('stopped');
  const start = Date.now();
  const pending = apply(spec('stopped', 6));
  await askRaised('stopped');
  process.kill(kube.pids.apiserver, 'SIGSTOP');
  try {
    const run = await pending;
    const ms = Date.now() - start;
    expect(run.code).toBe(0);
    expect(run.stderr).toContain(`Warning: Sandbox ${kube.namespace}/stopped: repo "site" is stale as of`);
    expect(run.stderr).toContain('no answer from the node cache within 6 s');
    expect(ms).toBeLessThan(6000 + 1500); // the last watch window's rounding and the grace, never 30 s
  } finally {
    process.kill(kube.pids.apiserver, 'SIGCONT');
  }
});

test('an API server killed and restarted 2 s into a 45 s wait is waited out, and the verdict is printed', async () => {
  await createSandbox('restart');
  const pid = kube.pids.apiserver;
  const [bin, ...args] = fs
    .readFileSync(`/proc/${pid}/cmdline`, 'utf8')
    .split('\0')
    .filter((a) => a !== '');
  const start = Date.now();
  const pending = apply(spec('restart', 45));
  const asked = await askRaised('restart');
  await sleep(Math.max(0, start + 2000 - Date.now()));
  process.kill(pid, 'SIGKILL');
  while (isRunning(pid)) await sleep(20);
  const logFile = path.join(path.dirname(kube.caFile), '..', 'apiserver-restarted.log');
  let restarted: ChildProcess | undefined;
  try {
    restarted = await restart([bin!, ...args], logFile);
    const now = new Date().toISOString().replace(/\.\d{3}Z$/, 'Z');
    const entry = { key: 'site', asked, attempted: now, fetched: now };
    const statusPath = `${crPath(kube.namespace, SANDBOXES, 'restart')}/status`;
    const patch = { status: { repos: [entry] } };
    await kubeExpect(kube.admin, 'PATCH', statusPath, patch, [200], 'application/merge-patch+json');
    const run = await pending;
    expect(run.code).toBe(0);
    expect(run.stderr).toContain(`Sandbox ${kube.namespace}/restart: the Kubernetes API did not answer (`);
    expect(run.stderr).toContain(`Sandbox ${kube.namespace}/restart: the Kubernetes API answers again`);
    expect(run.stderr).toContain(`Sandbox ${kube.namespace}/restart: repo "site" fetched at ${now}`);
  } finally {
    if (restarted?.pid !== undefined && isRunning(restarted.pid)) {
      restarted.kill('SIGTERM');
      for (const end = Date.now() + 15_000; isRunning(restarted.pid) && Date.now() < end;) await sleep(50);
      if (isRunning(restarted.pid)) restarted.kill('SIGKILL');
    }
  }
});
