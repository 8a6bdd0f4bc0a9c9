/**
 * A network interface's one declaration: every field with its doc, its rule, which interface types have it,
 * its parameter of `POST/PUT nodes/{node}/network` and its spec form. The construct's props type, synth's prop
 * table, the spec the construct writes, the handler boundary's schema, the diff's option list and discover's
 * rebuild all come from `NETWORK_INTERFACE_FIELDS`, so a value PVE would refuse or rewrite is caught at synth
 * instead of drifting forever, and no field exists in one of those forms and not another (issue 29).
 * Source: [PM] PVE/API2/Network.pm $confdesc, [PC] JSONSchema.pm.
 */
import { BlockList, isIPv6 } from 'node:net';
import { type FieldInput, required } from '../core/fields';
import { optionsFor } from './option-field';
import { groupOf } from '../core/errors';
import { boolean, integer, oneOf, type Rule, text } from '../core/rules';
import { NODE_NAME } from './upid';

export const INTERFACE_TYPES = ['bridge', 'vlan', 'bond'] as const;
/** The interface types this library manages. */
export type InterfaceType = (typeof INTERFACE_TYPES)[number];

/**
 * How GET writes an option's value, which the diff reads back in the spec's terms: `comment` is free text
 * with a final newline, `ifaces` and `vids` are space-separated lists.
 */
export type LiveForm = 'bool' | 'int' | 'text' | 'comment' | 'ifaces' | 'vids';

const OCTET = '(?:25[0-5]|(?:2[0-4]|1[0-9]|[1-9])?[0-9])';
const IPV4 = new RegExp(`^${OCTET}(?:\\.${OCTET}){3}$`);

const isIpv4 = (value: string): boolean => IPV4.test(value);

// PVE's IPv6 grammar has no zone index; node:net accepts `fe80::1%eth0`.
export const isIpv6 = (value: string): boolean => !value.includes('%') && isIPv6(value);

const subnets = (list: ReadonlyArray<readonly [string, number]>): BlockList => {
  const blocks = new BlockList();
  for (const [address, prefix] of list) blocks.addSubnet(address, prefix, 'ipv6');
  return blocks;
};

// PVE's check_ipv6_settings takes a host address Net::IP 1.26 (Debian's libnet-ip-perl) types GLOBAL-, UNIQUE-LOCAL-
// or LINK-LOCAL-UNICAST: 2000::/3 but its Teredo, BMWG, documentation, ORCHID and 6to4 blocks, fc00::/7, fe80::/10
// (its ANYCAST, an address equal to its mask, starts ff). Source: [PM] 14a22df PVE/API2/Network.pm:573-592.
const UNICAST6 = subnets([
  ['2000::', 3],
  ['fc00::', 7],
  ['fe80::', 10],
]);
const SPECIAL6 = subnets([
  ['2001::', 32],
  ['2001:2::', 48],
  ['2001:db8::', 32],
  ['2001:10::', 28],
  ['2002::', 16],
]);
const isHostIpv6 = (value: string): boolean =>
  isIpv6(value) && UNICAST6.check(value, 'ipv6') && !SPECIAL6.check(value, 'ipv6');

const cidrWith = (isAddress: (value: string) => boolean, maxPrefix: number) => (value: string) => {
  const match = /^(.+)\/(\d+)$/.exec(value);
  return match !== null && isAddress(groupOf(match, 1)) && Number(match[2]) > 7 && Number(match[2]) <= maxPrefix;
};

/** A text `test` accepts. */
const textWhere =
  (says: string, test: (value: string) => boolean): Rule<string> =>
  (value) =>
    typeof value === 'string' && test(value) ? undefined : says;

/** pve-iface, capped at 15 characters: Linux refuses longer names (IFNAMSIZ), so ifreload would. */
export const IFACE_NAME = /^(?=.{2,15}$)[a-z][a-z0-9_]{1,20}(\.\d+)?$/i;
export const IFACE_RULE =
  'an interface name: a letter, then letters, digits and _, optionally .<vlan>, 2-15 characters';

