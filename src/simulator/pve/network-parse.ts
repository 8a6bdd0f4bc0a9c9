// /etc/network/interfaces read the way PVE reads it, so GET answers what a real node answers: flags
// as 1, mtu as the file's text, ports sorted, types and VLAN ids derived from names, and unknown
// lines (wpa-psk, pre-up) kept aside in `options`. Source: [PC] PVE/Network/Interfaces.pm read.
import { groupsOf, strings, textOf } from './narrow';
import { netmaskBits } from './network-formats';

/** One interface as PVE holds it: file values are strings, flags and defaults PVE sets are numbers. */
export type Iface = Record<string, string | number | string[] | undefined>;

export interface InterfacesConfig {
  readonly ifaces: Record<string, Iface>;
  /** Top-level lines PVE does not interpret (`source …`), with the priority that keeps their place. */
  readonly options: Array<[number, string]>;
}

/** What `ip link` would say about the node: physical NICs and the interfaces that are up. */
export interface LinkState {
  readonly physical: readonly string[];
  readonly active: readonly string[];
}

export const PHYSICAL_NIC = /^(?:eth\d+|en[^:.]+|ib[^:.]+|(?:nic|if)\d+)$/;

const ALTERNATIVES = new Map([
  ['bond-slaves', 'slaves'],
  ['bond_slaves', 'slaves'],
  ['bond-xmit-hash-policy', 'bond_xmit_hash_policy'],
  ['bond-mode', 'bond_mode'],
  ['bond-miimon', 'bond_miimon'],
  ['bridge-vlan-aware', 'bridge_vlan_aware'],
  ['bridge-fd', 'bridge_fd'],
  ['bridge-stp', 'bridge_stp'],
  ['bridge-ports', 'bridge_ports'],
  ['bridge-vids', 'bridge_vids'],
]);
const SIMPLE = new Set([
  'mtu',
  'bridge_fd',
  'bridge_vids',
  'bond_miimon',
  'bond_xmit_hash_policy',
  'bond-primary',
  'vlan-protocol',
  'vlan-raw-device',
  'vlan-id',
  'link-type',
  'uplink-id',
]);
export const BOND_MODES = [
  'balance-rr',
  'active-backup',
  'balance-xor',
  'broadcast',
  '802.3ad',
  'balance-tlb',
  'balance-alb',
];
const STANZA_END = /^\s*(?:(?:iface|mapping|auto|source|source-directory)\s|allow-)/;
const AUTO = /^\s*(?:allow-auto|auto|allow-ovs|allow-hotplug)\s+(.*)$/;
const IFACE = /^\s*iface\s+(\S+)(?:\s+(inet6?)\s+(\S+))?\s*$/;
const COMMENT = /^\s*#(.*?)\s*$/;
const OPTION = /^\s*(\S+)\s+(.+)$/;

const push = (sink: Iface, key: string, value: string): void => {
  sink[key] = [...strings(sink[key]), value];
};

/** One option line inside a stanza; `f` is the family's own record, `d` the interface's. */
const readOption = (d: Iface, f: Iface, suffix: string | undefined, line: string, rawId: string, value: string) => {
  const id = ALTERNATIVES.get(rawId) ?? rawId;
  if (['address', 'netmask', 'broadcast', 'gateway'].includes(id)) {
    if (suffix !== undefined) d[id + suffix] = value;
    else d[id !== 'netmask' && value.includes(':') ? `${id}6` : id] = value;
  } else if (SIMPLE.has(id)) {
    d[id] = value;
  } else if (id === 'slaves' || id === 'bridge_ports') {
    const devices = value.split(/\s+/).filter((port) => {
      if (port === 'none' && id === 'bridge_ports') d.is_empty_bridge = 1;
      return port !== 'none';
    });
    const joined = [...new Set(devices)].sort().join(' ');
    d[id] = typeof d[id] === 'string' && d[id] !== '' ? `${d[id]}${joined ? ` ${joined}` : ''}` : joined;
  } else if (id === 'bridge_stp') {
    d[id] = /^\s*(on|yes)\s*$/i.test(value) ? 'on' : 'off';
  } else if (id === 'bridge_vlan_aware') {
    d[id] = 1;
  } else if (id === 'bond_mode') {
    d[id] = /^\d$/.test(value) ? (BOND_MODES[Number(value)] ?? value) : value;
  } else {
    push(suffix !== undefined ? f : d, 'options', line.trim());
  }
};

/** An `iface` stanza being read: the interface's record `d`, its family's own `f`, the family's suffix. */
interface Stanza {
  readonly d: Iface;
  readonly f: Iface;
  readonly suffix: string | undefined;
}

/** A line inside a stanza: true when it was a comment or an option of it, false when it ends the stanza. */
const readBody = ({ d, f, suffix }: Stanza, line: string): boolean => {
  const body = line.replace(/\s+$/, '');
  const [comment] = groupsOf(COMMENT, body);
  if (comment !== undefined) {
    const sink = suffix !== undefined ? f : d;
    sink.comments = `${textOf(sink.comments)}${comment}\n`;
    return true;
  }
  const [id, value] = groupsOf(OPTION, body);
  if (STANZA_END.test(body) || id === undefined || value === undefined) return false;
  readOption(d, f, suffix, body, id, value);
  return true;
};

