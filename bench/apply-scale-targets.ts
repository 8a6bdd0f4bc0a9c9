/**
 * The three live targets bench/apply-scale.ts applies to: a fake PVE, a real kube-apiserver and a
 * real systemd host, each able to say how many bench objects it holds and to drop them all, so every
 * timed apply starts from objects absent and is checked to have created all N.
 */
import { startPveSimulator } from '../src/simulator/pve/server';
import { startKubeApiServer } from '../test/support/kube-apiserver';
import { crPath } from '../test/support/kube-crds';
import { kubeExpect } from '../test/support/kube-http';
import { startSystemdHost, type SystemdHost } from '../test/support/systemd-host';
import { makeCert } from '../test/support/tls';
import { unitHostEnv } from './plan-scale-objects';

export interface ApplyTarget {
  readonly kind: string;
  /** Variables for the stack app (bench/plan-scale-app.ts). */
  readonly appEnv: NodeJS.ProcessEnv;
  /** Variables for terraform (secrets the stack names). */
  readonly env: NodeJS.ProcessEnv;
  /** Whether `terraform destroy` is timed; it then also empties the target between runs. */
  readonly destroys: boolean;
  /** How many bench objects the target holds as the apply leaves them. */
  present(): Promise<number>;
  /** Drops every bench object out of band. */
  reset(): Promise<void>;
  /** Starts counting `daemon-reload`s; the function returned says how many ran since. */
  countReloads?(): Promise<() => Promise<number>>;
  stop(): Promise<void>;
}

export const pveTarget = async (): Promise<ApplyTarget> => {
  // TLS as on a real cluster: the handler pays its handshake.
  const cert = makeCert();
  const fake = await startPveSimulator({ tls: { key: cert.key, cert: cert.cert } });
  const benchIds = () => Object.keys(fake.metricServers()).filter((id) => id.startsWith('bench'));
  return {
    kind: 'metric servers',
    appEnv: { BENCH_KIND: 'pve', BENCH_PVE_ENDPOINT: fake.url, BENCH_PVE_CA_FILE: cert.certFile },
    env: { PROXMOX_VE_API_TOKEN: 'root@pam!homelab=fake-secret-0000' },
    destroys: true,
    present: async () => benchIds().length,
    reset: async () => {
      for (const id of benchIds()) fake.deleteMetricServer(id);
      fake.requests.length = 0; // the fake keeps every request; a long bench would hold them all
    },
    stop: async () => {
      await fake.stop();
      cert.cleanup();
    },
  };
};

export const kubeTarget = async (): Promise<ApplyTarget> => {
  const kube = await startKubeApiServer();
  const repos = crPath(kube.namespace, 'repos');
  const benchRepos = async () => {
    const list = await kubeExpect<{ items: Array<{ metadata: { name: string } }> }>(kube.admin, 'GET', repos);
    return list.items.filter((item) => item.metadata.name.startsWith('bench-'));
  };
  return {
    kind: 'KubeRepos',
    appEnv: { BENCH_KIND: 'kube', BENCH_KUBECONFIG: kube.kubeconfig, BENCH_KUBE_NAMESPACE: kube.namespace },
    env: {},
    destroys: false,
    present: async () => (await benchRepos()).length,
    reset: async () => {
      // The Repos carry no finalizer: a collection delete removes them at once.
      await kubeExpect(kube.admin, 'DELETE', repos, undefined, [200]);
      const left = (await benchRepos()).length;
      if (left > 0) throw new Error(`${left} bench Repos are still on the API server after a collection delete`);
    },
    stop: () => kube.stop(),
  };
};

/** Every bench unit on the host: stopped, disabled, its file gone, systemd reloaded. */
const CLEAN_UNITS =
  'names=$(cd /etc/systemd/system && ls bench-*.service 2>/dev/null); ' +
  '[ -z "$names" ] || { systemctl disable --now $names >/dev/null 2>&1; ' +
  'cd /etc/systemd/system && rm -f $names; systemctl daemon-reload; systemctl reset-failed; }';

/** pid1 logs `Reloading.` for each reload, its own and the one `systemctl enable` asks for. */
const reloadCounter = (host: SystemdHost) => async () => {
  const shown = await host.exec('journalctl --flush; journalctl -n 0 --show-cursor -q');
  const cursor = /-- cursor: (\S+)/.exec(shown.stdout)?.[1];
  if (cursor === undefined) throw new Error(`no journal cursor on the systemd host: ${shown.stdout}${shown.stderr}`);
  return async () => {
    // pid1's lines reach journald over a socket; read too soon, 2 of 10 reloads showed (measured, after boot).
    const read = `journalctl -q --no-pager --after-cursor='${cursor}'`;
    const counted = await host.exec(`sleep 1; journalctl --sync; ${read} | grep -c 'systemd.1.: Reloading\\.$'`);
    return Number(counted.stdout.trim());
  };
};

/** The counter, if it counts two reloads as two on this host (pid1's lines can arrive late or not at all). */
const checkedCounter = async (host: SystemdHost) => {
  const counter = reloadCounter(host);
  const count = await counter();
  await host.exec('systemctl daemon-reload; systemctl daemon-reload');
  const counted = await count();
  if (counted === 2) return counter;
  process.stderr.write(`[apply-scale] the journal counted ${counted} of 2 daemon-reloads: reloads are not counted\n`);
  return undefined;
};

export const unitTarget = async (): Promise<ApplyTarget> => {
  const host = await startSystemdHost({ stock: true });
  const countReloads = await checkedCounter(host);
  return {
    kind: 'systemd units',
    ...unitHostEnv(host),
    destroys: true,
    present: async () => {
      const active = await host.exec("systemctl list-units 'bench-*.service' --state=active --no-legend --plain");
      return active.stdout.split('\n').filter((line) => line.trim() !== '').length;
    },
    reset: async () => {
      const cleaned = await host.exec(CLEAN_UNITS);
      if (cleaned.code !== 0) throw new Error(`removing the bench units failed: ${cleaned.stderr.trim()}`);
    },
    countReloads,
    stop: () => host.stop(),
  };
};