/** One VLAN id or range as pve-vlan-id-or-range takes it: 2-4094, a range going upwards. */
export const isVlanIdOrRange = (item: string): boolean => {
  const match = /^(\d+)(?:-(\d+))?$/.exec(item);
  if (!match) return false;
  const [start, end] = [Number(match[1]), match[2] === undefined ? undefined : Number(match[2])];
  const valid = (tag: number) => tag >= 2 && tag <= 4094;
  return valid(start) && (end === undefined || (valid(end) && start < end));
};

/** Linux bond modes; PVE's enum also lists OVS modes, which a Linux bond cannot run. */
export const LINUX_BOND_MODES = [
  'balance-rr',
  'active-backup',
  'balance-xor',
  'broadcast',
  '802.3ad',
  'balance-tlb',
  'balance-alb',
] as const;
/** The bonding modes PVE writes for a Linux bond. */
export type LinuxBondMode = (typeof LINUX_BOND_MODES)[number];

export const COMMENT_RULE =
  'a non-empty text whose lines do not end in whitespace or a backslash, with no newline at its end, ' +
  'without %, ${ or control characters other than newline';

/**
 * ifupdown2 joins a line ending in `\` to the next one, so a comment could swallow the next
 * stanza's `auto` line and the interface would not come up at boot; where its templating is on,
 * `${` and `%` are template syntax. A line is read back without trailing whitespace, and a final
 * newline is lost: PVE writes `#<line>` for each line of `split(/\n/)`, which drops trailing empty
 * ones ([PC] f665029 src/PVE/Network/Interfaces.pm:777-779). Either would never settle.
 */
