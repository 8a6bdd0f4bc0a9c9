/**
 * The fault campaign's stack (test/campaign/variant.ts): metric servers, a bridge and a VLAN on two nodes
 * with their network apply, units with a template, an instance and a drop-in, and two Repos, in the variant
 * HOMELAB_FAULTS_VARIANT names. Targets come from the same variables as the examples and the e2e apps.
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
import {
  dropInSections,
  interfaces,
  otherVariant,
  metricServers,
  PVE_NODES,
  repos,
  unitSections,
  units,
  type Variant,
} from './variant';

const env = process.env;
const variant = (env.HOMELAB_FAULTS_VARIANT ?? 'a') as Variant;
/** The network apply's task wait: short, so a hung reload costs a round seconds, not half a minute. */
const RELOAD_WAIT_SECONDS = 3;

const app = new App();
const stack = new TerraformStack(app, 'faults');

const pve = new ProxmoxCluster(stack, 'pve', {
  endpoints: [env.PROXMOX_VE_ENDPOINT ?? 'https://127.0.0.1:8006'],
  caFile: env.PROXMOX_VE_CA_FILE || undefined,
});
for (const server of metricServers(variant)) {
  new ProxmoxMetricServer(stack, server.id, { cluster: pve, type: 'graphite', ...server });
}
for (const nic of interfaces(variant)) {
  new ProxmoxNetworkInterface(stack, `${nic.iface}-${nic.node}`, {
    cluster: pve,
    node: nic.node,
    iface: nic.iface,
    type: nic.type,
    cidr: `${nic.address}/${nic.netmask}`,
    autostart: true,
    bridgePorts: nic.bridgePorts === undefined ? undefined : [nic.bridgePorts],
    mtu: nic.mtu,
    comments: nic.comments,
  });
}
new ProxmoxNetworkApply(stack, 'net', { cluster: pve, nodes: PVE_NODES, timeoutSeconds: RELOAD_WAIT_SECONDS });

const host = new SshHost(stack, 'host', {
  host: env.HOMELAB_SSH_HOST ?? '127.0.0.1',
  port: Number(env.HOMELAB_SSH_PORT ?? 22),
  hostKey: env.HOMELAB_SSH_HOST_KEY ?? '',
  privateKeyEnv: 'HOMELAB_SSH_KEY',
});
const idOf = (name: string) => name.replace(/[@.]/g, '-');
for (const unit of units(variant)) {
  const id = idOf(unit.name);
  const declared = new SystemdUnit(stack, id, {
    host,
    name: unit.name,
    content: renderUnit(unitSections(unit, variant)),
  });
  if (unit.instance !== undefined) declared.instance(unit.instance);
  if (unit.dropIn !== undefined) {
    const content = dropInSections(unit.dropIn.environment);
    new SystemdDropIn(stack, `${id}-${unit.dropIn.name}`, { unit: declared, name: unit.dropIn.name, content });
  }
}
// The renamed unit's old name is retired: the apply stops, disables and removes it (a rename = remove + create).
const renamed = units(otherVariant(variant)).find((unit) => !units(variant).some((kept) => kept.name === unit.name));
if (renamed !== undefined) {
  const content = renderUnit(unitSections(renamed, otherVariant(variant)));
  new SystemdUnit(stack, idOf(renamed.name), { host, name: renamed.name, content, retired: true });
}

const kube = new KubeCluster(stack, 'kube', { kubeconfig: env.HOMELAB_KUBECONFIG });
// Deleted on destroy: a `destroy-whole` round applies the stack again after it, which would find a Repo a destroy left
// (unlabelled, as it leaves one by default) someone else's and refuse it.
for (const repo of repos(variant)) {
  const namespace = env.HOMELAB_KUBE_NAMESPACE ?? 'default';
  new KubeRepo(stack, repo.key, { cluster: kube, namespace, deleteOnDestroy: true, ...repo });
}

app.synth();
