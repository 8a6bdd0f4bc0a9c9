/**
 * Whether a token can see a bridge at all. PVE lists a bridge in `GET nodes/{node}/network` only to
 * a caller with SDN.Audit or SDN.Use on it, so for a token without them every bridge reads as absent
 * and an apply would send creates PVE refuses. A missing bridge is absent only when the token holds
 * one of them; otherwise the reading is blind and names the privilege it lacks.
 * Source: [PM] PVE/API2/Network.pm index (can_access_vnet); [AC] RPCEnvironment.pm check_sdn_bridge.
 */
import type { NetworkInterfaceSpec } from './network-interface';
import { findInterface, lackedInterfaces } from './network-interface-diff';
import { isRecord } from '../core/records';

/** The types PVE hides from a caller without SDN rights on them. */
export const HIDDEN_TYPES: ReadonlySet<string> = new Set(['bridge', 'OVSBridge']);

/** The privileges that list a bridge; either one is enough. */
const LISTING = ['SDN.Audit', 'SDN.Use'];

/** The ACL path PVE checks for a node's own bridge: the `localnetwork` zone, then the bridge. */
export const bridgeAclPath = (bridge: string): string => `/sdn/zones/localnetwork/${bridge}`;

/**
 * Whether the answer of `GET /access/permissions?path=<bridgeAclPath>` grants a listing privilege:
 * `{path: {privilege: propagate}}`, where a privilege is held when its key is there, even at 0 (0 only
 * says the ACL does not propagate). Anything else reads as not granted, so the reading stays blind.
 */
export const seesBridge = (answer: unknown, bridge: string): boolean => {
  const path = bridgeAclPath(bridge);
  if (!isRecord(answer) || !Object.hasOwn(answer, path)) return false;
  const held = answer[path];
  return held !== null && typeof held === 'object' && LISTING.some((privilege) => Object.hasOwn(held, privilege));
};

/**
 * The names a reading of `spec` would call absent and that may be hidden bridges: the interface
 * itself when it is a bridge, and each interface it names (a port, a VLAN's device; for a `<device>.<id>`
 * port without a row, its device) that is neither listed nor declared on the node by the same stack.
 */
export const unlistedNames = (spec: NetworkInterfaceSpec, rows: unknown, declared: ReadonlySet<string>): string[] => {
  const unlisted = (name: string) => findInterface(rows, name) === undefined;
  const lacked = lackedInterfaces(spec, (name) => declared.has(name) || !unlisted(name)).map(({ iface }) => iface);
  return [...(HIDDEN_TYPES.has(spec.type) && unlisted(spec.iface) ? [spec.iface] : []), ...lacked];
};

/**
 * Why `iface` cannot be read when `bridge` (itself, or one it names) is missing from the list. A
 * bridge that only a VLAN-level grant shows is not recognised here, so such a token is told to grant
 * on the bridge: a false alarm that names its fix, never a create sent for a bridge that may exist.
 */
export const blindBridge = (node: string, iface: string, bridge: string, token = 'this token') => ({
  title: `interface ${iface} on ${node} cannot be read`,
  detail:
    `PVE lists a bridge only to a token holding SDN.Audit (or SDN.Use) on ${bridgeAclPath(bridge)}, and ` +
    `${token} holds neither, so ${bridge} is missing from ${node}'s list whether it exists or not; ` +
    'nothing was created. Grant SDN.Audit on /sdn/zones/localnetwork (the PVEAuditor role has it) to the ' +
    'token and, with privilege separation, to its user, then plan again',
});
