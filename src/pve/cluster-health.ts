/**
 * The health gate asked before and after each node's network reload: quorate AND every member
 * online. Quorum alone misses the accident it guards against: losing one of three members leaves
 * the cluster quorate, and reloading a second node then is how an outage completes.
 */
import * as z from 'zod/mini';

export interface ClusterHealth {
  readonly healthy: boolean;
  /** What the gate saw, for messages: "quorate=true offline=[n3]". */
  readonly reason: string;
  /** For progress lines: "quorate, 3/3 online" or "standalone, 1/1 online". */
  readonly detail: string;
  readonly quorate: boolean;
  readonly offline: readonly string[];
}

// PVE sends 0/1; a JSON client may see booleans, a proxy strings. Anything else is "not set".
const flag = z.optional(z.union([z.number(), z.boolean(), z.string()]));
const row = z.looseObject({
  type: z.optional(z.string()),
  name: z.optional(z.string()),
  quorate: flag,
  online: flag,
});
const rows = z.array(row);

const isSet = (value: unknown): boolean => value === 1 || value === true || value === '1';

const UNREADABLE: ClusterHealth = {
  healthy: false,
  reason: 'cluster/status gave no node rows',
  detail: 'unreadable',
  quorate: false,
  offline: [],
};

/**
 * Reads the `data` of `GET cluster/status` (pve-api.md §A3). A standalone node answers node rows
 * and no cluster row, and is quorate; a missing `online` counts as offline; an answer without node
 * rows is never healthy.
 */
export const clusterHealth = (data: unknown): ClusterHealth => {
  const parsed = z.safeParse(rows, data);
  if (!parsed.success) return UNREADABLE;
  const nodes = parsed.data.filter((entry) => entry.type === 'node');
  if (nodes.length === 0) return UNREADABLE;
  const cluster = parsed.data.find((entry) => entry.type === 'cluster');
  const quorate = cluster === undefined || isSet(cluster.quorate);
  const offline = nodes.filter((node) => !isSet(node.online)).map((node) => node.name ?? '<unnamed>');
  const online = `${nodes.length - offline.length}/${nodes.length} online`;
  return {
    healthy: quorate && offline.length === 0,
    reason: `quorate=${quorate} offline=[${offline.join(', ')}]`,
    detail: `${cluster === undefined ? 'standalone' : quorate ? 'quorate' : 'not quorate'}, ${online}`,
    quorate,
    offline,
  };
};
