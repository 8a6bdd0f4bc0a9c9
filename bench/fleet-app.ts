/**
 * The fleet stack of issue 30 item 3, declared as a user would: ONE stack over many SSH hosts and one Proxmox
 * cluster, the shape users grow into (more hosts and nodes, not more units on one host). test/e2e/fleet.test.ts
 * applies it at a small size in CI and bench/fleet.ts times it at larger ones, so the two cannot drift apart.
 *
 * FLEET_HOSTS: JSON list of `{ host, port, hostKey }`; host `i`'s key is in FLEET_SSH_KEY_<i>. FLEET_UNITS plain
 * services per host (`hf-fleet-<n>.service`, the unit files bench/ansible-playbook.ts writes); FLEET_PROBE=1 adds a
 * template `fleet-probe@.service`, its instance `a` and a drop-in on the instance. FLEET_NODES lists the cluster's
 * nodes (PROXMOX_VE_ENDPOINT, PROXMOX_VE_CA_FILE), each with FLEET_INTERFACES bridges made live by one network
 * apply; FLEET_METRICS graphite metric servers. FLEET_PROBE_LEVEL is the drop-in's value, FLEET_METRIC_PORT the
 * servers' port: the e2e test changes them to give a converged stack something to apply.
 */
import { App, TerraformStack } from 'cdktf';
import type { Construct } from 'constructs';
import {
  ProxmoxCluster,
  ProxmoxMetricServer,
  ProxmoxNetworkApply,
  ProxmoxNetworkInterface,
  renderUnit,
  SshHost,
  SystemdDropIn,
  SystemdUnit,
} from '../index';
import { isRecord } from '../src/core/records';
import { fleetUnit } from './ansible-playbook';

/** One SSH host of the fleet, as the app reads it from FLEET_HOSTS. */
export interface FleetHost {
  readonly host: string;
  readonly port: number;
  readonly hostKey: string;
}

export interface FleetStackProps {
  readonly hosts: readonly FleetHost[];
  /** Plain services per host. @default 0 */
  readonly units?: number;
  /** Whether each host also gets the probe template, its instance `a` and a drop-in on it. @default false */
  readonly probe?: boolean;
  /** The drop-in's LEVEL. @default "info" */
  readonly probeLevel?: string;
  /** The cluster's members, in failover order. @default - no cluster, no node and no metric server */
  readonly endpoints?: readonly string[];
  readonly caFile?: string;
  /** The nodes, in reload order. @default - none */
  readonly nodes?: readonly string[];
  /** Bridges per node. @default 0 */
  readonly interfaces?: number;
  /** Graphite metric servers on the cluster. @default 0 */
  readonly metrics?: number;
  /** The metric servers' port. @default 2003 */
  readonly metricPort?: number;
}

/** The variable that holds host `index`'s private key. */
export const fleetKeyEnv = (index: number): string => `FLEET_SSH_KEY_${index}`;

const PROBE = renderUnit([
  { name: 'Unit', lines: [['Description', 'fleet probe on %i']] },
  { name: 'Service', lines: [['ExecStart', '/bin/sh -c "echo probing %i at level $$LEVEL; exec sleep infinity"']] },
  { name: 'Install', lines: [['WantedBy', 'multi-user.target']] },
]);

const hostObjects = (stack: Construct, index: number, target: FleetHost, props: FleetStackProps): void => {
  const host = new SshHost(stack, `host${index}`, { ...target, privateKeyEnv: fleetKeyEnv(index) });
  for (let n = 0; n < (props.units ?? 0); n += 1) {
    new SystemdUnit(stack, `h${index}-fleet-${n}`, { host, name: `hf-fleet-${n}.service`, content: fleetUnit(n) });
  }
  if (props.probe !== true) return;
  const probe = new SystemdUnit(stack, `h${index}-probe`, { host, name: 'fleet-probe@.service', content: PROBE });
  new SystemdDropIn(stack, `h${index}-probe-level`, {
    unit: probe.instance('a'),
    name: '10-level',
    content: renderUnit([{ name: 'Service', lines: [['Environment', `LEVEL=${props.probeLevel ?? 'info'}`]] }]),
  });
};

const clusterObjects = (stack: Construct, endpoints: readonly string[], props: FleetStackProps): void => {
  const cluster = new ProxmoxCluster(stack, 'pve', { endpoints: [...endpoints], caFile: props.caFile });
  const nodes = props.nodes ?? [];
  nodes.forEach((node, n) => {
    for (let i = 0; i < (props.interfaces ?? 0); i += 1) {
      new ProxmoxNetworkInterface(stack, `${node}-vmbr${10 + i}`, {
        cluster,
        node,
        iface: `vmbr${10 + i}`,
        type: 'bridge',
        cidr: `10.${10 + i}.0.${n + 2}/24`,
        autostart: true,
      });
    }
  });
  if (nodes.length > 0) new ProxmoxNetworkApply(stack, 'net', { cluster, nodes: [...nodes] });
  for (let i = 0; i < (props.metrics ?? 0); i += 1) {
    new ProxmoxMetricServer(stack, `metrics-${i}`, {
      cluster,
      id: `fleet-${i}`,
      type: 'graphite',
      server: `10.0.0.${i + 5}`,
      port: props.metricPort ?? 2003,
    });
  }
};

export class FleetStack extends TerraformStack {
  constructor(scope: Construct, id: string, props: FleetStackProps) {
    super(scope, id);
    props.hosts.forEach((target, index) => hostObjects(this, index, target, props));
    if (props.endpoints !== undefined) clusterObjects(this, props.endpoints, props);
  }
}

/** FLEET_HOSTS read strictly: a list of `{ host, port, hostKey }`, or the app stops naming what is wrong. */
export const hostsOf = (text: string): FleetHost[] => {
  const parsed: unknown = JSON.parse(text);
  if (!Array.isArray(parsed)) throw new Error(`FLEET_HOSTS must be a JSON list, got ${text.slice(0, 80)}`);
  return parsed.map((item: unknown, index) => {
    const { host, port, hostKey } = isRecord(item) ? item : {};
    if (typeof host !== 'string' || typeof port !== 'number' || typeof hostKey !== 'string')
      throw new Error(`FLEET_HOSTS[${index}] needs host (text), port (number) and hostKey (text)`);
    return { host, port, hostKey };
  });
};

if (require.main === module) {
  const env = process.env;
  const list = (value: string | undefined) => (value ?? '').split(',').filter((item) => item !== '');
  const app = new App();
  new FleetStack(app, 'fleet', {
    hosts: hostsOf(env.FLEET_HOSTS ?? '[]'),
    units: Number(env.FLEET_UNITS ?? 0),
    probe: env.FLEET_PROBE === '1',
    probeLevel: env.FLEET_PROBE_LEVEL,
    endpoints: env.PROXMOX_VE_ENDPOINT === undefined ? undefined : list(env.PROXMOX_VE_ENDPOINT),
    caFile: env.PROXMOX_VE_CA_FILE,
    nodes: list(env.FLEET_NODES),
    interfaces: Number(env.FLEET_INTERFACES ?? 0),
    metrics: Number(env.FLEET_METRICS ?? 0),
    metricPort: env.FLEET_METRIC_PORT === undefined ? undefined : Number(env.FLEET_METRIC_PORT),
  });
  app.synth();
}
