// The JSONSchema formats of the network API with PVE's die texts, so a bad address, interface name
// or VLAN range meets the same 400 a real node gives. Source: [PC] PVE/JSONSchema.pm pve_verify_*.
import { isIPv6 } from 'node:net';

import { groupsOf } from './narrow';

const OCTET = '(?:25[0-5]|(?:2[0-4]|1[0-9]|[1-9])?[0-9])';
const IPV4 = new RegExp(`^${OCTET}(?:\\.${OCTET}){3}$`);
const isIpv6 = (value: string): boolean => !value.includes('%') && isIPv6(value);
const MASK_BITS = new Map(
  Array.from({ length: 33 }, (_, bits) => [
    [24, 16, 8, 0].map((shift) => ((bits === 0 ? 0 : (0xffffffff << (32 - bits)) >>> 0) >>> shift) & 255).join('.'),
    bits,
  ]),
);
const MASKS = new Set(MASK_BITS.keys());

/** get_netmask_bits: the length of a dotted IPv4 netmask, or undefined. */
export const netmaskBits = (mask: string): number | undefined => MASK_BITS.get(mask);

const verify = (ok: boolean, text: string): string | undefined => (ok ? undefined : `${text}\n`);

const cidr = (isAddress: (value: string) => boolean, max: number) => (value: string) => {
  const [address, bits] = groupsOf(/^(.+)\/(\d+)$/, value);
  return address !== undefined && isAddress(address) && Number(bits) > 7 && Number(bits) <= max;
};

const vlanIdOrRange = (item: string): string | undefined => {
  const match = /^(\d+)(?:-(\d+))?$/.exec(item);
  if (!match) return `invalid VLAN configuration '${item}'\n`;
  for (const tag of [match[1], match[2]]) {
    if (tag !== undefined && (Number(tag) < 2 || Number(tag) > 4094)) return `invalid VLAN tag '${tag}'\n`;
  }
  if (match[2] !== undefined && Number(match[1]) >= Number(match[2])) {
    return `VLAN range must go from lower to higher tag '${item}'\n`;
  }
  return undefined;
};

const iface = (value: string) =>
  verify(/^[a-z][a-z0-9_]{1,20}([:.]\d+)?$/i.test(value), `invalid network interface name '${value}'`);

/** Verifiers by format name; each returns PVE's die text or undefined. `-list` forms split first. */
export const NETWORK_FORMATS = {
  'pve-node': (value: string) =>
    verify(/^[a-zA-Z0-9]([a-zA-Z0-9-]*[a-zA-Z0-9])?$/.test(value), 'value does not look like a valid node name'),
  'pve-iface': iface,
  ipv4: (value: string) => verify(IPV4.test(value), 'value does not look like a valid IPv4 address'),
  ipv6: (value: string) => verify(isIpv6(value), 'value does not look like a valid IPv6 address'),
  ipv4mask: (value: string) => verify(MASKS.has(value), 'value does not look like a valid IP netmask'),
  CIDRv4: (value: string) =>
    verify(cidr((v) => IPV4.test(v), 32)(value), 'value does not look like a valid IPv4 CIDR network'),
  CIDRv6: (value: string) => verify(cidr(isIpv6, 128)(value), 'value does not look like a valid IPv6 CIDR network'),
  'pve-vlan-id-or-range': vlanIdOrRange,
} as const;

/** An IPv6 address as 128 bits, as Net::IP's ip_expand_address and ip_iptobin make it (embedded IPv4 too). */
export const ipv6Bits = (address: string): string => {
  const [head = '', tail] = address.split('::');
  const groups = (text: string): string[] =>
    text === ''
      ? []
      : text.split(':').flatMap((group) => {
          if (!group.includes('.')) return [group];
          const [a = 0, b = 0, c = 0, d = 0] = group.split('.').map(Number);
          return [((a << 8) | b).toString(16), ((c << 8) | d).toString(16)];
        });
  const [left, right] = [groups(head), tail === undefined ? [] : groups(tail)];
  const zeros = Array.from({ length: 8 - left.length - right.length }, () => '0');
  return [...left, ...(tail === undefined ? [] : zeros), ...right]
    .map((group) => parseInt(group, 16).toString(2).padStart(16, '0'))
    .join('');
};

// Net::IP 1.26's %IPv6ranges (Debian's libnet-ip-perl 1.26-3, Net/IP.pm:95-125): the longest matching prefix names
// the type (ip_iptypev6).
const IPV6_RANGES = (
  [
    ['::', 8, 'RESERVED'],
    ['::', 128, 'UNSPECIFIED'],
    ['::1', 128, 'LOOPBACK'],
    ['::ffff:0:0', 96, 'IPV4MAP'],
    ['100::', 8, 'RESERVED'],
    ['100::', 64, 'DISCARD'],
    ['200::', 7, 'RESERVED'],
    ['400::', 6, 'RESERVED'],
    ['800::', 5, 'RESERVED'],
    ['1000::', 4, 'RESERVED'],
    ['2000::', 3, 'GLOBAL-UNICAST'],
    ['2001::', 32, 'TEREDO'],
    ['2001:2::', 48, 'BMWG'],
    ['2001:db8::', 32, 'DOCUMENTATION'],
    ['2001:10::', 28, 'ORCHID'],
    ['2002::', 16, '6TO4'],
    ['4000::', 3, 'RESERVED'],
    ['6000::', 3, 'RESERVED'],
    ['8000::', 3, 'RESERVED'],
    ['a000::', 3, 'RESERVED'],
    ['c000::', 3, 'RESERVED'],
    ['e000::', 4, 'RESERVED'],
    ['f000::', 5, 'RESERVED'],
    ['f800::', 6, 'RESERVED'],
    ['fc00::', 7, 'UNIQUE-LOCAL-UNICAST'],
    ['fe00::', 9, 'RESERVED'],
    ['fe80::', 10, 'LINK-LOCAL-UNICAST'],
    ['fec0::', 10, 'RESERVED'],
    ['ff00::', 8, 'MULTICAST'],
  ] as const
)
  .map(([address, length, type]) => [ipv6Bits(address).slice(0, length), type] as const)
  .sort(([a], [b]) => b.length - a.length);

/**
 * check_ipv6_settings: the type of a host address with its prefix, `ANYCAST` when it equals its mask, else
 * Net::IP's; only the unicast ones below may be an interface's address. Source: [PM] 14a22df
 * PVE/API2/Network.pm:573-592.
 */
export const ipv6HostType = (address: string, prefix: number): string => {
  const bits = ipv6Bits(address);
  if (bits === '1'.repeat(prefix).padEnd(128, '0')) return 'ANYCAST';
  return IPV6_RANGES.find(([range]) => bits.startsWith(range))?.[1] ?? 'RESERVED';
};

export const HOST_IPV6_TYPES: ReadonlySet<string> = new Set([
  'GLOBAL-UNICAST',
  'UNIQUE-LOCAL-UNICAST',
  'LINK-LOCAL-UNICAST',
]);
