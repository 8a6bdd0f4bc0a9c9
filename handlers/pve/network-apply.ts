/**
 * The I/O shell of a network apply: reads what each node has staged and who staged it (the diff text
 * goes to network-changes.ts and is dropped at once), refuses while a node holds changes the stack
 * does not declare or that its plan did not read (staging-basis.ts), then reloads the nodes one by one
 * behind a cluster-health gate before and after each, stopping the chain at the first node that is not clearly fine.
 */
import * as z from 'zod/mini';
import { TargetUnreachable } from '../../src/core/batch';
import { HandlerError } from '../../src/core/errors';
import { defineKind, type KindContext, type Reading } from '../../src/core/kind';
import { bounded } from '../../src/core/parse';
import { stopPoint } from '../../src/core/stop';
import { mapByKey, mapConcurrent } from '../../src/core/pool';
import { PARALLEL_NODES, type PveApi } from '../../src/pve/api';
import { clusterHealth } from '../../src/pve/cluster-health';
import {
  applyReading,
  bySomeoneElse,
  foreignRefusal,
  gateRefusal,
  healthyLine,
  type NetworkApplyIdentity,
  type NetworkApplySpec,
  NETWORK_APPLY_FIELDS,
  networkApplyIdentity,
  networkApplySpec,
  type NodeReading,
  type StagedByUs,
  ownRemovals,
  untouched,
} from '../../src/pve/network-apply';
import { type NodeStaging, nodeStagingOf, stagedSummary } from '../../src/pve/network-changes';
import { networkInterfaceSpec } from '../../src/pve/network-interface';
import {
  auditsNode,
  type LastReload,
  lastReload,
  RELOAD_TASKS_QUERY,
  reloadsAgain,
  reloadWords,
} from '../../src/pve/network-reloads';
import { stateBase } from '../../src/core/http/last-good';
import { type RemovalTraces, removalTraces } from '../../src/pve/removal-trace';
import { type Moved, movedRows, parseStagingBasis, stagingBasis, stagingRefusal } from '../../src/pve/staging-basis';
import { followTask } from './follow-task';

export const networkApplyKind = defineKind({
  spec: networkApplySpec,
  identity: networkApplyIdentity,

  async fetch(api: PveApi, specs: readonly NetworkApplySpec[]): Promise<NodeReadings> {
    const nodes = [...new Set(specs.flatMap((spec) => spec.nodes))];
    const stagings = await mapByKey(nodes, PARALLEL_NODES, (node) => nodeNow(api, node).catch((e: Error) => e));
    const readings = new Map([...stagings].map(([node, staging]) => [node, readingOf(staging)]));
    return { nodes: readings, ...(api.tokenName === undefined ? {} : { token: api.tokenName }) };
  },

  read: (spec: NetworkApplySpec, { nodes, token }: NodeReadings, context: KindContext): Reading => ({
    ...applyReading(spec, nodes, ownDeletions(context)),
    basis: stagingBasis(
      spec.nodes,
      (node) => {
        const staging = nodes.get(node);
        return staging === undefined || 'unreadable' in staging ? undefined : staging;
      },
      token,
    ),
  }),

  apply: async (api: PveApi, spec: NetworkApplySpec, context: KindContext) => {
    const ours = ownDeletions(context);
    const planned = plannedStaging(spec, context, ours, api.tokenName);
    await refuseUnplanned(api, spec, planned, ours);
    await reloadInOrder(api, spec.nodes, spec.timeoutSeconds, context, { spec, planned });
  },

  // Runs after the stack's interfaces staged their removal (they depend on this object's
  // lifecycle), so `terraform destroy` makes the removals live, behind the same gates. Its identity
  // names no interfaces, so it cannot tell whose staged changes it reloads.
  // Nor is there a plan's reading to check: a destroy hook gets only its lifecycle's input.
  destroy: (api: PveApi, identity: NetworkApplyIdentity, context: KindContext) =>
    reloadInOrder(api, identity.nodes, NETWORK_APPLY_FIELDS.timeoutSeconds.default, context),
});

/** Each node's reading, and the token that read them (PveApi.tokenName), which the apply's basis names. */
export interface NodeReadings {
  readonly nodes: ReadonlyMap<string, NodeReading>;
  readonly token?: string;
}

/** What moved on a node since its plan read it (staging-basis.ts), but for what this run staged there. */
type Planned = (node: string, staging: NodeStaging) => Moved | undefined;

