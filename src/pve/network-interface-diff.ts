/**
 * The pure diff of a node's network interface: the node's row against the declared fields, and
 * the staging forms that close the gap. Values are compared the way GET reports them (0/1 flags,
 * sorted port lists, defaults PVE writes), so an interface PVE accepted never reads as drifted.
 * Only table fields are read: `options` rows (where `wpa-psk` and `pre-up` lines land) never are.
 */
import { canonicalJson } from '../core/canonical';
import type { Reading } from '../core/kind';
import { describeDiff, type FieldDiff } from '../core/protocol';
import { isStringList, type NetworkOption, optionsOf, vlanFromName } from './network-fields';
import type { NetworkInterfaceSpec } from './network-interface';

/** One row of `GET nodes/{node}/network` (or the answer of `GET …/network/{iface}`). */
export type LiveInterface = Readonly<Record<string, unknown>>;

/** present: compare; absent: create; foreign: the name holds another type (PUT cannot change it). */
export type InterfaceState =
  | { readonly state: 'absent' }
  | { readonly state: 'foreign'; readonly liveType: string }
  | { readonly state: 'present'; readonly changes: FieldDiff };

export type Form = Record<string, string | number>;

/**
 * The row for `iface` in the collection's `data`, or undefined. A token without SDN.Audit on the
 * bridge does not see bridges at all ([PM] Network.pm index), so a bridge then reads as absent.
 */
export const findInterface = (rows: unknown, iface: string): LiveInterface | undefined => {
  if (!Array.isArray(rows)) return undefined;
  return rows.find((row): row is LiveInterface => row !== null && typeof row === 'object' && row.iface === iface);
};

// What GET should report: the declared value in canonical form (a hand-written spec may list names unsorted),
// else what the option implies when left out (its declaration, network-fields.ts).
const wanted = (spec: NetworkInterfaceSpec, option: NetworkOption): unknown => {
  const declared = spec.options[option.param];
  if (option.form === 'bool') return declared === true;
  return declared === undefined ? option.implied(spec) : option.canonical(declared);
};

/** A GET value in the spec's terms; null when unset. */
export const liveValue = (option: NetworkOption, value: unknown): unknown => {
  if (option.form === 'bool') return value === 1 || value === '1' || value === true;
  if (value === undefined || value === null || value === '') return null;
  if (option.form === 'int') return typeof value === 'string' && /^\d+$/.test(value) ? Number(value) : value;
  if (typeof value !== 'string') return value;
  if (option.form === 'comment') return value.replace(/\n$/, '');
  if (option.form !== 'ifaces' && option.form !== 'vids') return value;
  // An update stores bridge_vids as sent (PVE normalises it on create only), so split like split_list.
  const items = value.split(/[\s,;]+/).filter((item) => item !== '');
  return items.length === 0 ? null : option.canonical(items);
};

/** What PVE's update makes of the families and methods, given whether it writes an IPv4 and an IPv6 address. */
const addressed = (v4: boolean, v6: boolean) => {
  const families = [...(v4 ? ['inet'] : []), ...(v6 ? ['inet6'] : [])];
  return {
    method: v4 ? 'static' : 'manual',
    method6: v6 ? 'static' : 'manual',
    families: families.length === 0 ? ['inet'] : families,
  };
};

/**
 * How the node brings the interface up where no write of the stack's would keep it. PVE's update sets it from the
 * PUT's own address fields alone, whatever the row held: `method` static with an IPv4 address else manual, `method6`
 * likewise with an IPv6 one, and only the families those give (inet when neither), the file's writer dropping the
 * others' stanzas ([PM] PVE/API2/Network.pm update_network; the fake alike). So a write turned a hand's `inet dhcp`
 * into `inet manual` and dropped an `inet6 auto` stanza with its lines, under a plan that named another field or
 * none. Each is compared where the row's own addresses do not account for it (a changed cidr says the rest), and
 * wants what the stack's write makes. A row that does not say them reads as its addresses give.
 */
const addressing = (spec: NetworkInterfaceSpec, live: LiveInterface): Array<[string, unknown, unknown]> => {
  const kept = addressed(typeof live.cidr === 'string', typeof live.cidr6 === 'string');
  const listed = Array.isArray(live.families) ? live.families.map(String).sort() : [];
  const text = (value: unknown, otherwise: string) => (typeof value === 'string' && value !== '' ? value : otherwise);
  const have = {
    method: text(live.method, kept.method),
    method6: text(live.method6, kept.method6),
    families: listed.length === 0 ? kept.families : listed,
  };
  const want = addressed(spec.options.cidr !== undefined, spec.options.cidr6 !== undefined);
  return (['method', 'method6', 'families'] as const).flatMap((key): Array<[string, unknown, unknown]> =>
    canonicalJson(have[key]) === canonicalJson(kept[key]) ? [] : [[key, have[key], want[key]]],
  );
};

