/**
 * A bridge whose mtu is above a port's. PVE's writer dies on it when it writes the file, so the stage
 * (POST or PUT) fails with a 500: a plan that read such a bridge as only absent or changed promised an
 * apply that could not succeed. This reads the conflict so the plan and the apply can both refuse it.
 * Source: [PC] f665029 src/PVE/Network/Interfaces.pm:96-110 (check_mtu: a parent without an mtu counts as
 * 1500, a bond without one as its child's) and :1004-1028 (each bridge port checked against the bridge,
 * a `<device>.<id>` port without a stanza taking its device's mtu).
 */
import { findInterface } from './network-interface-diff';
import { vlanFromName } from './network-fields';

/** What the node holds for a name once the batch has applied; undefined when it holds nothing. */
export type NodeView = (iface: string) => { readonly type: string; readonly mtu?: number } | undefined;

/** What the view reads of a spec: `specOf`'s shape, as in network-interface-diff.ts. */
interface ViewSpec {
  readonly node: string;
  readonly iface: string;
  readonly type: string;
  readonly options: Readonly<Record<string, unknown>>;
}

/** PVE's mtu value (a GET answers it as text): a positive number, or undefined when unset. */
const mtuOf = (value: unknown): number | undefined => {
  const mtu = typeof value === 'string' && /^\d+$/.test(value) ? Number(value) : value;
  return typeof mtu === 'number' && mtu > 0 ? mtu : undefined;
};

/**
 * The node as the writer will see it: the rows, with each interface the batch declares there as declared
 * (its mtu written as declared, or removed when left out: updateForm sends `delete=mtu`).
 */
export const nodeView =
  (rows: unknown, declared: readonly ViewSpec[]): NodeView =>
  (iface) => {
    const spec = declared.find((candidate) => candidate.iface === iface);
    const row = spec === undefined ? findInterface(rows, iface) : undefined;
    const [type, mtu] = spec ? [spec.type, spec.options.mtu] : [row?.type, row?.mtu];
    if (spec === undefined && row === undefined) return undefined;
    const known = mtuOf(mtu);
    return { type: typeof type === 'string' ? type : '', ...(known === undefined ? {} : { mtu: known }) };
  };

/**
 * `mtu 9000 is above bridge port eno1's mtu 1500 (unset: PVE takes 1500)` for each port of a bridge with an
 * mtu that the writer would refuse. A port the view lacks is left to the missing-interface check.
 */
export const bridgeMtuConflicts = (spec: ViewSpec, view: NodeView): string[] => {
  const mtu = mtuOf(spec.options.mtu);
  const ports = spec.options.bridge_ports;
  if (spec.type !== 'bridge' || mtu === undefined || !Array.isArray(ports)) return [];
  return ports
    .filter((port): port is string => typeof port === 'string')
    .flatMap((port) => {
      const device = vlanFromName(port).rawDevice;
      const held = view(port) ?? (device === undefined ? undefined : view(device) && { type: 'vlan', ...view(device) });
      if (held === undefined) return [];
      const portMtu = held.mtu ?? (held.type === 'bond' ? mtu : 1500);
      if (portMtu >= mtu) return [];
      return [`mtu ${mtu} is above bridge port ${port}'s mtu ${portMtu}${held.mtu ? '' : ' (unset: PVE takes 1500)'}`];
    });
};
