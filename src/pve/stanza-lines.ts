/**
 * One line of /etc/network/interfaces as PVE's parser reads it: a stanza header, a top-level line,
 * a blank or comment, or an option; and whether an option line can belong to a listed row. The diff
 * walk (staged-stanzas.ts) uses it to name stanzas; no line text ever leaves these two modules.
 * Source: [PC] PVE/Network/Interfaces.pm __read_etc_network_interfaces.
 */
import { groupOf } from '../core/errors';

export type LineKind = { readonly header: readonly string[] } | 'top' | 'blank' | 'comment' | 'option';

const AUTO = /^\s*(?:allow-auto|auto|allow-ovs|allow-hotplug)\s+(.*)$/;
const IFACE = /^\s*iface\s+(\S+)/;
// The parser ends a stanza at these and keeps them as top-level lines (any other `allow-` too).
const TOP = /^\s*(?:(?:mapping|source|source-directory)\s|allow-)/;

/** Whether the line is an `auto` (or `allow-auto`, `allow-hotplug`, …) line, which only says to bring names up. */
export const isAutoLine = (text: string): boolean => AUTO.test(text);

export const kindOf = (text: string): LineKind => {
  const named = IFACE.exec(text)?.[1] ?? AUTO.exec(text)?.[1];
  if (named !== undefined) return { header: named.split(/\s+/).filter((name) => name !== '') };
  if (TOP.test(text)) return 'top';
  if (/^\s*$/.test(text)) return 'blank';
  return /^\s*#/.test(text) ? 'comment' : 'option';
};

/** The parser's `$options_alternatives`: the file's key to the row's. */
const ALTERNATIVES: Readonly<Record<string, string>> = {
  ovs_mtu: 'mtu',
  'bond-slaves': 'slaves',
  bond_slaves: 'slaves',
  'bond-xmit-hash-policy': 'bond_xmit_hash_policy',
  'bond-mode': 'bond_mode',
  'bond-miimon': 'bond_miimon',
  'bridge-vlan-aware': 'bridge_vlan_aware',
  'bridge-fd': 'bridge_fd',
  'bridge-stp': 'bridge_stp',
  'bridge-ports': 'bridge_ports',
  'bridge-vids': 'bridge_vids',
};

type Row = Readonly<Record<string, unknown>>;

const text = (value: unknown): string => (value === undefined || value === null ? '' : String(value));
const portSet = (value: string): string =>
  [...new Set(value.split(/\s+/).filter((port) => port !== '' && port !== 'none'))].sort().join(' ');

/** The values a row may show for a file key, each as the parser stores it. */
const rowValues = (row: Row, key: string, value: string): boolean => {
  const pair = (field: string) => [text(row[field]), text(row[`${field}6`])];
  if (key === 'address') return [...pair('cidr'), ...pair('address')].includes(value);
  if (['gateway', 'netmask', 'broadcast'].includes(key)) return pair(key).includes(value);
  if (key === 'slaves' || key === 'bridge_ports') return text(row[key]) === portSet(value);
  if (key === 'bridge_stp') return text(row[key]) === (/^(on|yes)$/i.test(value) ? 'on' : 'off');
  if (key === 'bridge_vlan_aware') return text(row[key]) === '1';
  return text(row[key]) === value;
};

/**
 * Whether a line of the staged file can sit in `row`'s stanza: a comment its comments hold, an
 * option whose value the row shows or that the row keeps verbatim in `options`. Never used to
 * print: it only narrows which of several stanzas a changed line is in.
 */
export const fitsRow = (row: Row, line: string): boolean => {
  const comment = /^\s*#(.*?)\s*$/.exec(line);
  if (comment) return `${text(row.comments)}${text(row.comments6)}`.split('\n').includes(groupOf(comment, 1));
  const option = /^\s*((\S+)\s+(.+?))\s*$/.exec(line);
  if (!option) return false;
  const kept = [row.options, row.options6].flatMap((list) => (Array.isArray(list) ? list : []));
  if (kept.includes(option[1])) return true;
  const key = groupOf(option, 2);
  return rowValues(row, ALTERNATIVES[key] ?? key, groupOf(option, 3));
};
