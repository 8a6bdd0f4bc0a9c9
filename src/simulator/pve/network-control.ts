// The control half of the simulator's node network: members going offline, how the next reload
// behaves, holding and ending tasks, and the interfaces files as a human would edit them, so a
// test (or a script driving the simulator) stages any situation a real cluster can be in without
// reaching into the stores.
import type { ClusterShape, FakePveNode } from './cluster-status';
import type { NetworkStore, NodeNetworkSetup } from './network-store';
import type { TaskBehaviour, TaskStore } from './tasks';

export type { NodeNetworkSetup } from './network-store';
export type { TaskBehaviour } from './tasks';

export interface FakePveNetwork {
  /** Takes a member offline (its row says online 0, calls forwarded to it get a bare 595) or back. */
  setNodeOnline(node: string, online: boolean): void;
  /** How every later reload on `node` behaves: its time, outcome, log, and polls it cuts. */
  setReload(node: string, behaviour: TaskBehaviour): void;
  /** Ends a task now (a held one too), optionally with another exit status. */
  finishTask(upid: string, exitstatus?: string): void;
  /** Every UPID started, oldest first. */
  tasks(): string[];
  /** Starts a task as another service's would (`srvreload` of `pveproxy`, say), ended at once unless held. */
  startTask(node: string, type: string, id: string, user: string, behaviour?: TaskBehaviour): string;
  /** A node's /etc/network/interfaces and interfaces.new (absent when nothing is staged). */
  interfacesFiles(node: string): { running: string; staged?: string };
  /** Edits a node as a human would: NICs and running file kept unless given; staged replaced (absent: none). */
  setInterfacesFiles(node: string, setup: NodeNetworkSetup): void;
}

export interface NetworkControlDeps {
  readonly network: NetworkStore;
  readonly tasks: TaskStore;
  readonly reloads: Map<string, TaskBehaviour>;
  readonly cluster: () => ClusterShape;
  readonly setCluster: (shape: ClusterShape) => void;
}

const asNode = (node: string | FakePveNode): FakePveNode => (typeof node === 'string' ? { name: node } : node);

export const networkControl = (deps: NetworkControlDeps): FakePveNetwork => ({
  setNodeOnline: (name, online) => {
    const shape = deps.cluster();
    const nodes = (shape.nodes ?? ['n1']).map(asNode);
    if (!nodes.some((node) => node.name === name)) throw new Error(`fake PVE: no member '${name}'`);
    deps.setCluster({ ...shape, nodes: nodes.map((node) => (node.name === name ? { ...node, online } : node)) });
  },
  setReload: (node, behaviour) => void deps.reloads.set(node, behaviour),
  finishTask: (upid, exitstatus) => deps.tasks.finish(upid, exitstatus),
  tasks: () => deps.tasks.list(),
  startTask: (node, type, id, user, behaviour) => deps.tasks.start(node, type, id, user, behaviour),
  interfacesFiles: (node) => {
    const { running, staged } = deps.network.filesOf(node);
    return staged === undefined ? { running } : { running, staged };
  },
  setInterfacesFiles: (node, setup) => deps.network.setNode(node, setup),
});