const isSafeComment = (text: string): boolean =>
  text !== '' &&
  !text.endsWith('\n') &&
  !/[\u0000-\u0009\u000b-\u001f\u007f%]|\$\{/.test(text) &&
  text.split('\n').every((line) => !/[\s\\]$/.test(line));

/** A list of texts: `Array.isArray` alone leaves a readonly list in the other branch. */
export const isStringList = (value: unknown): value is readonly string[] =>
  Array.isArray(value) && value.every((item) => typeof item === 'string');

const ifaceList: Rule<readonly string[]> = (value) =>
  isStringList(value) && value.every((item) => IFACE_NAME.test(item)) && new Set(value).size === value.length
    ? undefined
    : `a list of distinct interface names (${IFACE_RULE})`;

const vlanIds: Rule<ReadonlyArray<string | number>> = (value) =>
  Array.isArray(value) && value.length > 0 && value.map(String).every(isVlanIdOrRange)
    ? undefined
    : 'a non-empty list of VLAN ids (2-4094) or ranges such as "100-200"';

// The spec holds every VLAN id as text, as GET answers them, where the props take numbers too.
const vlanIdTexts: Rule<readonly string[]> = (value) =>
  isStringList(value) ? undefined : 'a list of texts, such as ["10", "100-200"]';

/** A VLAN named `<raw>.<id>` or `vlan<id>` gets those from its name; the writer drops declared copies. */
export const vlanFromName = (iface: string): { rawDevice?: string; id?: number } => {
  const dotted = /^(.+)\.(\d+)$/.exec(iface);
  if (dotted) return { rawDevice: groupOf(dotted, 1), id: Number(dotted[2]) };
  const numbered = /^vlan(\d+)$/.exec(iface);
  return numbered ? { id: Number(numbered[1]) } : {};
};

/** The bonding mode a bond left without one runs, and GET reports: PVE writes it then. */
export const DEFAULT_BOND_MODE = 'balance-rr';

/** What an option's implied value depends on: the spec's name and options. */
export interface Named {
  readonly iface: string;
  readonly options: Readonly<Record<string, unknown>>;
}

const ALL = INTERFACE_TYPES;

/** An option only some types have (option-field.ts). */
const option = optionsFor<InterfaceType, LiveForm>();

/** Interface names, a set: the spec holds them sorted, as GET answers them, so order is never compared. */
const namesOption = <const T extends readonly InterfaceType[]>(param: string, types: T) => ({
  ...option(param, types, ifaceList, 'ifaces'),
  encode: (value: unknown) => (isStringList(value) ? [...value].sort() : value),
  // A Terraform value among the names orders nothing (constructs/pve/network-wiring.ts); a whole list would order none.
  atSynth: 'synth stages this interface after the interfaces it names; one item may be a Terraform value',
});

export const NETWORK_INTERFACE_FIELDS = {
  /** The node, as PVE names it (e.g. `n2`). Changing it replaces the interface. */
  node: required({
    rule: text('a PVE node name (letters, digits, inner -)', NODE_NAME),
    spec: true,
    atSynth: 'it names the interface',
  }),
  /**
   * The interface name, at most 15 characters: `vmbr1` for a bridge, `bond0` for a bond (PVE reads
   * only `bond<N>` as bonds), `<device>.<id>`, `vlan<id>` or any name with `vlanRawDevice` and
   * `vlanId` for a VLAN. Changing it replaces the interface.
   */
  iface: required({ rule: text(IFACE_RULE, IFACE_NAME), spec: true, atSynth: 'it names the interface' }),
  /** The kind of interface. PVE cannot change it in place, so changing it replaces the interface. */
  type: required({ rule: oneOf(INTERFACE_TYPES), spec: true, atSynth: 'it names the interface' }),
  /** Bring the interface up at boot (`auto <iface>`). @default false */
  autostart: option('autostart', ALL, boolean, 'bool'),
  /**
   * A comment kept with the interface in the file. No line may end in whitespace or `\` (ifupdown2
   * would join the next line to it), nor the comment in a newline (PVE drops it), and `%`, `${` and
   * control characters other than newline are refused.
   *
   * @default - none
   */
  comments: option('comments', ALL, textWhere(COMMENT_RULE, isSafeComment), 'comment'),
  /** MTU, 1280 to 65520. @default - unset (the kernel's, usually 1500) */
  mtu: option('mtu', ALL, integer(1280, 65520), 'int'),
  /** IPv4 address with prefix, e.g. `10.10.0.2/24`. @default - no IPv4 address */
  cidr: option('cidr', ALL, textWhere('an IPv4 CIDR with a prefix of 8-32', cidrWith(isIpv4, 32)), 'text'),
  /**
   * IPv6 address with prefix, e.g. `fd00:10::2/64`: a global, unique-local or link-local unicast address, as
   * PVE takes (not `2001:db8::/32`, 6to4 or Teredo). @default - no IPv6 address
   */
  cidr6: option(
    'cidr6',
    ALL,
    textWhere(
      'an IPv6 CIDR with a prefix of 8-128 and a global, unique-local or link-local unicast address',
      cidrWith(isHostIpv6, 128),
    ),
    'text',
  ),
  /** IPv4 default gateway; one per node. @default - none */
  gateway: option('gateway', ALL, textWhere('an IPv4 address', isIpv4), 'text'),
  /** IPv6 default gateway; one per node. @default - none */
  gateway6: option('gateway6', ALL, textWhere('an IPv6 address', isIpv6), 'text'),
  /**
   * bridge: the ports, e.g. `["enp2s0"]`; order is not significant.
   *
   * A list given whole as a Terraform value is refused, since synth stages the interface after those it names; an item
   * may be one, which orders nothing.
   *
   * @default - no ports
   */
  bridgePorts: namesOption('bridge_ports', ['bridge']),
  /** bridge: VLAN-aware. @default false */
  bridgeVlanAware: option('bridge_vlan_aware', ['bridge'], boolean, 'bool'),
  /**
   * bridge (VLAN-aware only): VLAN ids and ranges, e.g. `[10, "100-200"]`.
   *
   * @default - unset (PVE uses 2-4094)
   */
  bridgeVids: {
    ...option('bridge_vids', ['bridge'], vlanIds, 'vids'),
    specForm: vlanIdTexts,
    encode: (value: unknown) => (Array.isArray(value) ? value.map(String) : value),
    later: 'texts' as const,
    implied: ({ options }: Named) => (options.bridge_vlan_aware === true ? ['2-4094'] : null),
  },
  /** vlan: the tag, 1 to 4094. @default - the id in the name (`<device>.<id>`, `vlan<id>`) */
  vlanId: {
    ...option('vlan-id', ['vlan'], integer(1, 4094), 'int'),
    implied: ({ iface }: Named) => vlanFromName(iface).id ?? null,
  },
  /** vlan: the device the VLAN rides on. @default - the device in the name (`<device>.<id>`) */
  vlanRawDevice: {
    ...option('vlan-raw-device', ['vlan'], text(IFACE_RULE, IFACE_NAME), 'text'),
    implied: ({ iface }: Named) => vlanFromName(iface).rawDevice ?? null,
  },
  /**
   * bond: the member NICs; order is not significant.
   *
   * A list given whole as a Terraform value is refused, since synth stages the interface after those it names; an item
   * may be one, which orders nothing.
   *
   * @default - no members
   */
  slaves: namesOption('slaves', ['bond']),
  /** bond: Linux bonding mode. @default - unset (PVE uses balance-rr) */
  bondMode: { ...option('bond_mode', ['bond'], oneOf(LINUX_BOND_MODES), 'text'), implied: () => DEFAULT_BOND_MODE },
  /** bond (active-backup only): the preferred member, one of `slaves`. @default - none */
  bondPrimary: option('bond-primary', ['bond'], text(IFACE_RULE, IFACE_NAME), 'text'),
  /** bond (balance-xor, 802.3ad only): transmit hash policy. @default - unset (the kernel's, layer2) */
  bondXmitHashPolicy: option('bond_xmit_hash_policy', ['bond'], oneOf(['layer2', 'layer2+3', 'layer3+4']), 'text'),
};

/** One field of the declaration, by its prop name. */
export type NetworkFieldName = keyof typeof NETWORK_INTERFACE_FIELDS;

/** An option PVE keeps under its own parameter: its prop, parameter, live form, types and canonical form. */
export interface NetworkOption {
  readonly prop: NetworkFieldName;
  readonly param: string;
  readonly form: LiveForm;
  readonly types: readonly InterfaceType[];
  /** The spec's form of a value (sorted names, ids as text): the diff compares both sides in it. */
  readonly canonical: (value: unknown) => unknown;
  /** What GET reports when the spec leaves the option out: a default PVE writes, what the name says, or null. */
  readonly implied: (named: Named) => unknown;
}

function isFieldName(name: string): name is NetworkFieldName {
  return Object.hasOwn(NETWORK_INTERFACE_FIELDS, name);
}

/** Every option of the declaration, in its order. */
export const NETWORK_OPTIONS: readonly NetworkOption[] = Object.entries(NETWORK_INTERFACE_FIELDS).flatMap(
  ([prop, field]): NetworkOption[] =>
    'form' in field && isFieldName(prop)
      ? [
          {
            prop,
            param: field.spec.key,
            form: field.form,
            types: field.types,
            canonical: canonicalOf(field),
            implied: 'implied' in field ? field.implied : () => null,
          },
        ]
      : [],
);

function canonicalOf(field: FieldInput): (value: unknown) => unknown {
  return field.encode ?? ((value) => value);
}

/** The options a type has, in the declaration's order. */
export const optionsOf = (type: InterfaceType): readonly NetworkOption[] =>
  NETWORK_OPTIONS.filter((option) => option.types.includes(type));
