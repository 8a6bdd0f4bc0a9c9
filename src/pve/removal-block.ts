/**
 * What keeps PVE from deleting an interface: another interface of the node that names it (a bridge's port, a bond's
 * slave, a VLAN's device). PVE's DELETE writes the file without it, and its writer dies on any interface naming one
 * it cannot find, a 500, so the plan of a removal says so and the destroy refuses in the same words before sending.
 * Source: [PC] f665029 src/PVE/Network/Interfaces.pm:900 (bond slave), :969 (VLAN parent), :1023 (bridge port; a
 * `<device>.<id>` port without a stanza is made a VLAN there, so it never blocks its device's deletion).
 */
import { nodeView } from './interface-mtu';
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

/**
 * `PVE refuses that while VLAN vmbr9.10 has it as its device`, or undefined when nothing names `iface`; an interface
 * in `leaving` (its own deletion staged first: a bridge is removed before the bond it uses) does not count.
 */
export const removalRefused = (rows: unknown, iface: string, leaving: readonly string[] = []): string | undefined => {
  const holders = heldBy(rows, iface, leaving);
  return holders.length === 0 ? undefined : `PVE refuses that while ${holders.join(', ')}`;
};
