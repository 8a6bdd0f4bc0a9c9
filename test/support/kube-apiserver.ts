/**
 * Starts a REAL Kubernetes API server for the kube tests: etcd and kube-apiserver (scripts/setup-kube.sh) on
 * 127.0.0.1 free ports, state in a private temp dir, an admin and a read-only identity, the Repo and Sandbox CRDs
 * Established, a kubeconfig; and stops both processes (SIGTERM, bounded, then SIGKILL) so none outlives the tests.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { generateKeyPairSync, randomBytes } from 'node:crypto';
import * as fs from 'node:fs';
import * as http from 'node:http';
import * as net from 'node:net';
import * as os from 'node:os';
import * as path from 'node:path';
import { stringify } from 'yaml';
import { CR_GROUP, REPOS, SANDBOXES } from '../../src/kube/names';
import { installCrd, REPO_CRD, SANDBOX_CRD } from './kube-crds';
import { kubeExpect, kubeRequest, type KubeCaller } from './kube-http';

export interface KubeApiServer {
  readonly server: string;
  readonly caPem: string;
  readonly caFile: string;
  /** The namespace the read-only identity may read in (created at start). */
  readonly namespace: string;
  /** system:masters. */
  readonly admin: KubeCaller;
  /** get/list/watch on the core.jr2.dev resources in `namespace`, nothing else. */
  readonly reader: KubeCaller;
  /** A kubeconfig with contexts `admin` (current) and `reader`. */
  readonly kubeconfig: string;
  readonly pids: { readonly etcd: number; readonly apiserver: number };
  /** Milliseconds from the start until each phase was done (etcd, apiserver, rbac, crds). */
  readonly startupMs: Readonly<Record<string, number>>;
  stop(): Promise<void>;
}

export interface KubeApiServerOptions {
  readonly namespace?: string;
  /** Install the Repo and Sandbox CRDs. @default true */
  readonly crds?: boolean;
}

const SETUP = 'bash scripts/setup-kube.sh';
const BIN = path.join(process.env.CDKTF_HOMELAB_CACHE ?? '/var/cache/cdktf-homelab', 'kube', 'current', 'bin');
const READY_MS = Number(process.env.KUBE_APISERVER_READY_MS ?? 90_000);
const STOP_MS = 15_000;
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

const binary = (name: string) => {
  const file = path.join(BIN, name);
  if (!fs.existsSync(file)) throw new Error(`kube test server: ${file} is missing; run \`${SETUP}\` first`);
  return file;
};

const freePort = (): Promise<number> =>
  new Promise((resolve, reject) => {
    const srv = net.createServer().once('error', reject);
    srv.listen({ host: '127.0.0.1', port: 0 }, () => {
      const { port } = srv.address() as net.AddressInfo;
      srv.close(() => resolve(port));
    });
  });

interface Proc {
  readonly child: ChildProcess;
  readonly log: string;
  exit?: string;
  stop(): Promise<void>;
}

