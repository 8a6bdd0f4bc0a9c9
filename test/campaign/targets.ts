/**
 * The campaign's three targets, each the kind the tests trust: the PVE simulator over HTTPS, the real systemd
 * host (reached through a relay the campaign can cut) and a kube-apiserver of the campaign's own, which a fault
 * may kill and the campaign restarts on the same port, store and certificate.
 */
import { spawn } from 'node:child_process';
import { openSync, closeSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { startFakePve, type FakePve } from '../fakes/pve/server';
import { kubeRequest } from '../support/kube-http';
import { startKubeApiServer, type KubeApiServer } from '../support/kube-apiserver';
import { kubeBinary, stopPid } from '../support/kube-processes';
import { startSystemdHost, type SystemdHost } from '../support/systemd-host';
import { startRelay, type Relay } from '../support/tcp-relay';
import { makeCert, type TestCert } from '../support/tls';
import { PVE_NODES } from './variant';

export const PVE_TOKEN = 'root@pam!homelab=fake-secret-0000';
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** The kube-apiserver of the campaign: killed by a fault, started again with the argv it had. */
export class KubeTarget {
  private pid: number;
  private readonly argv: string[];

  constructor(readonly server: KubeApiServer) {
    this.pid = server.pids.apiserver;
    this.argv = readFileSync(`/proc/${this.pid}/cmdline`, 'utf8').split('\0').filter(Boolean);
  }

  get apiserverPid(): number {
    return this.pid;
  }

  kill(): void {
    process.kill(this.pid, 'SIGKILL');
  }

  /** Starts the API server again unless it answers, and waits (bounded) until /readyz says ready. */
  async ensureUp(log: string): Promise<void> {
    if (await this.ready()) return;
    await stopPid(this.pid, kubeBinary('kube-apiserver'));
    const fd = openSync(log, 'a', 0o600);
    const child = spawn('setpriv', ['--pdeathsig', 'KILL', '--', ...this.argv], { stdio: ['ignore', fd, fd] });
    closeSync(fd);
    child.unref();
    this.pid = child.pid ?? 0;
    for (const deadline = Date.now() + 90_000; !(await this.ready()); await sleep(200)) {
      if (Date.now() > deadline) throw new Error(`kube-apiserver not ready 90 s after its restart (log: ${log})`);
    }
  }

  async stop(): Promise<void> {
    await stopPid(this.pid, kubeBinary('kube-apiserver'));
    await this.server.stop();
  }

  private async ready(): Promise<boolean> {
    const answer = await kubeRequest(this.server.admin, 'GET', '/readyz').catch(() => undefined);
    return answer?.status === 200;
  }
}

export interface Targets {
  readonly pve: FakePve;
  readonly cert: TestCert;
  readonly host: SystemdHost;
  /** In front of the host's sshd: the stack reaches the host through it, so a fault can cut its connections. */
  readonly relay: Relay;
  readonly kube: KubeTarget;
  /** The environment the stack's synth and terraform runs get. */
  readonly env: NodeJS.ProcessEnv;
  stop(): Promise<void>;
}

export const startTargets = async (workDir: string): Promise<Targets> => {
  const stops: Array<() => Promise<void> | void> = [];
  const stop = async () => {
    for (const step of stops.reverse()) await Promise.resolve(step()).catch(() => undefined);
  };
  try {
    const cert = makeCert();
    stops.push(() => cert.cleanup());
    const pve = await startFakePve({ tls: { key: cert.key, cert: cert.cert }, nodes: ['n1', ...PVE_NODES] });
    stops.push(() => pve.stop());
    const [host, server] = await Promise.all([startSystemdHost(), startKubeApiServer()]);
    stops.push(() => host.stop());
    const kube = new KubeTarget(server);
    stops.push(() => kube.stop());
    const relay = await startRelay(host.port);
    stops.push(() => relay.close());
    const env = {
      PROXMOX_VE_ENDPOINT: pve.url,
      PROXMOX_VE_CA_FILE: cert.certFile,
      PROXMOX_VE_API_TOKEN: PVE_TOKEN,
      HOMELAB_SSH_HOST: host.host,
      HOMELAB_SSH_PORT: String(relay.port),
      HOMELAB_SSH_HOST_KEY: host.hostKeyFingerprint,
      HOMELAB_SSH_KEY: host.privateKey,
      HOMELAB_KUBECONFIG: server.kubeconfig,
      HOMELAB_KUBE_NAMESPACE: server.namespace,
      // The handlers' last-good memories land in the campaign's folder, where the stray check looks.
      XDG_RUNTIME_DIR: join(workDir, 'runtime'),
    };
    return { pve, cert, host, relay, kube, env, stop };
  } catch (error) {
    await stop();
    throw error;
  }
};
