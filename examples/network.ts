/**
 * The network demo stack: a bridge and a VLAN on each of two Proxmox VE nodes, made live by one
 * network apply that reloads the nodes one at a time behind the cluster-health gate. It targets the
 * embedded fake PVE by default, or the cluster in PROXMOX_VE_ENDPOINT (comma-separated members).
 * Plans read with the token in the variable HOMELAB_EXAMPLE_READ_TOKEN_ENV names, when it is set, and each run
 * mints its own token for the users HOMELAB_EXAMPLE_MINT names, when that is set.
 */
import { App, TerraformStack } from 'cdktf';
import type { Construct } from 'constructs';
import { ProxmoxCluster, ProxmoxNetworkApply, ProxmoxNetworkInterface } from '../index';
import { type ExampleMint, mintOf } from './mint-env';

export const DEMO_ENDPOINT = 'https://127.0.0.1:18006';

export interface NetworkStackProps {
  readonly endpoints: string[];
  readonly caFile?: string;
  readonly insecure?: boolean;
  /** The variable of the plans' token. @default - PROXMOX_VE_API_TOKEN, the write token's */
  readonly readTokenEnv?: string;
  /** Mint a token per run for these users; the e2e test counts the mints and who polls the reload. @default - none */
  readonly mint?: ExampleMint;
  /** The nodes, in reload order. @default ['n2', 'n3'] */
  readonly nodes?: string[];
  /** The VLAN's MTU; the e2e test changes it to give an apply something to reload. @default 1500 */
  readonly vlanMtu?: number;
  /** The apply's task wait; the e2e test shortens it. @default 30 */
  readonly timeoutSeconds?: number;
  /** A bridge added on the last node; the e2e test adds one to a settled stack. @default - none */
  readonly extraBridge?: string;
  /**
   * A node that also gets a VLAN on a bridge whose port is a bond, declared in that order (each
   * before what it needs), to show the apply orders them by reference. @default - none
   */
  readonly bondNode?: string;
  /**
   * Whether the apply also reloads what someone else staged on the nodes; the e2e test stages a wifi
   * stanza by hand and shows both answers. @default false
   */
  readonly reloadForeignChanges?: boolean;
}

export class NetworkStack extends TerraformStack {
  constructor(scope: Construct, id: string, props: NetworkStackProps) {
    super(scope, id);
    const cluster = new ProxmoxCluster(this, 'pve', {
      endpoints: props.endpoints,
      caFile: props.caFile,
      insecure: props.insecure,
      readTokenEnv: props.readTokenEnv,
      mint: props.mint,
    });
    const nodes = props.nodes ?? ['n2', 'n3'];
    nodes.forEach((node, index) => {
      new ProxmoxNetworkInterface(this, `vmbr1-${node}`, {
        cluster,
        node,
        iface: 'vmbr1',
        type: 'bridge',
        cidr: `10.10.0.${index + 2}/24`,
        bridgePorts: ['enp2s0'],
        autostart: true,
        comments: 'lab storage bridge',
      });
      new ProxmoxNetworkInterface(this, `vlan40-${node}`, {
        cluster,
        node,
        iface: 'vmbr0.40',
        type: 'vlan',
        cidr: `10.40.0.${index + 2}/24`,
        autostart: true,
        mtu: props.vlanMtu ?? 1500,
      });
    });
    if (props.extraBridge !== undefined) {
      const node = nodes[nodes.length - 1]!;
      new ProxmoxNetworkInterface(this, `extra-${node}`, { cluster, node, iface: props.extraBridge, type: 'bridge' });
    }
    if (props.bondNode !== undefined) {
      const node = props.bondNode;
      new ProxmoxNetworkInterface(this, `vlan50-${node}`, { cluster, node, iface: 'vmbr3.50', type: 'vlan' });
      new ProxmoxNetworkInterface(this, `vmbr3-${node}`, {
        cluster,
        node,
        iface: 'vmbr3',
        type: 'bridge',
        bridgePorts: ['bond0'],
      });
      new ProxmoxNetworkInterface(this, `bond0-${node}`, {
        cluster,
        node,
        iface: 'bond0',
        type: 'bond',
        slaves: ['enp3s0', 'enp4s0'],
        bondMode: 'active-backup',
      });
    }
    const applied = props.bondNode === undefined || nodes.includes(props.bondNode) ? nodes : [...nodes, props.bondNode];
    new ProxmoxNetworkApply(this, 'net', {
      cluster,
      nodes: applied,
      timeoutSeconds: props.timeoutSeconds,
      reloadForeignChanges: props.reloadForeignChanges,
    });
  }
}

/** The stack as `cdktf synth` builds it; the e2e test sets HOMELAB_EXAMPLE_* to vary it. */
const synth = (): void => {
  const app = new App();
  const env = process.env;
  const number = (name: string) => (env[name] === undefined ? undefined : Number(env[name]));
  new NetworkStack(app, 'network', {
    endpoints: (env.PROXMOX_VE_ENDPOINT ?? DEMO_ENDPOINT).split(',').map((e) => e.trim()),
    caFile: env.PROXMOX_VE_CA_FILE,
    insecure: env.PROXMOX_VE_INSECURE === 'true',
    readTokenEnv: env.HOMELAB_EXAMPLE_READ_TOKEN_ENV,
    mint: mintOf(env.HOMELAB_EXAMPLE_MINT),
    vlanMtu: number('HOMELAB_EXAMPLE_VLAN_MTU'),
    timeoutSeconds: number('HOMELAB_EXAMPLE_TIMEOUT_SECONDS'),
    extraBridge: env.HOMELAB_EXAMPLE_EXTRA_BRIDGE,
    nodes: env.HOMELAB_EXAMPLE_NODES?.split(','),
    bondNode: env.HOMELAB_EXAMPLE_BOND_NODE,
    reloadForeignChanges: env.HOMELAB_EXAMPLE_RELOAD_FOREIGN === 'true',
  });
  app.synth();
};

if (require.main === module) synth();