/** Spawns under setpriv --pdeathsig, so the process dies with the test process even when no teardown runs. */
const launch = (bin: string, args: string[], log: string): Proc => {
  const fd = fs.openSync(log, 'a', 0o600);
  const child = spawn('setpriv', ['--pdeathsig', 'KILL', '--', bin, ...args], { stdio: ['ignore', fd, fd] });
  fs.closeSync(fd);
  const exited = new Promise<void>((r) =>
    child.once('exit', (code, sig) => ((proc.exit = `exit ${code ?? sig}`), r())),
  );
  child.once('error', (e) => (proc.exit = `spawn error ${e.message}`));
  const kill = () => proc.exit ?? child.kill('SIGKILL');
  process.once('exit', kill);
  const proc: Proc = {
    child,
    log,
    stop: async () => {
      if (!proc.exit) {
        child.kill('SIGTERM');
        let timer: NodeJS.Timeout | undefined;
        await Promise.race([exited, new Promise<void>((r) => (timer = setTimeout(r, STOP_MS)))]);
        clearTimeout(timer);
        if (!proc.exit) child.kill('SIGKILL');
        await exited;
      }
      process.removeListener('exit', kill);
    },
  };
  return proc;
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

const serviceAccountKeys = (dir: string) => {
  const { privateKey, publicKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
  fs.writeFileSync(path.join(dir, 'sa.key'), privateKey.export({ type: 'pkcs1', format: 'pem' }), { mode: 0o600 });
  fs.writeFileSync(path.join(dir, 'sa.pub'), publicKey.export({ type: 'spki', format: 'pem' }));
};

/** Namespace and the read-only Role bound to the `reader` user. */
const seedRbac = async (admin: KubeCaller, namespace: string) => {
  await kubeExpect(admin, 'POST', '/api/v1/namespaces', { metadata: { name: namespace } });
  const rbac = `/apis/rbac.authorization.k8s.io/v1/namespaces/${namespace}`;
  const rules = [{ apiGroups: [CR_GROUP], resources: [REPOS, SANDBOXES], verbs: ['get', 'list', 'watch'] }];
  await kubeExpect(admin, 'POST', `${rbac}/roles`, { metadata: { name: 'cr-reader' }, rules });
  await kubeExpect(admin, 'POST', `${rbac}/rolebindings`, {
    metadata: { name: 'cr-reader' },
    roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'Role', name: 'cr-reader' },
    subjects: [{ apiGroup: 'rbac.authorization.k8s.io', kind: 'User', name: 'reader' }],
  });
};

const writeKubeconfig = (file: string, server: string, caFile: string, namespace: string, tokens: object) => {
  const users = Object.entries(tokens).map(([name, token]) => ({ name, user: { token } }));
  const contexts = users.map(({ name }) => ({ name, context: { cluster: 'test', user: name, namespace } }));
  const config = { apiVersion: 'v1', kind: 'Config', 'current-context': 'admin', contexts, users };
  const clusters = [{ name: 'test', cluster: { server, 'certificate-authority': caFile } }];
  fs.writeFileSync(file, stringify({ ...config, clusters }), { mode: 0o600 });
};

export async function startKubeApiServer(opts: KubeApiServerOptions = {}): Promise<KubeApiServer> {
  const [etcdBin, apiserverBin] = [binary('etcd'), binary('kube-apiserver')];
  const namespace = opts.namespace ?? 'jr2';
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), `cdktf-kube-${process.pid}-`));
  const procs: Proc[] = [];
  let stopping: Promise<void> | undefined;
  const stop = () =>
    (stopping ??= (async () => {
      for (const p of [...procs].reverse()) await p.stop(); // the apiserver first: it must not outlive its store
      fs.rmSync(dir, { recursive: true, force: true });
    })());
  const t0 = Date.now();
  const startupMs: Record<string, number> = {};
  const done = (phase: string) => (startupMs[phase] = Date.now() - t0);
  try {
    const deadline = t0 + READY_MS;
    const [etcdPort, peerPort, apiPort] = [await freePort(), await freePort(), await freePort()];
    const peer = `http://127.0.0.1:${peerPort}`;
    const etcd = launch(
      etcdBin,
      [
        `--data-dir=${dir}/etcd`,
        '--name=test',
        `--listen-client-urls=http://127.0.0.1:${etcdPort}`,
        `--advertise-client-urls=http://127.0.0.1:${etcdPort}`,
        `--listen-peer-urls=${peer}`,
        `--initial-advertise-peer-urls=${peer}`,
        `--initial-cluster=test=${peer}`,
      ],
      path.join(dir, 'etcd.log'),
    );
    procs.push(etcd);
    serviceAccountKeys(dir);
    const tokens = { admin: randomBytes(24).toString('hex'), reader: randomBytes(24).toString('hex') };
    const csv = `${tokens.admin},admin,admin,"system:masters"\n${tokens.reader},reader,reader\n`;
    fs.writeFileSync(path.join(dir, 'tokens.csv'), csv, { mode: 0o600 });
    await waitFor('etcd', etcd, deadline, () => etcdHealthy(etcdPort));
    done('etcd');

    const certDir = path.join(dir, 'certs');
    const apiserver = launch(
      apiserverBin,
      [
        `--etcd-servers=http://127.0.0.1:${etcdPort}`,
        '--bind-address=127.0.0.1',
        `--secure-port=${apiPort}`,
        `--cert-dir=${certDir}`,
        '--advertise-address=127.0.0.1',
        '--endpoint-reconciler-type=none',
        '--service-account-issuer=https://kubernetes.default.svc',
        `--service-account-key-file=${dir}/sa.pub`,
        `--service-account-signing-key-file=${dir}/sa.key`,
        '--service-cluster-ip-range=10.0.0.0/24',
        `--token-auth-file=${dir}/tokens.csv`,
        '--authorization-mode=RBAC',
        '--profiling=false',
      ],
      path.join(dir, 'apiserver.log'),
    );
    procs.push(apiserver);
    const server = `https://127.0.0.1:${apiPort}`;
    // The self-signed serving certificate and its CA, as the API server writes them into --cert-dir.
    const caFile = path.join(certDir, 'apiserver.crt');
    let admin: KubeCaller | undefined;
    await waitFor('kube-apiserver', apiserver, deadline, async () => {
      admin ??= fs.existsSync(caFile)
        ? { server, caPem: fs.readFileSync(caFile, 'utf8'), token: tokens.admin }
        : undefined;
      return admin !== undefined && (await kubeRequest(admin, 'GET', '/readyz')).status === 200;
    });
    const ready = admin!;
    done('apiserver');
    await seedRbac(ready, namespace);
    done('rbac');
    if (opts.crds ?? true) await Promise.all([installCrd(ready, REPO_CRD), installCrd(ready, SANDBOX_CRD)]);
    done('crds');
    const kubeconfig = path.join(dir, 'kubeconfig');
    writeKubeconfig(kubeconfig, server, caFile, namespace, tokens);
    return {
      server,
      caPem: ready.caPem,
      caFile,
      namespace,
      admin: ready,
      reader: { ...ready, token: tokens.reader },
      kubeconfig,
      pids: { etcd: etcd.child.pid ?? 0, apiserver: apiserver.child.pid ?? 0 },
      startupMs,
      stop,
    };
  } catch (e) {
    await stop();
    throw e;
  }
}

/** Starts one server for the test file and stops it after; the getter is live inside tests. */
export const useKubeApiServer = (opts?: KubeApiServerOptions): (() => KubeApiServer) => {
  let started: KubeApiServer | undefined;
  beforeAll(async () => {
    started = await startKubeApiServer(opts);
  }, READY_MS + 30_000); // bounded inside; the hook's own timeout must not cut the start-up short
  afterAll(() => started?.stop(), 3 * STOP_MS);
  return () => {
    if (started === undefined) throw new Error('the kube API server is not started yet (use it inside a test)');
    return started;
  };
};
