/**
 * What keeps PVE from deleting an interface: another interface of the node that names it (a bridge's port, a bond's
 * slave, a VLAN's device), or a file its writer already refuses (an mtu above its parent's, a port listed twice, a
 * bridge port holding an address: a file edited by hand). PVE's DELETE writes the file without the interface, and
 * its writer dies on any of these, a 500, so the plan of a removal says so and the destroy refuses in the same words
 * before sending. Source: [PC] f665029 src/PVE/Network/Interfaces.pm:900 (bond slave), :969 (VLAN parent), :1023
 * (bridge port; a `<device>.<id>` port without a stanza is made a VLAN there, so it never blocks its device's
 * deletion); the whole-file rules in interface-mtu.ts and interface-writer.ts.
 */
import { mtuConflicts, nodeView } from './interface-mtu';
import { writerConflicts } from './interface-writer';
import { namedInterfaces, type NamedInterface } from './network-interface-diff';

const HOW: Record<NamedInterface['role'], (holder: string) => string> = {
  'bridge port': (holder) => `bridge ${holder} has it as a port`,
  'bond slave': (holder) => `bond ${holder} has it as a slave`,
  'VLAN device': (holder) => `VLAN ${holder} has it as its device`,
};

/** `VLAN vmbr9.10 has it as its device`, … for each interface among `rows` naming `iface`, but those `leaving`. */
export const heldBy = (rows: unknown, iface: string, leaving: readonly string[] = []): string[] =>
  [...nodeView(rows, []).values()].flatMap((holder) =>
    holder.iface === iface || leaving.includes(holder.iface)
      ? []
      : namedInterfaces(holder)
          .filter((named) => named.iface === iface)
          .map((named) => HOW[named.role](holder.iface)),
  );

/** Why PVE refuses a deletion, in the plan's and the destroy's words, and what ends it. */
export interface RemovalRefusal {
  readonly words: string;
  readonly fix: string;
}

const NAMED_FIX = 'Remove that interface, or make it name another, on the node or in this stack';
const FILE_FIX =
  "Fix those settings on the node by hand: PVE's writer refuses its file as it is, and a removal runs before this " +
  "stack's changes are staged";

/**
 * `PVE refuses that while VLAN vmbr9.10 has it as its device`, or undefined when nothing blocks deleting `iface`; an
 * interface in `leaving` (its own deletion staged first: a bridge is removed before the bond it uses) does not count.
 */
export const removalRefused = (
  rows: unknown,
  iface: string,
  leaving: readonly string[] = [],
): RemovalRefusal | undefined => {
  const holders = heldBy(rows, iface, leaving);
  const after = new Map([...nodeView(rows, [])].filter(([name]) => name !== iface && !leaving.includes(name)));
  const broken = [...mtuConflicts(after), ...writerConflicts(after)];
  if (holders.length + broken.length === 0) return undefined;
  const fix = [holders.length > 0 ? NAMED_FIX : [], broken.length > 0 ? FILE_FIX : []].flat().join('; ');
  return { words: `PVE refuses that while ${[...holders, ...broken].join(', ')}`, fix };
};