/**
 * The plan's reading of the nodes against what this run staged: the interfaces of the batch (the apply comes after
 * every one on its nodes, so it runs only once they all staged), those whose removal the stack's destroy staged, and
 * the slaves of a bond among them. None for an apply resource an earlier version made: it holds no reading.
 */
const plannedStaging = (
  spec: NetworkApplySpec,
  { basis, batch = [] }: KindContext,
  ours: StagedByUs,
  token: string | undefined,
) => {
  if (basis === undefined) return undefined;
  const planned = parseStagingBasis(basis);
  const staged = batch.flatMap((change) => {
    const parsed = z.safeParse(networkInterfaceSpec, change);
    return parsed.success ? [parsed.data] : [];
  });
  return ((node, staging) => {
    const here = staged.filter((interfaceSpec) => interfaceSpec.node === node).map(({ iface }) => iface);
    const interfaces = new Set([...here, ...ownRemovals(spec, node, ours)]);
    const slaves = new Set([...interfaces].flatMap((iface) => staging.slaves.get(iface) ?? []));
    return movedRows(planned, node, staging, { interfaces, slaves }, token);
  }) satisfies Planned;
};

/** Whether this stack's own destroy staged a deletion (removal-trace.ts): a record entry cannot say so. */
const ownDeletions = ({ stack, env }: KindContext): StagedByUs => {
  const traces = removalTraces(stack, stateBase(env));
  return (node, iface) => traces.has(node, iface);
};

/**
 * What `GET nodes/{node}/network` says is staged: `changes`, a sibling of `data`, holds the diff of
 * interfaces against interfaces.new. Only its line count and interface names leave this function.
 */
const staged = async (api: PveApi, node: string): Promise<NodeStaging> =>
  nodeStagingOf(await api.envelope<unknown>('GET', `nodes/${node}/network`));

/** What is staged on `node` and how its last reload went. */
const nodeNow = async (api: PveApi, node: string) => {
  const [staging, last] = await Promise.all([staged(api, node), lastReloadOn(api, node)]);
  return { ...staging, lastReload: last };
};

/**
 * What the node's own task list says of its last reload (network-reloads.ts). The permission
 * question is asked only when no reload is listed: a token sees its own tasks without it.
 */
const lastReloadOn = async (api: PveApi, node: string): Promise<LastReload> => {
  const rows = await api.call<unknown>('GET', `nodes/${node}/tasks`, { ...RELOAD_TASKS_QUERY });
  const listed = lastReload(rows, false);
  if (listed.state !== 'blind') return listed;
  const held = await api.call<unknown>('GET', 'access/permissions', { path: `/nodes/${node}` });
  const last = lastReload(rows, auditsNode(held, node));
  return last.state === 'blind' && api.tokenName !== undefined ? { ...last, token: api.tokenName } : last;
};

/**
 * Before the first reload, fails naming every node that holds changes the stack does not declare (unless the spec
 * allows them), then every node with staged lines whose rows read otherwise than its plan read them (`planned`).
 */
const refuseUnplanned = async (api: PveApi, spec: NetworkApplySpec, planned: Planned | undefined, ours: StagedByUs) => {
  if (spec.reloadForeignChanges === true && planned === undefined) return;
  const stagings = await mapConcurrent(
    spec.nodes,
    PARALLEL_NODES,
    async (node) => [node, await staged(api, node)] as const,
  );
  const found = stagings
    .map(([node, staging]) => [node, bySomeoneElse(spec, node, staging, ours)] as const)
    .filter(([, names]) => names.length > 0);
  if (found.length > 0 && spec.reloadForeignChanges !== true) {
    const { title, detail } = foreignRefusal(found, 'nothing was reloaded');
    throw new HandlerError(title, detail);
  }
  const moved = stagings.flatMap(([node, staging]) => {
    const rows = staging.lines === 0 ? undefined : planned?.(node, staging);
    return rows === undefined ? [] : [[node, rows] as const];
  });
  if (moved.length > 0) throw stagingRefusal(spec.nodes, moved, 'nothing was reloaded');
};

/**
 * Walks `nodes` in order; each node with staged lines is gated, reloaded, followed and gated again.
 * With an apply's spec, a node someone else staged on since the check before the walk stops it too, and so does,
 * with its plan's reading, one whose rows moved since the plan.
 */