/** The file read line by line; the line that ends a stanza is read again as a top-level line. */
class Reader {
  readonly ifaces: Record<string, Iface> = {};
  readonly options: Array<[number, string]> = [];
  private priority = 2; // 1 is lo's
  private stanza: Stanza | undefined;

  read(line: string): void {
    if (this.stanza !== undefined && readBody(this.stanza, line)) return;
    this.close();
    if (/^\s*#/.test(line)) return;
    const [autoNames] = groupsOf(AUTO, line);
    const [name, family, method] = groupsOf(IFACE, line);
    if (autoNames !== undefined) {
      for (const auto of autoNames.split(/\s+/).filter(Boolean)) (this.ifaces[auto] ??= {}).autostart = 1;
    } else if (name !== undefined) {
      const d = (this.ifaces[name] ??= {});
      if (!d.priority) d.priority = this.priority++;
      d.families = [...strings(d.families), family ?? ''];
      this.stanza = { d, f: { method }, suffix: family?.replace(/^inet/, '') };
    } else if (/\w/.test(line)) {
      this.options.push([this.priority++, line]);
    }
  }

  /** Ends the open stanza, if any: a family's own values land on the interface with its suffix. */
  close(): void {
    if (this.stanza === undefined) return;
    const { d, f, suffix } = this.stanza;
    this.stanza = undefined;
    if (suffix !== undefined) for (const [key, value] of Object.entries(f)) d[key + suffix] = value;
  }
}

const byName = ([a]: [string, unknown], [b]: [string, unknown]): number => (a < b ? -1 : a > b ? 1 : 0);

/** Parses the file text; `links` stands in for `ip link` and /proc. */
export const parseInterfaces = (text: string, links: LinkState): InterfacesConfig => {
  const reader = new Reader();
  for (const line of text.split('\n')) reader.read(line);
  reader.close();
  const { ifaces, options } = reader;
  for (const name of links.physical) (ifaces[name] ??= {}).exists = 1;
  for (const name of links.active) if (ifaces[name]) ifaces[name].active = 1;
  ifaces.lo ??= { priority: 1, method: 'loopback', type: 'loopback', autostart: 1 };
  for (const [name, d] of Object.entries(ifaces).sort(byName)) derive(name, d, ifaces, links);
  return { ifaces, options };
};

/**
 * _get_cidr's mask: digits as they are, a dotted IPv4 mask as its length; none for a mask Perl reads as
 * false ('', '0') or a dotted one whose length is 0. Source: [PC] f665029 src/PVE/Network/Interfaces.pm:537-547.
 */
const maskLength = (mask: unknown): string | undefined => {
  if (typeof mask !== 'string' || mask === '' || mask === '0') return undefined;
  if (/^\d+$/.test(mask)) return mask;
  const bits = netmaskBits(mask);
  return bits ? String(bits) : undefined;
};

/** Type, name-derived VLAN fields, cidr and defaults, in the order Interfaces.pm derives them. */
const derive = (name: string, d: Iface, ifaces: Record<string, Iface>, links: LinkState): void => {
  d.type = 'unknown';
  const dotted = /^(\S+)\.(\d+)$/.exec(name);
  if (d.bridge_ports !== undefined || d.is_empty_bridge) {
    delete d.is_empty_bridge;
    d.type = 'bridge';
    d.bridge_stp ??= 'off';
    if (d.bridge_fd === undefined && d.bridge_stp === 'off') d.bridge_fd = 0;
  } else if (/^bond\d+$/.test(name)) {
    d.type = 'bond';
  } else if (/^(\S+):\d+$/.test(name)) {
    d.type = 'alias';
  } else if (dotted || d['vlan-raw-device']) {
    d.type = 'vlan';
    if (dotted && !d['vlan-raw-device']) d['vlan-raw-device'] = dotted[1];
    const id = dotted?.[2] ?? /^vlan(\d+)$/.exec(name)?.[1];
    if (id && Number(id) !== 0) d['vlan-id'] = id;
    // A parent not in the file is created with exists 0; one that is there lends its flag, if any.
    const raw = (ifaces[String(d['vlan-raw-device'])] ??= { exists: 0 });
    d.exists = raw.exists;
  } else if (links.physical.includes(name) || PHYSICAL_NIC.test(name)) {
    d.type = 'eth';
  } else if (name === 'lo') {
    d.type = 'loopback';
  }
  for (const suffix of ['', '6']) {
    const address = d[`address${suffix}`];
    if (typeof address !== 'string' || address === '') continue;
    const split = /^(.+)\/(\d+)$/.exec(address);
    const bits = maskLength(d[`netmask${suffix}`]);
    if (split) [d[`cidr${suffix}`], d[`address${suffix}`], d[`netmask${suffix}`]] = [address, split[1], split[2]];
    else if (bits !== undefined) {
      d[`cidr${suffix}`] = `${address}/${bits}`;
      if (suffix === '') d.netmask = bits;
    } else d[`cidr${suffix}`] = `${address}/${suffix === '' ? 32 : 128}`;
  }
  d.method ||= 'manual';
  d.method6 ||= 'manual';
  if (d.comments6) {
    d.comments = `${textOf(d.comments)}${textOf(d.comments6)}`;
    delete d.comments6;
  }
  const families = strings(d.families);
  d.families = families.length > 0 ? families : ['inet'];
};