/** A GET row's names (`"eno1 eno2"`), split as PVE's writer splits them. */
const rowNames = (value: unknown): string[] => (typeof value === 'string' ? value.split(/\s+/).filter(Boolean) : []);

/**
 * The spec as PVE's writer keeps it on the node whose rows are `rows`: the writer marks every slave of a bond `auto`
 * at each write, whatever the stanza said ([PC] f665029 src/PVE/Network/Interfaces.pm:880, 897), so a declared
 * interface a bond there takes as a slave wants autostart. Without this, such an interface left without autostart
 * read `autostart is true, want false` on every plan, and each apply's `delete=autostart` was undone by that write.
 */
export const asWritten = <S extends NetworkInterfaceSpec>(spec: S, rows: unknown): S => {
  if (spec.options.autostart === true || !Array.isArray(rows)) return spec;
  const takes = (row: unknown): boolean => {
    if (row === null || typeof row !== 'object' || !('iface' in row) || row.iface === spec.iface) return false;
    const { type, slaves, ovs_bonds: ovsBonds } = row as LiveInterface;
    return (
      (type === 'bond' && rowNames(slaves).includes(spec.iface)) ||
      (type === 'OVSBond' && rowNames(ovsBonds).includes(spec.iface))
    );
  };
  return rows.some(takes) ? { ...spec, options: { ...spec.options, autostart: true } } : spec;
};

/** Compares the node's row (undefined when the name is not there) with the spec. */
export const diffInterface = (spec: NetworkInterfaceSpec, live: LiveInterface | undefined): InterfaceState => {
  if (live === undefined) return { state: 'absent' };
  const liveType = typeof live.type === 'string' ? live.type : '';
  if (liveType !== spec.type) return { state: 'foreign', liveType: liveType || 'unknown' };
  const changes: Record<string, { live: unknown; want: unknown }> = {};
  const compared: Array<[string, unknown, unknown]> = [
    ...optionsOf(spec.type).map((option): [string, unknown, unknown] => [
      option.param,
      liveValue(option, live[option.param]),
      wanted(spec, option),
    ]),
    ...addressing(spec, live),
  ];
  for (const [param, have, want] of compared) {
    if (canonicalJson(have) !== canonicalJson(want)) changes[param] = { live: have, want };
  }
  return { state: 'present', changes };
};

export const isInSync = (state: InterfaceState): boolean =>
  state.state === 'present' && Object.keys(state.changes).length === 0;

/** An interface a spec names on its node, and as what: PVE's writer refuses the spec without it. */
export interface NamedInterface {
  readonly role: 'bridge port' | 'bond slave' | 'VLAN device';
  readonly iface: string;
}

/** What `namedInterfaces` reads: a spec, or the one a construct writes (specOf, untyped: it may hold tokens). */
export interface NamingSpec {
  readonly iface: string;
  readonly type: string;
  readonly options: Readonly<Record<string, unknown>>;
}

/** The interfaces a spec names: bridge ports, bond slaves, a VLAN's raw device (from its name or declared). */
export const namedInterfaces = (spec: NamingSpec): NamedInterface[] => {
  const names = (value: unknown) => (Array.isArray(value) ? value.filter((item) => typeof item === 'string') : []);
  const device = spec.type === 'vlan' ? (vlanFromName(spec.iface).rawDevice ?? spec.options['vlan-raw-device']) : null;
  return [
    ...names(spec.options.bridge_ports).map((iface) => ({ role: 'bridge port' as const, iface })),
    ...names(spec.options.slaves).map((iface) => ({ role: 'bond slave' as const, iface })),
    ...(typeof device === 'string' ? [{ role: 'VLAN device' as const, iface: device }] : []),
  ];
};

/**
 * A bridge port `<device>.<id>`'s device. PVE's writer takes such a port without a stanza of its own as a VLAN of
 * that device and writes no stanza for it, so GET never lists it: only the device must be on the node.
 * Source: [PC] f665029 src/PVE/Network/Interfaces.pm:1004-1028 ("check bridgeport option").
 */
const portDevice = ({ role, iface }: NamedInterface): string | undefined =>
  role === 'bridge port' ? vlanFromName(iface).rawDevice : undefined;

/** The names a spec's staging waits for: those it names, and each `<device>.<id>` bridge port's device. */
export const dependedOn = (spec: NamingSpec): string[] =>
  namedInterfaces(spec).flatMap((named) => [named.iface, portDevice(named) ?? []].flat());

