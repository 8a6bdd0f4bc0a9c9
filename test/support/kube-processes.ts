/**
 * The two processes of the kube test server: etcd and kube-apiserver (built by scripts/setup-kube.sh) on 127.0.0.1
 * free ports with their state in a private temp dir, each start-up wait bounded, and a stop (SIGTERM, bounded, then
 * SIGKILL) that leaves nothing behind; pdeathsig kills them with the test process if no stop runs.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { generateKeyPairSync, randomBytes } from 'node:crypto';
import * as fs from 'node:fs';
import * as http from 'node:http';
import * as os from 'node:os';
import * as path from 'node:path';
import { freePort } from './free-port';
import { kubeRequest } from './kube-http';

/** A running etcd + kube-apiserver. Tokens are test-only secrets; `dir` holds the state and logs. */
export interface KubeProcesses {
  readonly server: string;
  readonly caFile: string;
  readonly caPem: string;
  readonly tokens: { readonly admin: string; readonly reader: string };
  readonly pids: { readonly etcd: number; readonly apiserver: number };
  readonly dir: string;
  /** Milliseconds from the start until etcd, then the API server, answered healthy. */
  readonly startupMs: Readonly<Record<string, number>>;
}

const SETUP = 'bash scripts/setup-kube.sh';
const BIN = path.join(process.env.CDKTF_HOMELAB_CACHE ?? '/var/cache/cdktf-homelab', 'kube', 'current', 'bin');
export const READY_MS = Number(process.env.KUBE_APISERVER_READY_MS ?? 90_000);
export const STOP_MS = 15_000;
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

export const kubeBinary = (name: 'etcd' | 'kube-apiserver') => {
  const file = path.join(BIN, name);
  if (!fs.existsSync(file)) throw new Error(`kube test server: ${file} is missing; run \`${SETUP}\` first`);
  return file;
};

interface Proc {
  readonly child: ChildProcess;
  readonly log: string;
  exit?: string;
}

/** Spawns under setpriv --pdeathsig, so the process dies with the test process even when no teardown runs. */
const launch = (bin: string, args: string[], log: string): Proc => {
  const fd = fs.openSync(log, 'a', 0o600);
  const child = spawn('setpriv', ['--pdeathsig', 'KILL', '--', bin, ...args], { stdio: ['ignore', fd, fd] });
  fs.closeSync(fd);
  child.unref(); // a shared server outlives the test file that started it; globalTeardown stops it
  const proc: Proc = { child, log };
  child.once('exit', (code, sig) => (proc.exit = `exit ${code ?? sig}`));
  child.once('error', (e) => (proc.exit = `spawn error ${e.message}`));
  return proc;
};

/** Whether `pid` is still the process started from `bin` (a reused pid must never be signalled). */
const isOurs = (pid: number, bin: string) => {
  try {
    return fs.readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0').includes(bin);
  } catch {
    return false;
  }
};

/** SIGTERM, up to STOP_MS for the exit, then SIGKILL; by pid, so a later process (globalTeardown) can do it too. */
export const stopPid = async (pid: number, bin: string): Promise<void> => {
  if (!pid || !isOurs(pid, bin)) return;
  process.kill(pid, 'SIGTERM');
  for (const deadline = Date.now() + STOP_MS; isOurs(pid, bin); await sleep(50)) {
    if (Date.now() > deadline) {
      process.kill(pid, 'SIGKILL');
      break;
    }
  }
  while (isOurs(pid, bin)) await sleep(20);
};

const tail = (file: string) => {
  try {
    return fs.readFileSync(file, 'utf8').trimEnd().split('\n').slice(-15).join('\n');
  } catch {
    return '(no log)';
  }
};

/** Polls `probe` until it says ready, the process exits, or the shared deadline passes. */
const waitFor = async (what: string, proc: Proc, deadline: number, probe: () => Promise<boolean>) => {
  for (;;) {
    if (proc.exit) throw new Error(`${what} ended during start-up (${proc.exit})\n${tail(proc.log)}`);
    if (await probe().catch(() => false)) return;
    if (Date.now() > deadline) throw new Error(`${what} not ready after ${READY_MS} ms\n${tail(proc.log)}`);
    await sleep(100);
  }
};

const etcdHealthy = (port: number) =>
  new Promise<boolean>((resolve) => {
    const req = http.get({ host: '127.0.0.1', port, path: '/health', timeout: 2000 }, (res) => {
      let text = '';
      res.on('data', (c) => (text += c)).on('end', () => resolve(/"health":\s*"true"/.test(text)));
    });
    req.once('timeout', () => req.destroy()).once('error', () => resolve(false));
  });

