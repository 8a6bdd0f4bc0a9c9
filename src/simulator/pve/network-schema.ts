// The parameter schemas of the node network and task endpoints, so a client's forms meet PVE's
// own 400s (type on every write, iface in the body of a create, 0/1 booleans, formats).
// Source: [PM] PVE/API2/Network.pm $confdesc and methods, PVE/API2/Tasks.pm; [PC] JSONSchema.pm.
import { TASK_SOURCES } from './tasks';
import type { ObjectSchema, PropSchema } from './validate';

const opt = (schema: PropSchema): PropSchema => ({ ...schema, optional: true });
const str = opt({ type: 'string' });
const bool = opt({ type: 'boolean' });
const ifaceList = opt({ type: 'string', format: 'pve-iface-list' });

const NETWORK_TYPES = [
  'bridge',
  'bond',
  'eth',
  'alias',
  'vlan',
  'fabric',
  'OVSBridge',
  'OVSBond',
  'OVSPort',
  'OVSIntPort',
  'vnet',
];
const BOND_MODES = [
  'balance-rr',
  'active-backup',
  'balance-xor',
  'broadcast',
  '802.3ad',
  'balance-tlb',
  'balance-alb',
  'balance-slb',
  'lacp-balance-slb',
  'lacp-balance-tcp',
];

const node: PropSchema = { type: 'string', format: 'pve-node' };
const iface: PropSchema = { type: 'string', format: 'pve-iface', minLength: 2, maxLength: 20 };

/** $confdesc: `type` is not optional, so it is required on PUT as well as POST. */
const CONFIG: ObjectSchema = {
  type: { type: 'string', enum: [...NETWORK_TYPES, 'unknown'] },
  comments: str,
  comments6: str,
  autostart: bool,
  bridge_vlan_aware: bool,
  bridge_vids: opt({ type: 'string', format: 'pve-vlan-id-or-range-list' }),
  bridge_ports: ifaceList,
  ovs_ports: ifaceList,
  ovs_tag: opt({ type: 'integer', minimum: 1, maximum: 4094 }),
  ovs_options: opt({ type: 'string', maxLength: 1024 }),
  ovs_bridge: opt({ type: 'string', format: 'pve-iface' }),
  slaves: ifaceList,
  ovs_bonds: ifaceList,
  bond_mode: opt({ type: 'string', enum: BOND_MODES }),
  'bond-primary': opt({ type: 'string', format: 'pve-iface' }),
  bond_xmit_hash_policy: opt({ type: 'string', enum: ['layer2', 'layer2+3', 'layer3+4'] }),
  'vlan-raw-device': opt({ type: 'string', format: 'pve-iface' }),
  'vlan-id': opt({ type: 'integer', minimum: 1, maximum: 4094 }),
  gateway: opt({ type: 'string', format: 'ipv4' }),
  netmask: opt({ type: 'string', format: 'ipv4mask', requires: 'address' }),
  address: opt({ type: 'string', format: 'ipv4', requires: 'netmask' }),
  cidr: opt({ type: 'string', format: 'CIDRv4' }),
  mtu: opt({ type: 'integer', minimum: 1280, maximum: 65520 }),
  gateway6: opt({ type: 'string', format: 'ipv6' }),
  netmask6: opt({ type: 'integer', minimum: 0, maximum: 128, requires: 'address6' }),
  address6: opt({ type: 'string', format: 'ipv6', requires: 'netmask6' }),
  cidr6: opt({ type: 'string', format: 'CIDRv6' }),
};

export const NETWORK_SCHEMAS = {
  /** GET nodes/{node}/network */
  list: {
    node,
    type: opt({ type: 'string', enum: [...NETWORK_TYPES, 'any_bridge', 'any_local_bridge', 'include_sdn'] }),
  },
  /** POST nodes/{node}/network: the create, `iface` in the body. */
  create: { node, iface, ...CONFIG },
  /** PUT nodes/{node}/network/{iface} */
  update: { node, iface, ...CONFIG, delete: opt({ type: 'string', format: 'pve-configid-list' }) },
  /** GET and DELETE nodes/{node}/network/{iface} */
  one: { node, iface },
  /** PUT nodes/{node}/network: the reload. */
  reload: { node, 'regenerate-frr': bool },
  /** DELETE nodes/{node}/network: the revert. */
  revert: { node },
  taskStatus: { node, upid: { type: 'string' } },
  /** GET nodes/{node}/tasks: the node's task list. */
  taskList: {
    node,
    start: opt({ type: 'integer', minimum: 0 }),
    limit: opt({ type: 'integer', minimum: 0 }),
    userfilter: str,
    typefilter: str,
    vmid: opt({ type: 'integer', minimum: 100, maximum: 999999999 }),
    errors: bool,
    source: opt({ type: 'string', enum: TASK_SOURCES }),
    since: opt({ type: 'integer' }),
    until: opt({ type: 'integer' }),
    statusfilter: str,
  },
  taskLog: {
    node,
    upid: { type: 'string' },
    start: opt({ type: 'integer', minimum: 0 }),
    limit: opt({ type: 'integer', minimum: 0 }),
    download: bool,
  },
} satisfies Record<string, ObjectSchema>;