/** A named interface `present` does not find, or, for a `<device>.<id>` bridge port, its device. */
export interface LackedInterface extends NamedInterface {
  /** Set when `iface` is the device of this `<device>.<id>` bridge port. */
  readonly port?: string;
}

/** The named interfaces `present` does not find: a `<device>.<id>` bridge port is missing only with its device. */
export const lackedInterfaces = (spec: NamingSpec, present: (iface: string) => boolean): LackedInterface[] =>
  namedInterfaces(spec).flatMap((named) => {
    if (present(named.iface)) return [];
    const device = portDevice(named);
    if (device === undefined) return [named];
    return present(device) ? [] : [{ role: named.role, iface: device, port: named.iface }];
  });

/**
 * `bridge port enp9s0 is not on n2` (or `device enp9s0 of bridge port enp9s0.20 …`) for each named interface
 * that is neither in the node's rows nor declared on that node by the same stack (`declared`: those exist once
 * the batch applied them).
 */
export const missingInterfaces = (spec: NetworkInterfaceSpec, rows: unknown, declared: ReadonlySet<string>): string[] =>
  lackedInterfaces(spec, (iface) => declared.has(iface) || findInterface(rows, iface) !== undefined).map(
    ({ role, iface, port }) =>
      `${port === undefined ? `${role} ${iface}` : `device ${iface} of ${role} ${port}`} is not on ${spec.node}`,
  );

/** The one-line summary a plan shows. */
export const summarizeInterface = (spec: NetworkInterfaceSpec, state: InterfaceState): string => {
  const name = `interface ${spec.iface} on ${spec.node}`;
  if (state.state === 'absent') return `${name} is absent`;
  if (state.state === 'foreign') {
    const fix = "PVE cannot change an interface's type, so the apply refuses it; remove it or use another name";
    return `${name} is a ${state.liveType}, not a ${spec.type}: ${fix}`;
  }
  const changed = describeDiff(state.changes);
  return changed === '' ? `${name} is in sync` : `${name} differs: ${changed}`;
};

/**
 * What a plan shows for one interface over its node's rows: the diff, and every named interface the
 * node lacks (PVE would refuse the staging with a 500 at apply), either one making it not in sync.
 */
export const interfaceReading = (spec: NetworkInterfaceSpec, rows: unknown, declared: ReadonlySet<string>): Reading => {
  const state = diffInterface(asWritten(spec, rows), findInterface(rows, spec.iface));
  const missing = missingInterfaces(spec, rows, declared).join('; ');
  const diff = state.state === 'present' ? state.changes : {};
  // Another type (PUT cannot change it), or a named interface the node lacks: PVE refuses the apply's staging.
  const refused = state.state === 'foreign' || missing !== '' ? { converges: false as const } : {};
  if (missing === '') return { inSync: isInSync(state), summary: summarizeInterface(spec, state), diff, ...refused };
  const head = isInSync(state) ? `interface ${spec.iface} on ${spec.node}:` : `${summarizeInterface(spec, state)};`;
  return { inSync: false, summary: `${head} ${missing}`, diff, ...refused };
};

/**
 * Declared fields as PVE takes them. A flag is sent only when true: the writer emits
 * `bridge-vlan-aware yes` whenever the key is defined, so `0` would switch it on; false is a
 * `delete=`. Lists go space-separated, since PVE normalises bridge_vids on create only.
 */
const declaredForm = (spec: NetworkInterfaceSpec): Form => {
  const form: Form = { type: spec.type };
  for (const option of optionsOf(spec.type)) {
    const value = spec.options[option.param];
    if (value === undefined || value === false) continue;
    form[option.param] = value === true ? 1 : isStringList(value) ? value.join(' ') : value;
  }
  return form;
};

/** POST `nodes/{node}/network`: the collection takes the create, with `iface` in the body. */
export const createForm = (spec: NetworkInterfaceSpec): Form => ({ iface: spec.iface, ...declaredForm(spec) });

/**
 * PUT `nodes/{node}/network/{iface}`: `type` (PVE requires it on every write), every declared field,
 * and `delete=` for each field the spec leaves out whose live value is not what PVE writes without
 * it (nothing, or what the option implies: a default such as `bond_mode`'s, network-fields.ts).
 */
export const updateForm = (spec: NetworkInterfaceSpec, live: LiveInterface): Form => {
  const form = declaredForm(spec);
  const stale = optionsOf(spec.type)
    .filter((option) => {
      const have = liveValue(option, live[option.param]);
      const settled = have === null || have === false || canonicalJson(have) === canonicalJson(wanted(spec, option));
      return form[option.param] === undefined && !settled;
    })
    .map((option) => option.param);
  return stale.length === 0 ? form : { ...form, delete: stale.join(',') };
};
