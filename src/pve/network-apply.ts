/**
 * The pure half of a network apply: what a plan says about the nodes' staged lines, and the lines
 * an apply prints and fails with. Only counts reach here, never the staged diff, so nothing this
 * module returns can carry a `wpa-psk` value or a `pre-up` command into a plan or the state.
 */
import type { Reading } from '../core/kind';
import type { FieldChange } from '../core/protocol';
import type { ClusterHealth } from './cluster-health';
import { stagedSummary } from './network-changes';

/** A node's staged-line count, or why it could not be read. */
export type NodeCount = number | { readonly unreadable: string };

/**
 * The apply object's reading: "n2: 3 staged lines; n3: settled", in the declared order. A node
 * that could not be read is not settled: the plan says so and the apply gets to try.
 */
export const applyReading = (nodes: readonly string[], counts: ReadonlyMap<string, NodeCount>): Reading => {
  const diff: Record<string, FieldChange> = {};
  const parts = nodes.map((node) => {
    const count = counts.get(node) ?? { unreadable: 'not read' };
    if (typeof count !== 'number') {
      diff[node] = { live: 'unreadable', want: 0 };
      return `${node}: cannot be read (${count.unreadable})`;
    }
    if (count > 0) diff[node] = { live: count, want: 0 };
    return stagedSummary(node, count);
  });
  return { inSync: Object.keys(diff).length === 0, summary: parts.join('; '), diff };
};

/** "; n3, n4 not reloaded", for a chain stopped at `nodes[index]`. */
export const untouched = (nodes: readonly string[], index: number): string => {
  const rest = nodes.slice(index + 1);
  return rest.length === 0 ? '' : `; ${rest.join(', ')} not reloaded`;
};

/** The progress line of a passed gate. */
export const healthyLine = (node: string, when: 'before' | 'after', health: ClusterHealth): string =>
  `${node}: cluster ${when === 'before' ? 'healthy' : 'still healthy'} (${health.detail})`;

/**
 * Why a gate stops the chain. Before a reload nothing on `node` was touched; after it, the node's
 * new network is live and the cluster must be looked at before anything else is reloaded.
 */
export const gateRefusal = (node: string, when: 'before' | 'after', health: ClusterHealth, stop: string) =>
  when === 'before'
    ? {
        title: `Network apply refused before reloading ${node}`,
        detail:
          `the cluster is not healthy (${health.reason}), and reloading a node while a member is out ` +
          `is how an outage completes; nothing was reloaded on ${node}${stop}. ` +
          'Bring the member back (or restore quorum), then apply again',
      }
    : {
        title: `Network apply stopped after reloading ${node}`,
        detail:
          `the cluster is not healthy after the reload (${health.reason}); check ${node}'s network ` +
          `before anything else is reloaded${stop}. Apply again once every member is online`,
      };