const secrets = (dir: string) => {
  const { privateKey, publicKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
  fs.writeFileSync(path.join(dir, 'sa.key'), privateKey.export({ type: 'pkcs1', format: 'pem' }), { mode: 0o600 });
  fs.writeFileSync(path.join(dir, 'sa.pub'), publicKey.export({ type: 'spki', format: 'pem' }));
  const tokens = { admin: randomBytes(24).toString('hex'), reader: randomBytes(24).toString('hex') };
  const csv = `${tokens.admin},admin,admin,"system:masters"\n${tokens.reader},reader,reader\n`;
  fs.writeFileSync(path.join(dir, 'tokens.csv'), csv, { mode: 0o600 });
  return tokens;
};

const apiserverArgs = (dir: string, etcdPort: number, apiPort: number) => [
  `--etcd-servers=http://127.0.0.1:${etcdPort}`,
  '--bind-address=127.0.0.1',
  `--secure-port=${apiPort}`,
  `--cert-dir=${dir}/certs`,
  '--advertise-address=127.0.0.1',
  '--endpoint-reconciler-type=none', // else it refuses a loopback advertise address
  '--service-account-issuer=https://kubernetes.default.svc',
  `--service-account-key-file=${dir}/sa.pub`,
  `--service-account-signing-key-file=${dir}/sa.key`,
  '--service-cluster-ip-range=10.0.0.0/24',
  `--token-auth-file=${dir}/tokens.csv`,
  '--authorization-mode=RBAC',
  '--profiling=false',
];

/** Removes state left by test processes that were killed before their teardown (etcd preallocates ~120 MB): our
 * own directories only, named with an owner pid that is gone; a symlink or another user's entry is never followed. */
export const sweepDeadKubeDirs = (): void => {
  const uid = process.getuid?.();
  for (const name of fs.readdirSync(os.tmpdir())) {
    const pid = Number(/^cdktf-kube-(?:run-)?(\d+)-/.exec(name)?.[1]);
    if (!pid || fs.existsSync(`/proc/${pid}`)) continue;
    const dir = path.join(os.tmpdir(), name);
    const st = fs.lstatSync(dir, { throwIfNoEntry: false });
    if (st?.isDirectory() && st.uid === uid) fs.rmSync(dir, { recursive: true, force: true });
  }
};

/** Starts etcd, then the API server on it, and waits for /readyz; on any failure both are stopped again. */
export const startKubeProcesses = async (): Promise<KubeProcesses & { stop(): Promise<void> }> => {
  const bins = { etcd: kubeBinary('etcd'), apiserver: kubeBinary('kube-apiserver') };
  sweepDeadKubeDirs();
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), `cdktf-kube-${process.pid}-`));
  const procs: Proc[] = [];
  let stopping: Promise<void> | undefined;
  const stop = () =>
    (stopping ??= (async () => {
      // The API server first: it must not outlive its store.
      for (const [proc, bin] of procs.map((p, i) => [p, i === 0 ? bins.etcd : bins.apiserver] as const).reverse()) {
        await stopPid(proc.child.pid ?? 0, bin);
      }
      fs.rmSync(dir, { recursive: true, force: true });
    })());
  const t0 = Date.now();
  const deadline = t0 + READY_MS;
  try {
    const [etcdPort, peerPort, apiPort] = [await freePort(), await freePort(), await freePort()];
    const client = `http://127.0.0.1:${etcdPort}`;
    const peer = `http://127.0.0.1:${peerPort}`;
    const etcdArgs = [`--data-dir=${dir}/etcd`, '--name=test', `--listen-client-urls=${client}`];
    etcdArgs.push(`--advertise-client-urls=${client}`, `--listen-peer-urls=${peer}`);
    etcdArgs.push(`--initial-advertise-peer-urls=${peer}`, `--initial-cluster=test=${peer}`);
    const etcd = launch(bins.etcd, etcdArgs, path.join(dir, 'etcd.log'));
    procs.push(etcd);
    const tokens = secrets(dir);
    await waitFor('etcd', etcd, deadline, () => etcdHealthy(etcdPort));
    const etcdMs = Date.now() - t0;

    const apiserver = launch(bins.apiserver, apiserverArgs(dir, etcdPort, apiPort), path.join(dir, 'apiserver.log'));
    procs.push(apiserver);
    const server = `https://127.0.0.1:${apiPort}`;
    // The self-signed serving certificate and its CA, as the API server writes them into --cert-dir.
    const caFile = path.join(dir, 'certs', 'apiserver.crt');
    let caPem = '';
    await waitFor('kube-apiserver', apiserver, deadline, async () => {
      caPem ||= fs.existsSync(caFile) ? fs.readFileSync(caFile, 'utf8') : '';
      return (
        caPem !== '' && (await kubeRequest({ server, caPem, token: tokens.admin }, 'GET', '/readyz')).status === 200
      );
    });
    const pids = { etcd: etcd.child.pid ?? 0, apiserver: apiserver.child.pid ?? 0 };
    const startupMs = { etcd: etcdMs, apiserver: Date.now() - t0 };
    return { server, caFile, caPem, tokens, pids, dir, startupMs, stop };
  } catch (e) {
    await stop();
    throw e;
  }
};
