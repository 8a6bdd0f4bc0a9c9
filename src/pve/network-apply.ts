/**
 * The pure half of a network apply: what a plan says about the nodes' staged lines and who staged
 * them, and the lines an apply prints and fails with. Only counts and interface names reach here,
 * never the staged diff, so nothing this module returns can carry a `wpa-psk` value or a `pre-up`
 * command into a plan or the state.
 */
import type { Reading } from '../core/kind';
import type { FieldChange } from '../core/protocol';
import type { ClusterHealth } from './cluster-health';
import { type NodeStaging, stagedSummary } from './network-changes';
import type { NetworkApplySpec } from './network-specs';

/** What a node has staged, or why it could not be read. */
export type NodeReading = NodeStaging | { readonly unreadable: string };

/**
 * What `node` has staged that the stack does not declare there: interfaces (a declared bond's
 * slaves count as the stack's, since staging the bond marks them `auto`), then lines the diff gives
 * to no interface or to one the list does not show. A reload would make all of it live.
 */
export const bySomeoneElse = (spec: NetworkApplySpec, node: string, staging: NodeStaging): string[] => {
  const declared = spec.interfaces?.[node] ?? [];
  const ours = new Set([...declared, ...declared.flatMap((name) => staging.slaves[name] ?? [])]);
  const { interfaces, outside, unplaced } = staging.stanzas;
  return [
    ...interfaces.filter((name) => !ours.has(name)),
    ...(outside ? ['lines outside any interface'] : []),
    ...(unplaced ? ['lines of an interface the list does not show'] : []),
  ];
};

/**
 * The apply object's reading: "n2: 3 staged lines; n3: 5 staged lines, 1 by someone else: vmbr9",
 * in the declared order. A node that could not be read is not settled: the plan says so.
 */
export const applyReading = (spec: NetworkApplySpec, stagings: ReadonlyMap<string, NodeReading>): Reading => {
  const diff: Record<string, FieldChange> = {};
  const parts = spec.nodes.map((node) => {
    const staging = stagings.get(node) ?? { unreadable: 'not read' };
    if ('unreadable' in staging) {
      diff[node] = { live: 'unreadable', want: 0 };
      return `${node}: cannot be read (${staging.unreadable})`;
    }
    if (staging.lines > 0) diff[node] = { live: staging.lines, want: 0 };
    return stagedSummary(node, staging.lines, bySomeoneElse(spec, node, staging));
  });
  return { inSync: Object.keys(diff).length === 0, summary: parts.join('; '), diff };
};

/**
 * Why the apply reloads nothing (more) while nodes hold what someone else staged: `found` lists
 * each such node with what bySomeoneElse named, `done` says what was already reloaded.
 */
export const foreignRefusal = (found: ReadonlyArray<readonly [string, readonly string[]]>, done: string) => ({
  title: 'Network apply refused: changes staged by someone else',
  detail:
    `${found.map(([node, names]) => `${node} holds staged changes to ${names.join(', ')}`).join('; ')}, ` +
    `which this stack does not declare, and a reload makes every staged change on a node live; ${done}. ` +
    'Look at them (web UI: the node, System, Network), then apply or revert them there, or declare them ' +
    'in this stack, or set reloadForeignChanges: true on the ProxmoxNetworkApply to reload them with ' +
    "this stack's changes; then apply again",
});

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
