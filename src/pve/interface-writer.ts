/**
 * Two more rules PVE's writer checks over a node's whole file at every stage (POST, PUT, DELETE), dying with a 500: a
 * bridge port holds no static address, and a bond slave is a NIC or a bond. A plan that read an interface breaking one
 * as only absent or changed promised an apply that failed; this reads them so the plan and the apply refuse first.
 * Source: [PC] f665029 src/PVE/Network/Interfaces.pm:890-907 (check bond: "wrong interface type on slave"),
 * :1003-1029 (check bridgeport option: "ip address can't be set on interface if bridged in").
 */
import type { NodeView } from './interface-mtu';

/** The types the writer takes as a Linux bond's slave. */
const SLAVE_TYPES = new Set(['eth', 'bond']);

const BRIDGED = "which PVE's writer refuses on a bridge port";
const SLAVE = "and PVE's writer takes only a NIC or a bond as a bond slave";

const named = (value: unknown): string[] =>
  Array.isArray(value) ? value.filter((item): item is string => typeof item === 'string') : [];

/**
 * `bridge vmbr1's port enp2s0 holds a static address, …` and `bond bond0's slave vmbr0 is a bridge, …` for each
 * interface of the view the writer refuses. A name the view lacks is left to the missing-interface check, and a
 * `<device>.<id>` port without a stanza is a VLAN the writer makes `manual`, so it never holds an address.
 */
export const writerConflicts = (view: NodeView): string[] =>
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
