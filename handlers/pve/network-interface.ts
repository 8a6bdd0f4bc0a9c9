/**
 * The I/O shell of a node's network interface. A batch lists each declared node's interfaces once;
 * apply refuses an interface that changed since its plan read it (interface-basis.ts), stages the form the pure
 * diff asks for and reads it back; destroy stages the removal.
 * Nothing here reloads: a staged change goes live only through a `ProxmoxNetworkApply`.
 */
import { HandlerError } from '../../src/core/errors';
import { defineKind, type KindContext, type Reading } from '../../src/core/kind';
import { mapByKey } from '../../src/core/pool';
import { PARALLEL_NODES, type PveApi } from '../../src/pve/api';
import { HIDDEN_TYPES, unlistedNames } from '../../src/pve/bridge-sight';
import { interfaceBasis, interfaceMoved } from '../../src/pve/interface-basis';
import {
  asWritten,
  createForm,
  diffInterface,
  findInterface,
  interfaceReading,
  isInSync,
  missingInterfaces,
  summarizeInterface,
  updateForm,
} from '../../src/pve/network-interface-diff';
import {
  type NetworkInterfaceIdentity,
  networkInterfaceIdentity,
  networkInterfaceSpec,
  type NetworkInterfaceSpec,
} from '../../src/pve/network-interface';
import { stateBase } from '../../src/core/http/last-good';
import { removalRefused } from '../../src/pve/removal-block';
import { removalTraces } from '../../src/pve/removal-trace';
import { type BridgeSight, bridgeSight, requireSight } from './bridge-sight';
import { refuseStages, requireAccepted, type RowsByNode } from './stage-checks';

/** Each declared node's interface rows (or the error reading them), and the batch's interfaces there. */
export interface NodeRows {
  readonly rows: RowsByNode;
  readonly declared: ReadonlyMap<string, ReadonlySet<string>>;
  /** Whether the token may see the bridges the rows lack (a blind token reads them as absent). */
  readonly sight: BridgeSight;
  /** The token as a refusal names it (PveApi.tokenName). */
  readonly token?: string;
}

export const networkInterfaceKind = defineKind({
  spec: networkInterfaceSpec,
  identity: networkInterfaceIdentity,

  async fetch(api: PveApi, specs: readonly NetworkInterfaceSpec[]): Promise<NodeRows> {
    const nodes = [...new Set(specs.map((spec) => spec.node))];
    const byNode = await mapByKey(nodes, PARALLEL_NODES, (node) => listInterfaces(api, node).catch((e: Error) => e));
    const declared = (node: string) => new Set(specs.filter((spec) => spec.node === node).map((spec) => spec.iface));
    const declaredBy = new Map(nodes.map((node) => [node, declared(node)]));
    const unlisted = specs.flatMap((spec) => unlistedOf(spec, { rows: byNode, declared: declaredBy }));
    const sight = await bridgeSight(api, unlisted);
    const nodeRows = {
      rows: byNode,
      declared: declaredBy,
      sight,
      ...(api.tokenName === undefined ? {} : { token: api.tokenName }),
    };
    refuseMissing(specs, nodeRows);
    refuseStages(specs, byNode);
    return nodeRows;
  },

  read(spec: NetworkInterfaceSpec, nodes: NodeRows): Reading {
    const live = nodes.rows.get(spec.node);
    if (live instanceof Error) throw live;
    requireSight(spec.node, spec.iface, unlistedOf(spec, nodes), nodes.sight, nodes.token);
    return {
      ...interfaceReading(spec, live, nodes.declared.get(spec.node) ?? new Set()),
      basis: interfaceBasis(spec, live),
    };
  },

  /** Only an interface of the spec's type is this object (PUT cannot change a type), as for a metric server. */
  exists(spec: NetworkInterfaceSpec, nodes: NodeRows): boolean {
    const live = nodes.rows.get(spec.node);
    const row = Array.isArray(live) ? findInterface(live, spec.iface) : undefined;
    return row !== undefined && diffInterface(spec, row).state !== 'foreign';
  },

  apply: (api: PveApi, spec: NetworkInterfaceSpec, context: KindContext) => stage(api, spec, context),
  /** The spec, which the domain's batch apply orders by (stage-order.ts). */
  change: (spec: NetworkInterfaceSpec) => spec,
  destroy: (api: PveApi, identity: NetworkInterfaceIdentity, context: KindContext) =>
    stageRemoval(api, identity, context),
});

const stage = async (api: PveApi, declared: NetworkInterfaceSpec, context: KindContext): Promise<void> => {
  const { log, stack, env, basis } = context;
  const name = `interface ${declared.iface} on ${declared.node}`;
  // Declared again: a deletion of it staged later is not one this stack's destroy made (removal-trace.ts).
  removalTraces(stack, stateBase(env)).drop(declared.node, declared.iface);
  const rows = await listInterfaces(api, declared.node);
  // The plan showed the stage its reading made: an interface that reads otherwise now is refused (interface-basis.ts).
  const moved = basis === undefined ? undefined : interfaceMoved(declared, basis, rows);
  if (moved !== undefined) throw moved;
  await requireStageable(api, declared, rows);
  const spec = asWritten(declared, rows);
  const live = findInterface(rows, spec.iface);
  const state = diffInterface(spec, live);
  if (state.state === 'foreign') throw new HandlerError(`${name} cannot be staged`, summarizeInterface(spec, state));
  if (isInSync(state)) return log(`${name}: in sync, nothing to stage`);
  requireAccepted(spec, rows);
  if (state.state === 'absent' || live === undefined) {
    log(`${name}: staging a new ${spec.type}`);
    await api.call('POST', networkPath(spec.node), createForm(spec));
  } else {
    log(`${name}: staging ${Object.keys(state.changes).join(', ')}`);
    await api.call('PUT', interfacePath(spec), updateForm(spec, live));
  }
  const rowsAfter = await listInterfaces(api, spec.node);
  const after = diffInterface(asWritten(declared, rowsAfter), findInterface(rowsAfter, spec.iface));
  if (!isInSync(after)) {
    throw new HandlerError(
      'PVE reported success but the staged interface did not hold',
      summarizeInterface(spec, after),
    );
  }
};

