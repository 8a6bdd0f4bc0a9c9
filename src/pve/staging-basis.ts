/**
 * What a plan read of each node a network apply reloads, which its apply must still find before it reloads: a row
 * staged by hand after the plan (an mtu in the web UI on an interface the plan read in sync) went live with the
 * stack's own changes, though the plan named no change to it. The plan's reading travels as the apply's basis
 * (Reading.basis); the apply reloads no node whose rows, but for those the same apply staged, read otherwise.
 */
import * as z from 'zod/mini';
import { canonicalJson } from '../core/canonical';
import type { HandlerError } from '../core/errors';
import { notAsPlanned } from '../core/not-as-planned';
import { parseAs, parseJson } from '../core/parse';
import { isRecord } from '../core/records';
import { HIDDEN_TYPES } from './bridge-sight';
import { rowDigest } from './interface-basis';
import type { NodeStaging } from './network-changes';

/** A node the plan could not read: what it has staged was never shown, so nothing of it may go live unsaid. */
const UNREAD = 'unread';
const AUTO = ' auto';
const BRIDGE = ' bridge';

/**
 * Per node, each listed row as its digest (rowDigest), whether it is `auto` and whether it is of a type PVE lists
 * only to a token with SDN rights on it; UNREAD for a node not read. `token`: the token the plan read with
 * (PveApi.tokenName), which names no secret.
 */
const stagingBasisSchema = z.object({
  token: z.optional(z.string()),
  nodes: z.record(z.string(), z.union([z.literal(UNREAD), z.record(z.string(), z.string())])),
});
export type StagingBasis = z.infer<typeof stagingBasisSchema>;

/**
 * A node's rows (the staged view while interfaces.new exists, so a row reads the same staged or live) by name: the
 * row's digest without `autostart`, which follows as ` auto` when set, since staging a bond makes PVE's writer mark
 * its slaves `auto` (network-apply.ts, bySomeoneElse), a move of the stack's own. Never a free line (`options`:
 * `wpa-psk`, `pre-up`) nor a digest over one: only what interfaceBasis keeps of a row.
 */
const nodeRows = (rows: readonly unknown[]): Record<string, string> =>
  Object.fromEntries(
    rows.flatMap((row) =>
      isRecord(row) && typeof row.iface === 'string'
        ? [[row.iface, `${rowDigest(row, ['autostart'])}${isOn(row.autostart) ? AUTO : ''}${hidden(row)}`]]
        : [],
    ),
  );

const isOn = (value: unknown): boolean => value === 1 || value === '1' || value === true;
const hidden = (row: Readonly<Record<string, unknown>>): string =>
  typeof row.type === 'string' && HIDDEN_TYPES.has(row.type) ? BRIDGE : '';

/**
 * The apply's basis over the nodes it reloads: the plan's NodeStaging of each, or none for one it could not read,
 * and the token it read them with.
 */
export const stagingBasis = (
  nodes: readonly string[],
  read: (node: string) => NodeStaging | undefined,
  token: string | undefined,
): string => {
  const rows = nodes.map((node) => {
    const staging = read(node);
    return [node, staging === undefined ? UNREAD : nodeRows(staging.rows ?? [])] as const;
  });
  return canonicalJson({ nodes: Object.fromEntries(rows), ...(token === undefined ? {} : { token }) });
};

/** The plan's basis as the apply resource hands it over; anything else is refused, never taken for no basis. */
export const parseStagingBasis = (text: string): StagingBasis =>
  parseAs(stagingBasisSchema, parseJson(text, 'the network apply basis'), 'the network apply basis');

/** What the same apply staged on a node, which may read otherwise than the plan read it. */
export interface OwnStages {
  /** Interfaces it staged or staged the removal of. */
  readonly interfaces: ReadonlySet<string>;
  /** Slaves of a bond it staged: their `auto` is the writer's move, the rest of the row is not. */
  readonly slaves: ReadonlySet<string>;
}

/** The names of the rows that moved, or UNREAD for a node the plan did not read. */
export type Moved = readonly string[] | typeof UNREAD;

/**
 * The rows of `node` that read otherwise now, read with `token`, than the plan read them, sorted, leaving out what
 * the same apply staged (`own`); UNREAD when the plan did not read the node. Undefined when the node reads as
 * planned. Read with another token than the plan's (a read identity, a minted token), a bridge listed on one side
 * only counts for nothing: PVE lists a bridge only to a token with SDN rights on it, so either may miss it.
 */
export const movedRows = (
  planned: StagingBasis,
  node: string,
  staging: NodeStaging,
  own: OwnStages,
  token: string | undefined,
): Moved | undefined => {
  const before = Object.hasOwn(planned.nodes, node) ? planned.nodes[node] : UNREAD;
  if (before === undefined || before === UNREAD) return UNREAD;
  const now = nodeRows(staging.rows ?? []);
  const names = new Set([...Object.keys(before), ...Object.keys(now)]);
  const seen = (rows: Readonly<Record<string, string>>, name: string) =>
    Object.hasOwn(rows, name) ? rows[name] : undefined;
  const sameSight = planned.token !== undefined && planned.token === token;
  const moved = [...names]
    .filter((name) => !own.interfaces.has(name))
    .filter((name) => {
      const [was, is] = [seen(before, name), seen(now, name)];
      if (!sameSight && (was ?? is)?.endsWith(BRIDGE) === true && (was === undefined || is === undefined)) return false;
      return own.slaves.has(name) ? was?.replace(AUTO, '') !== is?.replace(AUTO, '') : was !== is;
    })
    .sort();
  return moved.length === 0 ? undefined : moved;
};

/**
 * Why the network apply reloads none of `moved`'s nodes: each one's rows read otherwise than the plan read them.
 * `left`: what was and was not reloaded.
 */
export const stagingRefusal = (
  nodes: readonly string[],
  moved: ReadonlyArray<readonly [string, Moved]>,
  left: string,
): HandlerError => {
  const each = moved.map(([node, names]) =>
    names === UNREAD
      ? `on ${node}, what is staged could not be read by the plan`
      : `on ${node}, ${names.join(', ')} ${names.length === 1 ? 'reads' : 'read'} otherwise than the plan read ` +
        (names.length === 1 ? 'it' : 'them'),
  );
  return notAsPlanned(
    `Network apply of ${nodes.join(', ')}`,
    `${each.join(', and ')} (a field of a row in the node's view, an \`auto\` line, or an interface itself: ` +
      'staged or reverted by someone else), so a reload would make that live',
    left,
    'what each node has staged',
  );
};
