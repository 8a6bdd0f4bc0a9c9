/**
 * The fields of `POST/PUT nodes/{node}/network` this library manages for bridges, VLANs and bonds,
 * with PVE's parameter names, the construct props that set them and their rules. One table drives
 * synth checks, the diff and the forms, so a value PVE would refuse or rewrite is caught at synth
 * instead of drifting forever. Source: [PM] PVE/API2/Network.pm $confdesc, [PC] JSONSchema.pm.
 */
import { isIPv6 } from 'node:net';
import { groupOf, show } from '../core/errors';
import { boolean, integer, oneOf, type Rule } from '../core/rules';

export const INTERFACE_TYPES = ['bridge', 'vlan', 'bond'] as const;
/** The interface types this library manages. */
export type InterfaceType = (typeof INTERFACE_TYPES)[number];

export type FieldKind =
  | { readonly kind: 'bool' }
  | { readonly kind: 'int'; readonly min: number; readonly max: number }
  | { readonly kind: 'string'; readonly test: (value: string) => boolean; readonly rule: string }
  | { readonly kind: 'enum'; readonly values: readonly string[] }
  /** Free text, one `#` line per line in the file; GET gives it back with a final newline. */
  | { readonly kind: 'comment' }
  /** Interface names, space-separated on the wire; GET answers them sorted, so order is not compared. */
  | { readonly kind: 'ifaces' }
  /** VLAN ids and ranges, space-separated on the wire. */
  | { readonly kind: 'vids' };

export type NetworkField = FieldKind & {
  readonly param: string;
  readonly prop: string;
  readonly types: readonly InterfaceType[];
};

const OCTET = '(?:25[0-5]|(?:2[0-4]|1[0-9]|[1-9])?[0-9])';
const IPV4 = new RegExp(`^${OCTET}(?:\\.${OCTET}){3}$`);

// PVE's IPv6 grammar has no zone index; node:net accepts `fe80::1%eth0`.
const isIpv6 = (value: string): boolean => !value.includes('%') && isIPv6(value);

const cidrWith = (isAddress: (value: string) => boolean, maxPrefix: number) => (value: string) => {
  const match = /^(.+)\/(\d+)$/.exec(value);
  return match !== null && isAddress(groupOf(match, 1)) && Number(match[2]) > 7 && Number(match[2]) <= maxPrefix;
};

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

const ALL = INTERFACE_TYPES;
const ipv4 = { kind: 'string', test: (v: string) => IPV4.test(v), rule: 'an IPv4 address' } as const;
const ipv6 = { kind: 'string', test: isIpv6, rule: 'an IPv6 address' } as const;

export const NETWORK_FIELDS = [
  { param: 'autostart', prop: 'autostart', types: ALL, kind: 'bool' },
  { param: 'comments', prop: 'comments', types: ALL, kind: 'comment' },
  { param: 'mtu', prop: 'mtu', types: ALL, kind: 'int', min: 1280, max: 65520 },
  {
    param: 'cidr',
    prop: 'cidr',
    types: ALL,
    kind: 'string',
    test: cidrWith((v) => IPV4.test(v), 32),
    rule: 'an IPv4 CIDR with a prefix of 8-32',
  },
  {
    param: 'cidr6',
    prop: 'cidr6',
    types: ALL,
    kind: 'string',
    test: cidrWith(isIpv6, 128),
    rule: 'an IPv6 CIDR with a prefix of 8-128',
  },
  { param: 'gateway', prop: 'gateway', types: ALL, ...ipv4 },
  { param: 'gateway6', prop: 'gateway6', types: ALL, ...ipv6 },
  { param: 'bridge_ports', prop: 'bridgePorts', types: ['bridge'], kind: 'ifaces' },
  { param: 'bridge_vlan_aware', prop: 'bridgeVlanAware', types: ['bridge'], kind: 'bool' },
  { param: 'bridge_vids', prop: 'bridgeVids', types: ['bridge'], kind: 'vids' },
  { param: 'vlan-id', prop: 'vlanId', types: ['vlan'], kind: 'int', min: 1, max: 4094 },
  {
    param: 'vlan-raw-device',
    prop: 'vlanRawDevice',
    types: ['vlan'],
    kind: 'string',
    test: (v) => IFACE_NAME.test(v),
    rule: IFACE_RULE,
  },
  { param: 'slaves', prop: 'slaves', types: ['bond'], kind: 'ifaces' },
  { param: 'bond_mode', prop: 'bondMode', types: ['bond'], kind: 'enum', values: LINUX_BOND_MODES },
  {
    param: 'bond-primary',
    prop: 'bondPrimary',
    types: ['bond'],
    kind: 'string',
    test: (v) => IFACE_NAME.test(v),
    rule: IFACE_RULE,
  },
  {
    param: 'bond_xmit_hash_policy',
    prop: 'bondXmitHashPolicy',
    types: ['bond'],
    kind: 'enum',
    values: ['layer2', 'layer2+3', 'layer3+4'],
  },
] as const satisfies readonly NetworkField[];

