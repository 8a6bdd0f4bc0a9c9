// `GET /cluster/status` rows for a configurable cluster or a standalone node, so health gating
// is tested against both shapes, including the standalone one that has no `quorate` at all.
// Source: pve-api.md A3; [PM] API2/Cluster.pm status.

export interface FakePveNode {
  readonly name: string;
  /** @default true */
  readonly online?: boolean;
  /** @default - 10.0.0.<position> */
  readonly ip?: string;
  /** @default - true for the first node only */
  readonly local?: boolean;
}

export interface ClusterShape {
  /** The cluster name; null makes a standalone node (the first of `nodes`). @default 'homelab' */
  readonly clusterName?: string | null;
  /** @default ['n1'] */
  readonly nodes?: ReadonlyArray<string | FakePveNode>;
  /** @default - more than half of the nodes online */
  readonly quorate?: boolean;
}

const asNode = (node: string | FakePveNode): FakePveNode =>
  typeof node === 'string' ? { name: node } : node;

const bit = (flag: boolean): number => (flag ? 1 : 0);

/** The rows, in PVE's order: the cluster row first, then one row per node. */
export const clusterStatus = (shape: ClusterShape): Array<Record<string, unknown>> => {
  const nodes = (shape.nodes ?? ['n1']).map(asNode);
  const ipOf = (node: FakePveNode, index: number): string => node.ip ?? `10.0.0.${index + 1}`;
  const clusterName = shape.clusterName === undefined ? 'homelab' : shape.clusterName;
  if (clusterName === null) {
    const self = nodes[0] ?? { name: 'n1' };
    // A standalone node: one node row, nodeid 0, always online, and no cluster row (A3).
    const row = { type: 'node', id: `node/${self.name}`, name: self.name, ip: ipOf(self, 0) };
    return [{ ...row, local: 1, nodeid: 0, online: 1, level: '' }];
  }
  const online = nodes.filter((node) => node.online ?? true).length;
  const quorate = shape.quorate ?? online * 2 > nodes.length;
  const clusterRow = {
    type: 'cluster',
    id: 'cluster',
    name: clusterName,
    nodes: nodes.length,
    version: nodes.length,
    quorate: bit(quorate),
  };
  const nodeRows = nodes.map((node, index) => ({
    type: 'node',
    id: `node/${node.name}`,
    name: node.name,
    nodeid: index + 1,
    local: bit(node.local ?? index === 0),
    online: bit(node.online ?? true),
    ip: ipOf(node, index),
    level: '',
  }));
  return [clusterRow, ...nodeRows];
};