const reloadInOrder = async (
  api: PveApi,
  nodes: readonly string[],
  timeoutSeconds: number,
  context: KindContext,
  { spec, planned }: { spec?: NetworkApplySpec; planned?: Planned | undefined } = {},
): Promise<void> => {
  const { clock, log, stop: signal } = context;
  const traces = removalTraces(context.stack, stateBase(context.env));
  const reloaded: string[] = [];
  // A safe point: nothing of `node` is sent yet (stop.ts); a reload sent is followed to its end.
  const safePoint = (index: number) =>
    stopPoint(signal, reloaded.length === 0 ? '' : `${reloaded.join(', ')} reloaded`, notReloaded(nodes, index));
  for (const [index, node] of nodes.entries()) {
    safePoint(index);
    const stop = untouched(nodes, index);
    const staging = await staged(api, node);
    if (spec !== undefined) logUnstaged(spec, node, staging, traces, log);
    // An apply also reloads a node whose last reload is not known good; a destroy only makes removals live.
    const last = staging.lines === 0 && spec !== undefined ? await lastReloadOn(api, node) : undefined;
    if (staging.lines === 0 && (last === undefined || !reloadsAgain(last))) {
      const blind = last?.state === 'blind' ? `; ${reloadWords(node, last, 'apply')}` : '';
      log(`${node}: settled, nothing to reload${blind}`);
      continue;
    }
    const foreign = spec === undefined ? [] : bySomeoneElse(spec, node, staging, (n, iface) => traces.has(n, iface));
    if (foreign.length > 0 && spec?.reloadForeignChanges !== true) {
      const { title, detail } = foreignRefusal([[node, foreign]], `nothing was reloaded on ${node}${stop}`);
      throw new HandlerError(title, detail);
    }
    const moved = planned?.(node, staging);
    const done = reloaded.length === 0 ? '' : `${reloaded.join(', ')} reloaded, `;
    if (moved !== undefined)
      throw stagingRefusal(nodes, [[node, moved]], `${done}nothing was reloaded on ${node}${stop}`);
    log(
      last === undefined ? stagedSummary(node, staging.lines, foreign) : `${node}: ${reloadWords(node, last, 'apply')}`,
    );
    await gate(api, node, 'before', stop, log);
    safePoint(index);
    const upid = await api.call<unknown>('PUT', `nodes/${node}/network`);
    const shown = typeof upid === 'string' ? bounded(upid) : JSON.stringify(upid);
    log(`${node}: reloading (${shown})`);
    await followTask(api, { node, upid: String(upid), budgetMs: timeoutSeconds * 1000, stop }, clock, log);
    await gate(api, node, 'after', stop, log);
    // The deletions this stack staged there are live now: their notes have served.
    for (const iface of spec?.removing?.[node] ?? []) traces.drop(node, iface);
    reloaded.push(node);
  }
};

/**
 * Names each interface the record lists as removed that is still on `node` with no deletion of this
 * stack's staged: its destroy left it (found, never adopted) or the stack never had it (an entry made by
 * hand, issue 27). Nothing is done to it; the next plan still lists it until prune-record drops the entry.
 */
const logUnstaged = (
  spec: NetworkApplySpec,
  node: string,
  staging: NodeStaging,
  traces: RemovalTraces,
  log: KindContext['log'],
): void => {
  const left = (spec.removing?.[node] ?? []).filter(
    (iface) => staging.present.includes(iface) && !traces.has(node, iface),
  );
  if (left.length === 0) return;
  log(
    `${node}: ${left.join(', ')} listed as removed, but no destroy of this stack staged a deletion: left in place ` +
      "(found and never adopted, or never this stack's); npx cdktf-homelab prune-record drops the entry",
  );
};

/** "n2, n3 not reloaded" for a chain stopped before `nodes[index]`. */
const notReloaded = (nodes: readonly string[], index: number): string =>
  `${nodes.slice(index).join(', ')} not reloaded`;

/** The health gate (cluster-health.ts): passes with a progress line, or stops the chain. */
const gate = async (api: PveApi, node: string, when: 'before' | 'after', stop: string, log: KindContext['log']) => {
  const health = clusterHealth(await api.call<unknown>('GET', 'cluster/status'));
  if (!health.healthy) {
    const { title, detail } = gateRefusal(node, when, health, stop);
    throw new HandlerError(title, detail);
  }
  log(healthyLine(node, when, health));
};

/** A node that could not be read is named in the reading; a cluster that cannot be reached fails the read. */
const readingOf = (staging: NodeStaging | Error): NodeReading => {
  if (staging instanceof TargetUnreachable) throw staging;
  return staging instanceof Error ? { unreadable: oneLine(staging) } : staging;
};

const oneLine = (error: Error): string => bounded(error instanceof HandlerError ? error.oneLine() : error.message);
