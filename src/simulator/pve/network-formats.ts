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
