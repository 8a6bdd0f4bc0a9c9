/**
 * The I/O shell of a network apply: counts each node's staged lines (the diff text stays in this
 * module and is dropped at once), then reloads the nodes one by one behind a cluster-health gate
 * before and after each, stopping the chain at the first node that is not clearly fine.
 */
import { TargetUnreachable } from '../../src/core/batch';
import { HandlerError } from '../../src/core/errors';
import { defineKind, type KindContext, type Reading } from '../../src/core/kind';
import { bounded } from '../../src/core/parse';
import { mapConcurrent } from '../../src/core/pool';
import type { PveApi } from '../../src/pve/api';
import { clusterHealth } from '../../src/pve/cluster-health';
import { applyReading, gateRefusal, healthyLine, type NodeCount, untouched } from '../../src/pve/network-apply';
import { stagedLinesOf, stagedSummary } from '../../src/pve/network-changes';
import {
  type NetworkApplyIdentity,
  type NetworkApplySpec,
  networkApplyIdentity,
  networkApplySpec,
  RELOAD_TIMEOUT,
} from '../../src/pve/network-specs';
import { followTask } from './follow-task';

const PARALLEL_NODES = 8;

export const networkApplyKind = defineKind({
  spec: networkApplySpec,
  identity: networkApplyIdentity,

  async fetch(api: PveApi, specs: readonly NetworkApplySpec[]): Promise<ReadonlyMap<string, NodeCount>> {
    const nodes = [...new Set(specs.flatMap((spec) => spec.nodes))];
    const counts = await mapConcurrent(nodes, PARALLEL_NODES, (node) =>
      stagedLines(api, node).catch((error: Error) => error),
    );
    return new Map(nodes.map((node, index) => [node, countOf(counts[index]!)]));
  },

  read: (spec: NetworkApplySpec, counts: ReadonlyMap<string, NodeCount>): Reading => applyReading(spec.nodes, counts),

  apply: (api: PveApi, spec: NetworkApplySpec, context: KindContext) =>
    reloadInOrder(api, spec.nodes, spec.timeoutSeconds, context),

  // Runs after the stack's interfaces staged their removal (they depend on this object's
  // lifecycle), so `terraform destroy` makes the removals live, behind the same gates.
  destroy: (api: PveApi, identity: NetworkApplyIdentity, context: KindContext) =>
    reloadInOrder(api, identity.nodes, RELOAD_TIMEOUT.default, context),
});

/**
 * Staged lines of `GET nodes/{node}/network`: `changes`, a sibling of `data`, holds the diff of
 * interfaces against interfaces.new. Only its count leaves this function.
 */
const stagedLines = async (api: PveApi, node: string): Promise<number> =>
  stagedLinesOf(await api.envelope<unknown>('GET', `nodes/${node}/network`));

/** Walks `nodes` in order; each node with staged lines is gated, reloaded, followed and gated again. */
const reloadInOrder = async (
  api: PveApi,
  nodes: readonly string[],
  timeoutSeconds: number,
  { clock, log }: KindContext,
): Promise<void> => {
  for (const [index, node] of nodes.entries()) {
    const stop = untouched(nodes, index);
    const lines = await stagedLines(api, node);
    if (lines === 0) {
      log(`${node}: settled, nothing to reload`);
      continue;
    }
    log(stagedSummary(node, lines));
    await gate(api, node, 'before', stop, log);
    const upid = await api.call<unknown>('PUT', `nodes/${node}/network`);
    const shown = typeof upid === 'string' ? bounded(upid) : JSON.stringify(upid);
    log(`${node}: reloading (${shown})`);
    await followTask(api, { node, upid: String(upid), budgetMs: timeoutSeconds * 1000, stop }, clock, log);
    await gate(api, node, 'after', stop, log);
  }
};

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
const countOf = (count: number | Error): NodeCount => {
  if (count instanceof TargetUnreachable) throw count;
  return count instanceof Error ? { unreadable: oneLine(count) } : count;
};

const oneLine = (error: Error): string => bounded(error instanceof HandlerError ? error.oneLine() : error.message);
