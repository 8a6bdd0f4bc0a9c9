/**
 * The removal e2e test's app (test/e2e/removal.test.ts): one stack with an object of every kind that
 * has something to delete, on a PVE cluster (PROXMOX_VE_ENDPOINT, PROXMOX_VE_CA_FILE), an SSH host
 * (HOMELAB_SSH_HOST, _PORT, _HOST_KEY) and a Kubernetes namespace (HOMELAB_KUBECONFIG, _NAMESPACE).
 * HOMELAB_REMOVAL_STEP: `all` declares everything; `removed` deletes the constructs of `rm-*` objects
 * and forgets `left`, and changes `stay`, whose drop-in `stay-env` goes; `deleted` also deletes `left`'s construct;
 * `renamed` declares everything, the unit, its drop-in, the template (so its instance) and the Repo `dropped` under
 * new construct ids (test/e2e/rename.test.ts). The template `rm-pool@.service` stays, and its drop-in `pool-env` goes
 * with `removed`: the test starts an instance of it by hand, which that drop-in's destroy restarts.
 */
import { App, TerraformStack } from 'cdktf';
import {
  KubeCluster,
  KubeRepo,
  ProxmoxCluster,
  ProxmoxMetricServer,
  ProxmoxNetworkApply,
  ProxmoxNetworkInterface,
  renderUnit,
  SshHost,
  SystemdDropIn,
  SystemdUnit,
} from '../../index';

const env = process.env;
const step = env.HOMELAB_REMOVAL_STEP ?? 'all';
const all = step === 'all' || step === 'renamed';
/** The construct id of a renamed object: the same object, a new name. */
const id = (name: string) => (step === 'renamed' ? `${name}2` : name);
const service = (what: string) =>
  renderUnit([
    { name: 'Unit', lines: [['Description', what]] },
    { name: 'Service', lines: [['ExecStart', '/bin/sleep infinity']] },
    { name: 'Install', lines: [['WantedBy', 'multi-user.target']] },
  ]);

const app = new App();
const stack = new TerraformStack(app, 'removal');

const cluster = new ProxmoxCluster(stack, 'pve', {
  endpoints: [env.PROXMOX_VE_ENDPOINT ?? 'https://127.0.0.1:8006'],
  caFile: env.PROXMOX_VE_CA_FILE || undefined,
});
const server = (id: string, props: { forget?: boolean } = {}) =>
  new ProxmoxMetricServer(stack, id, { cluster, id, type: 'graphite', server: '10.0.0.5', port: 2003, ...props });
server('keep');
if (all) server('gone');
if (step !== 'deleted') server('left', { forget: !all });
if (all) {
  new ProxmoxNetworkInterface(stack, 'bridge', {
    cluster,
    node: 'n1',
    iface: 'vmbr5',
    type: 'bridge',
    bridgePorts: ['bond0'],
  });
  new ProxmoxNetworkInterface(stack, 'bond', { cluster, node: 'n1', iface: 'bond0', type: 'bond', slaves: ['enp2s0'] });
}
new ProxmoxNetworkApply(stack, 'net', { cluster, nodes: ['n1'] });

const host = new SshHost(stack, 'host', {
  host: env.HOMELAB_SSH_HOST ?? '127.0.0.1',
  port: Number(env.HOMELAB_SSH_PORT ?? 22),
  hostKey: env.HOMELAB_SSH_HOST_KEY ?? '',
  privateKeyEnv: 'HOMELAB_SSH_KEY',
});
// The unit that stays changes with the removal of its drop-in: the drop-in's destroy runs before the host's batch
// apply, so the unit's plan reading must not count its drop-ins (src/linux/unit-basis.ts), or that apply refuses it.
const stay = new SystemdUnit(stack, 'stay', {
  host,
  name: 'rm-stay.service',
  content: service(all ? 'stays' : 'stays, changed'),
});
if (all)
  new SystemdDropIn(stack, 'stay-env', {
    unit: stay,
    name: '10-env',
    content: [{ name: 'Service', lines: [['Environment', 'B=1']] }],
  });
// A template that stays, whose drop-in goes: its destroy restarts the instances no stack declares; the plan names them.
const pool = new SystemdUnit(stack, 'pool', { host, name: 'rm-pool@.service', content: service('pool %i') });
if (all)
  new SystemdDropIn(stack, 'pool-env', {
    unit: pool,
    name: '10-env',
    content: [{ name: 'Service', lines: [['Environment', 'POOL=1']] }],
  });
if (all) {
  const unit = new SystemdUnit(stack, id('unit'), { host, name: 'rm-unit.service', content: service('removed unit') });
  new SystemdDropIn(stack, id('unit-env'), {
    unit,
    name: '10-env',
    content: [{ name: 'Service', lines: [['Environment', 'A=1']] }],
  });
  const template = new SystemdUnit(stack, id('tpl'), { host, name: 'rm-tpl@.service', content: service('removed %i') });
  template.instance('a');
}

const kube = new KubeCluster(stack, 'kube', { kubeconfig: env.HOMELAB_KUBECONFIG });
const repo = (key: string, construct = key) =>
  new KubeRepo(stack, construct, {
    cluster: kube,
    namespace: env.HOMELAB_KUBE_NAMESPACE ?? 'default',
    key,
    url: `https://git.example/me/${key}.git`,
    identity: `git.example/me/${key}`,
    deleteOnDestroy: true,
  });
repo('kept');
if (all) repo('dropped', id('dropped'));

app.synth();
