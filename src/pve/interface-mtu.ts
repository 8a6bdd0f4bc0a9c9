/**
 * The mtus PVE's writer dies on, so a stage (POST, PUT) fails with a 500 on a node whose file holds one: a plan that
 * read the interface as only absent or changed promised an apply that could not succeed. This reads them so the plan
 * and the apply both refuse first. Source: [PC] f665029 src/PVE/Network/Interfaces.pm:96-110 (check_mtu), called for
 * each bond slave against its bond (:905), each VLAN against its device (:982), each bridge port against its bridge
 * (:1027; a `<device>.<id>` port without a stanza is a VLAN with its device's mtu, :1012-1020). Its OVS calls (:869,
 * :885) pair only OVS interfaces and NICs, none of which a stack declares, so they are not read here.
 */
import { namedInterfaces, type NamedInterface, type NamingSpec } from './network-interface-diff';
import { vlanFromName } from './network-fields';

/** An interface as the writer will see it: what it names (network-interface-diff.ts), its gateways, its mtu if set. */
export interface ViewInterface extends NamingSpec {
  readonly mtu?: number;
  /** Whether it holds a static address, which PVE's writer refuses on a bridge port (interface-writer.ts). */
  readonly addressed?: boolean;
}

/** A node's interfaces by name, once the batch has staged what it declares there. */
export type NodeView = ReadonlyMap<string, ViewInterface>;

/** What the view reads of a spec: `specOf`'s shape, as in network-interface-diff.ts. */
interface ViewSpec extends NamingSpec {
  readonly node: string;
}

/** PVE's mtu value (a GET answers it as text): a positive number, or undefined when unset. */
const mtuOf = (value: unknown): number | undefined => {
  const mtu = typeof value === 'string' && /^\d+$/.test(value) ? Number(value) : value;
  return typeof mtu === 'number' && mtu > 0 ? mtu : undefined;
};

/** A GET row's names (`"eno1 eno2"`) as a spec holds them. */
const words = (value: unknown): string[] => (typeof value === 'string' ? value.split(/\s+/).filter(Boolean) : []);

const ofRow = (row: Readonly<Record<string, unknown>>): ViewInterface | undefined => {
  if (typeof row.iface !== 'string') return undefined;
  const device = row['vlan-raw-device'];
  // The gateways and OVS lists too, which PVE's duplicate checks read (interface-unique.ts).
  const kept = (key: string) => (typeof row[key] === 'string' && row[key] !== '' ? { [key]: row[key] } : {});
  const options = {
    bridge_ports: words(row.bridge_ports),
    slaves: words(row.slaves),
    ...(typeof device === 'string' ? { 'vlan-raw-device': device } : {}),
    ...kept('gateway'),
    ...kept('gateway6'),
    ...kept('ovs_ports'),
    ...kept('ovs_bonds'),
  };
  const mtu = mtuOf(row.mtu);
  // The writer's own test: `method static` with an address other than the unspecified one, in either family.
  const addressed =
    (row.method === 'static' && row.address !== '0.0.0.0') || (row.method6 === 'static' && row.address6 !== '::');
  return { iface: row.iface, type: String(row.type), options, addressed, ...(mtu === undefined ? {} : { mtu }) };
};

/**
 * The node as the writer will see it: the rows, with each interface declared there as declared (its mtu
 * written as declared, or removed when left out: updateForm sends `delete=mtu`).
 */
export const nodeView = (rows: unknown, declared: readonly ViewSpec[]): NodeView => {
  const view = new Map<string, ViewInterface>();
  const live = Array.isArray(rows) ? rows.filter((row) => row !== null && typeof row === 'object') : [];
  for (const found of live.map(ofRow)) if (found !== undefined) view.set(found.iface, found);
  for (const { iface, type, options } of declared) {
    const mtu = mtuOf(options.mtu);
    // PVE's update makes `method` static exactly when the PUT carries a cidr (cidr6 for method6).
    const addressed = typeof options.cidr === 'string' || typeof options.cidr6 === 'string';
    view.set(iface, { iface, type, options, addressed, ...(mtu === undefined ? {} : { mtu }) });
  }
  return view;
};

/** How a pair reads: the role the child plays, then the parent's. */
const ROLES: Record<NamedInterface['role'], readonly [string, string]> = {
  'bridge port': ['bridge', 'port'],
  'bond slave': ['slave', 'bond'],
  'VLAN device': ['VLAN', 'device'],
};

/** A bridge port the view lacks named `<device>.<id>`: a VLAN with its device's mtu (none when it lacks the device). */
const implicitPort = (view: NodeView, { role, iface }: NamedInterface): ViewInterface | undefined => {
  const device = vlanFromName(iface).rawDevice;
  const held = role === 'bridge port' && device !== undefined ? view.get(device) : undefined;
  if (held === undefined) return undefined;
  return { iface, type: 'vlan', options: {}, ...(held.mtu === undefined ? {} : { mtu: held.mtu }) };
};

/** check_mtu: the child's mtu above its parent's (unset: 1500, or the child's on a bond), said naming both. */
const refusal = (role: NamedInterface['role'], parent: ViewInterface, child: ViewInterface): string[] => {
  if (child.mtu === undefined) return [];
  const parentMtu = parent.mtu ?? (parent.type === 'bond' ? child.mtu : 1500);
  if (parentMtu >= child.mtu) return [];
  const [childRole, parentRole] = ROLES[role];
  const unset = parent.mtu === undefined ? ' (unset: PVE takes 1500)' : '';
  const above = `${childRole} ${child.iface}'s mtu ${child.mtu} is above`;
  return [`${above} its ${parentRole} ${parent.iface}'s mtu ${parentMtu}${unset}`];
};

/**
 * `bridge vmbr1's mtu 9000 is above its port eno1's mtu 1500 (unset: PVE takes 1500)` for each pair on the node the
 * writer refuses. A named interface the view lacks is left to the missing-interface check.
 */
export const mtuConflicts = (view: NodeView): string[] =>
  [...view.values()].flatMap((holder) =>
    namedInterfaces(holder).flatMap((named) => {
      const other = view.get(named.iface) ?? implicitPort(view, named);
      if (other === undefined) return [];
      return named.role === 'bond slave' ? refusal(named.role, holder, other) : refusal(named.role, other, holder);
    }),
  );