/** One field, with its prop's literal name, so a construct can type its props from the table. */
export type NetworkFieldEntry = (typeof NETWORK_FIELDS)[number];

/** The fields a type sends. */
export const fieldsOf = (type: InterfaceType): readonly NetworkFieldEntry[] =>
  NETWORK_FIELDS.filter((field) => sentBy(field.types, type));

const sentBy = (types: readonly InterfaceType[], type: InterfaceType): boolean => types.includes(type);

/** A declared value in the spec's canonical form: lists are arrays, sets sorted. */
export type SpecValue = string | number | boolean | readonly string[];

/** A field's rule over a prop's value (the spec carries the same values, lists in canonical form). */
export const ruleOf = (field: NetworkField): Rule => {
  switch (field.kind) {
    case 'bool':
      return boolean;
    case 'int':
      return integer(field.min, field.max);
    case 'string':
      return (value) => (typeof value === 'string' && field.test(value) ? undefined : field.rule);
    case 'enum':
      return oneOf(field.values);
    case 'comment':
      return (value) => (typeof value === 'string' && isSafeComment(value) ? undefined : COMMENT_RULE);
    case 'ifaces':
      return ifaceList;
    case 'vids':
      return vlanIds;
  }
};

const ifaceList: Rule = (value) =>
  isStringList(value) && value.every((item) => IFACE_NAME.test(item)) && new Set(value).size === value.length
    ? undefined
    : `a list of distinct interface names (${IFACE_RULE})`;

const vlanIds: Rule = (value) =>
  Array.isArray(value) && value.length > 0 && value.map(String).every(isVlanIdOrRange)
    ? undefined
    : 'a non-empty list of VLAN ids (2-4094) or ranges such as "100-200"';

export const COMMENT_RULE =
  'a non-empty text whose lines do not end in whitespace or a backslash, ' +
  'without %, ${ or control characters other than newline';

/**
 * ifupdown2 joins a line ending in `\` to the next one, so a comment could swallow the next
 * stanza's `auto` line and the interface would not come up at boot; where its templating is on,
 * `${` and `%` are template syntax. A line is read back without trailing whitespace (never settles).
 */
const isSafeComment = (text: string): boolean =>
  text !== '' &&
  !/[\u0000-\u0009\u000b-\u001f\u007f%]|\$\{/.test(text) &&
  text.split('\n').every((line) => !/[\s\\]$/.test(line));

const isStringList = (value: unknown): value is string[] =>
  Array.isArray(value) && value.every((item) => typeof item === 'string');

/** A valid prop value in the spec's form: sets sorted, VLAN ids as strings. */
export const toSpecValue = (field: NetworkField, value: unknown): SpecValue => {
  if (field.kind === 'vids' && Array.isArray(value)) return value.map(String);
  if (!isSpecValue(value)) throw new Error(`${field.prop}: ${show(value)} was not judged by its rule first`);
  return field.kind === 'ifaces' && typeof value === 'object' ? [...value].sort() : value;
};

const isSpecValue = (value: unknown): value is SpecValue =>
  typeof value === 'string' || typeof value === 'number' || typeof value === 'boolean' || isStringList(value);
