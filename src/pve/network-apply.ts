/**
 * A network apply, defined once: its props table (judged at synth and again at the handler
 * boundary), its spec and identity, and the pure half of a run: what a plan says about the nodes'
 * staged lines and who staged them, and the lines an apply prints and fails with. Only counts and
 * interface names reach here, never the staged diff, so nothing this module returns can carry a
 * `wpa-psk` value or a `pre-up` command into a plan or the state.
 */
import type * as z from 'zod/mini';
import type { NestedRule } from '../core/definition';
import { identitySchema, optional, required, specSchema } from '../core/fields';
import type { Reading } from '../core/kind';
import { isRecord } from '../core/records';
import type { FieldChange } from '../core/protocol';
import { boolean, broken, integer, type Problem, type Rule, text } from '../core/rules';
import type { ClusterHealth } from './cluster-health';
import { type NodeStaging, stagedSummary } from './network-changes';
import { IFACE_NAME, IFACE_RULE } from './network-fields';
import { type LastReload, needsReload, reloadDiff, reloadWords } from './network-reloads';
import { removalRefused } from './removal-block';
import { NODE_NAME } from './upid';

/** The ceiling of one reload's task wait (pve-api.md §A4; bpg waits 100 s). */
export const RELOAD_TIMEOUT = { min: 1, max: 3600 } as const;

const nodeName = text('a PVE node name (letters, digits, inner -)', NODE_NAME);

/** The nodes to reload, in order: a non-empty list of distinct node names. */
const nodeList: Rule<readonly string[]> = (value) => {
  if (!Array.isArray(value) || value.length === 0) return 'a non-empty list of node names';
  if (value.some((node) => nodeName(node) !== undefined)) return 'PVE node names (letters, digits, inner -)';
  return new Set(value).size === value.length ? undefined : 'free of duplicates';
};

/** Per node, a list of interface names: each broken entry named at its path (`interfaces.n1`). */
const byNode: NestedRule<Readonly<Record<string, readonly string[]>>> = Object.assign(
  (value: unknown) => (isRecord(value) ? undefined : 'an object of interface name lists by node'),
  {
    within: (value: unknown): Problem[] =>
      isRecord(value)
        ? Object.entries(value).flatMap(([node, names]) => [
            ...(nodeName(node) === undefined ? [] : [broken(node, 'keyed by node names', node)]),
            ...(Array.isArray(names) && names.every((iface) => typeof iface === 'string' && IFACE_NAME.test(iface))
              ? []
              : [broken(node, `a list of interface names (${IFACE_RULE})`, names)]),
          ])
        : [],
  },
);

/**
 * A network apply's one declaration: the props a construct takes (the nodes in reload order, the task wait,
 * whether foreign changes may go live) and, computed by the construct, per node the interfaces the stack stages
 * there and those whose removal its apply stages (README, Removing an object). Whatever else a node has staged
 * is someone else's, and is reloaded only with `reloadForeignChanges`.
 */
export const NETWORK_APPLY_FIELDS = {
  /**
   * The nodes to reload, in this order. Every `ProxmoxNetworkInterface` of this stack on one of
   * them is staged before the first reload, and a change to any of them runs this apply again.
   * Changing the list replaces the object, whose teardown reloads the old list's staged changes.
   *
   * Known at synth: a Terraform value is refused, since synth stages every interface of the stack on these nodes
   * before their reload.
   */
  nodes: required({
    rule: nodeList,
    spec: true,
    identity: true,
    atSynth: 'synth stages every interface of the stack on these nodes before their reload',
  }),
  /**
   * How long to wait for one node's reload task, polled once a second. When the budget ends with
   * no final reading, the apply stops with "outcome unknown" and the task's UPID.
   */
  timeoutSeconds: optional({ rule: integer(RELOAD_TIMEOUT.min, RELOAD_TIMEOUT.max), default: 30, spec: true }),
  /**
   * Whether to reload a node that holds staged changes to interfaces this stack does not declare
   * there (someone's edit in the web UI, a `source` line), which a reload would make live with the
   * stack's own. A plan names them either way; without this the apply refuses, naming them.
   */
  reloadForeignChanges: optional({ rule: boolean, default: false, spec: true }),
  /** Per node, the names of the interfaces the stack stages there, sorted. */
  interfaces: optional({ rule: byNode, spec: true, prop: false }),
  /** Per node, the interfaces removed from the stack whose deletion its apply stages. */
  removing: optional({ rule: byNode, spec: true, prop: false }),
};

/** What a `ProxmoxNetworkApply` synthesizes. */
export const networkApplySpec = specSchema(NETWORK_APPLY_FIELDS, 'a network apply spec');
export type NetworkApplySpec = z.infer<typeof networkApplySpec>;

/** What names an apply object: its nodes, in order. */
export const networkApplyIdentity = identitySchema(NETWORK_APPLY_FIELDS, 'a network apply identity');
export type NetworkApplyIdentity = z.infer<typeof networkApplyIdentity>;

/** What a node has staged and what its task list says of its last reload, or why it could not be read. */
export type NodeReading = (NodeStaging & { readonly lastReload?: LastReload }) | { readonly unreadable: string };

