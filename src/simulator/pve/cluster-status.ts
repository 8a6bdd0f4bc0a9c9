// `GET /cluster/status` rows for a configurable cluster or a standalone node, so health gating
// is tested against both shapes, including the standalone one that has no `quorate` at all, and
// which members a `nodes/{node}/…` call can be forwarded to.
// Source: pve-api.md A2, A3; [PM] API2/Cluster.pm status, HTTPServer.pm proxyto; [PC] Network.pm.
import { BareError, die } from './envelope';

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

const asNode = (node: string | FakePveNode): FakePveNode => (typeof node === 'string' ? { name: node } : node);

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

/** The members' names: the first node alone on a standalone install. */
export const memberNames = (shape: ClusterShape): string[] => {
  const nodes = (shape.nodes ?? ['n1']).map(asNode);
  return (shape.clusterName === null ? nodes.slice(0, 1) : nodes).map((node) => node.name);
};

/**
 * The forward of a `{node}` call: an unknown name fails the host lookup (500); an offline member
 * never answers the forward, which pveproxy relays as a bare 595.
 */
export const checkForward = (shape: ClusterShape, name: string): void => {
  const node = (shape.nodes ?? ['n1']).map(asNode).find((candidate) => candidate.name === name);
  if (!node || !memberNames(shape).includes(name)) {
    throw die(`hostname lookup '${name}' failed - failed to get address info for: ${name}: Name or service not known`);
  }
  if (shape.clusterName !== null && node.online === false) throw new BareError(595, 'No route to host');
};
