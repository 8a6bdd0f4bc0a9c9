/**
 * The token's sight of the bridges a batch declares but a node's list lacks (src/pve/bridge-sight.ts):
 * one `GET /access/permissions` per bridge name, asked only when one is missing, so a blind token
 * fails naming SDN.Audit instead of reading bridges as absent and creating them.
 */
import { HandlerError } from '../../src/core/errors';
import { mapByKey } from '../../src/core/pool';
import type { PveApi } from '../../src/pve/api';
import { blindBridge, bridgeAclPath, seesBridge } from '../../src/pve/bridge-sight';

/** Per bridge name: whether the token may see it, or why that could not be asked. */
export type BridgeSight = ReadonlyMap<string, boolean | Error>;

const PARALLEL = 8;

/** ACLs are cluster-wide (/etc/pve/user.cfg), so one answer per name serves every node. */
export const bridgeSight = async (api: PveApi, bridges: readonly string[]): Promise<BridgeSight> => {
  const names = [...new Set(bridges)];
  return mapByKey(names, PARALLEL, (bridge) => canSee(api, bridge).catch((error: Error) => error));
};

const canSee = async (api: PveApi, bridge: string): Promise<boolean> =>
  seesBridge(await api.call<unknown>('GET', 'access/permissions', { path: bridgeAclPath(bridge) }), bridge);

/**
 * Passes when the token may see every one of `bridges` (unlistedNames); else throws for `iface`,
 * naming SDN.Audit, or why the question could not be asked.
 */
export const requireSight = (
  node: string,
  iface: string,
  bridges: readonly string[],
  sight: BridgeSight,
  token?: string,
): void => {
  for (const bridge of bridges) {
    const seen = sight.get(bridge);
    if (seen instanceof Error) throw seen;
    if (seen === true) continue;
    const { title, detail } = blindBridge(node, iface, bridge, token);
    throw new HandlerError(title, detail);
  }
};