/**
 * What a plan's reading cannot read or calls missing, an apply never writes: a bridge the token may
 * not see (the interface itself, a port, a VLAN's device), then a named interface the node lacks,
 * which PVE would refuse with a 500. The batch has applied what it declares there by now.
 */
const requireStageable = async (api: PveApi, spec: NetworkInterfaceSpec, rows: unknown[]): Promise<void> => {
  const unlisted = unlistedNames(spec, rows, new Set());
  requireSight(spec.node, spec.iface, unlisted, await bridgeSight(api, unlisted), api.tokenName);
  const missing = missingInterfaces(spec, rows, new Set());
  if (missing.length === 0) return;
  throw new HandlerError(
    `interface ${spec.iface} on ${spec.node} cannot be staged`,
    `${missing.join('; ')}, and PVE refuses an interface that names one; nothing was staged. Create it on ` +
      'the node, or declare it on that node in this stack, or name another; then apply again',
  );
};

const stageRemoval = async (
  api: PveApi,
  identity: NetworkInterfaceIdentity,
  { log, stack, env }: KindContext,
): Promise<void> => {
  const name = `interface ${identity.iface} on ${identity.node}`;
  const rows = await listInterfaces(api, identity.node);
  const live = findInterface(rows, identity.iface);
  if (live === undefined) {
    const hidden = HIDDEN_TYPES.has(identity.type) ? [identity.iface] : [];
    requireSight(identity.node, identity.iface, hidden, await bridgeSight(api, hidden), api.tokenName);
    return log(`${name}: already absent`);
  }
  if (live.type !== identity.type) {
    return log(`${name}: now a ${String(live.type)} that this stack did not declare; left alone`);
  }
  const refused = removalRefused(rows, identity.iface);
  if (refused !== undefined) {
    throw new HandlerError(
      `${name} cannot be removed`,
      `${refused.words}; nothing was staged. ${refused.fix}; then apply again`,
    );
  }
  log(`${name}: staging its removal`);
  // Noted before the DELETE: a note whose DELETE was lost names an interface the node still lists, whose
  // staged changes a network apply then counts as the stack's (network-apply.ts, ownRemovals), as they were.
  removalTraces(stack, stateBase(env)).note(identity.node, identity.iface);
  await api.call('DELETE', interfacePath(identity));
};

/**
 * Fails the read, so the plan, naming every interface the batch declares that names a port, slave or
 * VLAN device its node lacks: PVE refuses to stage such an interface (500), so a plan that passed would
 * promise an apply that cannot succeed (issue 27 item 6). A name the token may not see is left to the
 * object's own reading, which calls it unreadable and names SDN.Audit instead.
 */
const refuseMissing = (specs: readonly NetworkInterfaceSpec[], nodes: NodeRows): void => {
  const missing = specs.flatMap((spec) => {
    const live = nodes.rows.get(spec.node);
    if (live instanceof Error || live === undefined) return [];
    if (unlistedOf(spec, nodes).some((name) => nodes.sight.get(name) !== true)) return [];
    const lacks = missingInterfaces(spec, live, nodes.declared.get(spec.node) ?? new Set());
    return lacks.length === 0 ? [] : [`interface ${spec.iface} on ${spec.node}: ${lacks.join(', ')}`];
  });
  if (missing.length === 0) return;
  throw new HandlerError(
    'Network interfaces name interfaces their nodes lack',
    `${missing.join('; ')}; PVE refuses to stage an interface that names one, so nothing can be applied. ` +
      'Create it on the node, or declare it on that node in this stack, or name another; then plan again',
  );
};

/** The names `spec`'s reading would call absent that may be hidden bridges; none when the node is unread. */
const unlistedOf = (spec: NetworkInterfaceSpec, { rows, declared }: Omit<NodeRows, 'sight'>): string[] => {
  const live = rows.get(spec.node);
  return live instanceof Error ? [] : unlistedNames(spec, live, declared.get(spec.node) ?? new Set());
};

const networkPath = (node: string) => `nodes/${node}/network`;
const interfacePath = ({ node, iface }: { node: string; iface: string }) => `${networkPath(node)}/${iface}`;

/**
 * The node's rows: the staged view when interfaces.new exists (pve-api.md §A2), which is what the
 * next reload makes live. Only `data` is taken: the staged diff never reaches this module.
 */
const listInterfaces = async (api: PveApi, node: string): Promise<unknown[]> => {
  const rows = await api.call<unknown>('GET', networkPath(node));
  if (!Array.isArray(rows)) {
    throw new HandlerError('PVE answered without an interface list', `GET /${networkPath(node)} returned no list`);
  }
  return rows;
};