/** Whether this stack's own destroy staged the deletion of `iface` on `node` (removal-trace.ts). */
export type StagedByUs = (node: string, iface: string) => boolean;

/**
 * The interfaces of `spec.removing` on `node` whose staged deletion is the stack's: staged by the stack's
 * own destroy (`ours`). The list comes from the record, which anyone can edit, so an entry naming an
 * interface whose deletion someone else staged is not the stack's (issue 27), nor is one still there: a
 * hand-made entry exempted the changes someone staged on a live interface, and the apply reloaded them
 * (an audit, 2026-12-05).
 */
export const ownRemovals = (spec: NetworkApplySpec, node: string, ours: StagedByUs): string[] =>
  (spec.removing?.[node] ?? []).filter((iface) => ours(node, iface));

/**
 * What `node` has staged that the stack does not declare there: interfaces (a declared bond's
 * slaves count as the stack's while only their `auto` lines changed, since staging the bond marks them
 * `auto`: a hand's mtu or address staged on one was reloaded as the stack's), then lines the diff gives
 * to no interface or to one the list does not show. A reload would make all of it live.
 */
export const bySomeoneElse = (
  spec: NetworkApplySpec,
  node: string,
  staging: NodeStaging,
  stagedByUs: StagedByUs,
): string[] => {
  const declared = [...(spec.interfaces?.[node] ?? []), ...ownRemovals(spec, node, stagedByUs)];
  const { interfaces, outside, unplaced, beyondAuto } = staging.stanzas;
  const slaves = declared.flatMap((name) => staging.slaves.get(name) ?? []);
  const ours = new Set([...declared, ...slaves.filter((slave) => !beyondAuto.includes(slave))]);
  return [
    ...interfaces.filter((name) => !ours.has(name)),
    ...(outside ? ['lines outside any interface'] : []),
    ...(unplaced ? ['lines of an interface the list does not show'] : []),
  ];
};

/**
 * The apply object's reading: "n2: 3 staged lines; n3: 5 staged lines, 1 by someone else: vmbr9",
 * in the declared order, then FOREIGN_REFUSED where the apply refuses those. A node that could not be read is not
 * settled: the plan says so.
 */
export const applyReading = (
  spec: NetworkApplySpec,
  stagings: ReadonlyMap<string, NodeReading>,
  ours: StagedByUs,
): Reading => {
  const diff: Record<string, FieldChange> = {};
  let foreign = false;
  // A node not read, or a deletion PVE refuses: the apply cannot be said to converge it.
  let unconverged = false;
  const parts = spec.nodes.map((node) => {
    const staging = stagings.get(node) ?? { unreadable: 'not read' };
    if ('unreadable' in staging) {
      diff[node] = { live: 'unreadable', want: 0 };
      unconverged = true;
      return `${node}: cannot be read (${staging.unreadable})`;
    }
    const pending = (spec.removing?.[node] ?? []).filter((iface) => staging.present.includes(iface));
    const last = staging.lastReload ?? { state: 'ok' };
    if (needsReload(last)) diff[node] = reloadDiff(last);
    if (staging.lines > 0 || pending.length > 0) diff[node] = { live: staging.lines, want: 0 };
    // A pending deletion replaces what is staged on its interface, so the plan counts those lines as the
    // stack's; the apply does only once its destroy staged the deletion, which the state decides.
    const planned: StagedByUs = (at, iface) => pending.includes(iface) || ours(at, iface);
    const theirs = bySomeoneElse(spec, node, staging, planned);
    foreign ||= staging.lines > 0 && theirs.length > 0;
    const summary = stagedSummary(node, staging.lines, theirs);
    const them = pending.length === 1 ? 'it' : 'them';
    // A deletion PVE would refuse (another interface names it) is said so, as the destroy refuses it.
    const refused = pending.flatMap((iface) => {
      const why = removalRefused(staging.rows, iface, pending)?.words;
      return why === undefined ? [] : [pending.length === 1 ? why : `${iface}: ${why}`];
    });
    unconverged ||= refused.length > 0;
    const deleted = `${summary}, ${pending.join(', ')} to be deleted if this plan destroys ${them}`;
    const staged =
      pending.length === 0 ? summary : refused.length === 0 ? deleted : `${deleted} (${refused.join('; ')})`;
    if (!needsReload(last)) return staged;
    const words = reloadWords(node, last);
    return staging.lines === 0 && pending.length === 0 ? `${node}: ${words}` : `${staged}, and ${words}`;
  });
  const refused = foreign && !spec.reloadForeignChanges ? [FOREIGN_REFUSED] : [];
  const summary = [...parts, ...refused].join('; ');
  const converges = unconverged || refused.length > 0 ? { converges: false as const } : {};
  return { inSync: Object.keys(diff).length === 0, summary, diff, ...converges };
};

/** What the reading adds while a node holds what someone else staged: the apply refuses (foreignRefusal). */
export const FOREIGN_REFUSED =
  "the apply refuses to reload while someone else's changes are staged (reloadForeignChanges: false)";

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
