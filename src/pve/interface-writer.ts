/**
 * Three more rules PVE's writer checks over a node's whole file at every stage (POST, PUT, DELETE), dying with a 500:
 * a port is listed by one interface only, a bridge port holds no static address, and a bond slave is a NIC or a bond.
 * A plan that read an interface breaking one as only absent or changed promised an apply that failed; this reads
 * them so the plan and the apply refuse first. Source: [PC] f665029 src/PVE/Network/Interfaces.pm:814-823 ("port
 * '$p' is already used"), :890-907 (check bond: "wrong interface type on slave"), :1003-1029 (check bridgeport
 * option: "ip address can't be set on interface if bridged in").
 */
import type { NodeView } from './interface-mtu';

/** The types the writer takes as a Linux bond's slave. */
const SLAVE_TYPES = new Set(['eth', 'bond']);

const BRIDGED = "which PVE's writer refuses on a bridge port";
const SLAVE = "and PVE's writer takes only a NIC or a bond as a bond slave";
const SHARED = "which PVE's writer refuses";

/** Names as a spec (a list) or a GET row (`"eno1 eno2"`) holds them. */
const named = (value: unknown): string[] => {
  if (Array.isArray(value)) return value.filter((item): item is string => typeof item === 'string');
  return typeof value === 'string' ? value.split(/[\s,;]+/).filter(Boolean) : [];
};

/** The lists whose names the writer counts as used ports. */
const PORT_LISTS = ['bridge_ports', 'ovs_ports', 'slaves', 'ovs_bonds'] as const;

/** `port eno1 is listed by both vmbr0 and vmbr9, …` for each port two interfaces of the view list. */
const sharedPorts = (view: NodeView): string[] => {
  const used = new Map<string, string>();
  return [...view.values()].flatMap((holder) =>
    [...new Set(PORT_LISTS.flatMap((list) => named(holder.options[list])))].flatMap((port) => {
      const first = used.get(port);
      if (first === undefined) used.set(port, holder.iface);
      return first === undefined ? [] : [`port ${port} is listed by both ${first} and ${holder.iface}, ${SHARED}`];
    }),
  );
};

/**
 * `bridge vmbr1's port enp2s0 holds a static address, …` and `bond bond0's slave vmbr0 is a bridge, …` for each
 * interface of the view the writer refuses. A name the view lacks is left to the missing-interface check, and a
 * `<device>.<id>` port without a stanza is a VLAN the writer makes `manual`, so it never holds an address.
 */
export const writerConflicts = (view: NodeView): string[] => [...sharedPorts(view), ...bridgeAndBond(view)];

const bridgeAndBond = (view: NodeView): string[] =>
  [...view.values()].flatMap((holder) => {
    if (holder.type === 'bridge') {
      const addressed = named(holder.options.bridge_ports).filter((port) => view.get(port)?.addressed === true);
      return addressed.map((port) => `bridge ${holder.iface}'s port ${port} holds a static address, ${BRIDGED}`);
    }
    if (holder.type !== 'bond') return [];
    return named(holder.options.slaves).flatMap((slave) => {
      const type = view.get(slave)?.type;
      if (type === undefined || SLAVE_TYPES.has(type)) return [];
      return [`bond ${holder.iface}'s slave ${slave} is a ${type}, ${SLAVE}`];
    });
  });
