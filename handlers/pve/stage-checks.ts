/**
 * What PVE refuses of a stage, checked before anything is sent: the plan's reading fails naming each refusal
 * (refuse*), and an apply about to stage stops before its write (requireAccepted), so neither promises nor
 * half-makes a change PVE answers with a 400 or its writer's error.
 */
import { HandlerError } from '../../src/core/errors';
import { mtuConflicts, nodeView } from '../../src/pve/interface-mtu';
import { uniqueRefusals } from '../../src/pve/interface-unique';
import { writerConflicts } from '../../src/pve/interface-writer';
import { asWritten, diffInterface, findInterface, isInSync } from '../../src/pve/network-interface-diff';
import type { NetworkInterfaceSpec } from '../../src/pve/network-interface';
import { describeStuck, stagingOrder } from '../../src/pve/stage-order';

/** Each declared node's interface rows, or the error reading them. */
export type RowsByNode = ReadonlyMap<string, unknown[] | Error>;

const MTU_FIX = 'Raise the lower mtu or lower the higher one, on the node or where this stack declares that interface';
const UNIQUE_FIX = 'Remove it there (on the node, or where this stack declares that interface) or here';
const WRITER_FIX = 'Fix it on the node or where this stack declares that interface';
const WRITER_REFUSES = ", and PVE's writer refuses any stage on the node while one holds";

/** One rule of PVE an apply checks: the refusals a stage of `spec` over `rows` meets, why they stop it, the fix. */
interface StageRule {
  readonly refusals: (spec: NetworkInterfaceSpec, rows: unknown[]) => string[];
  readonly why: string;
  readonly fix: string;
}

/** In PVE's order: the API's own checks (interface-unique.ts), then its writer's over the whole file. */
const STAGE_RULES: readonly StageRule[] = [
  { refusals: (spec, rows) => uniqueRefusals(nodeView(rows, []), spec), why: '', fix: UNIQUE_FIX },
  { refusals: (spec, rows) => mtuConflicts(nodeView(rows, [spec])), why: WRITER_REFUSES, fix: MTU_FIX },
  { refusals: (spec, rows) => writerConflicts(nodeView(rows, [spec])), why: WRITER_REFUSES, fix: WRITER_FIX },
];

/** An apply about to stage never sends what PVE would refuse, as its plan said: the first rule broken fails it. */
export const requireAccepted = (spec: NetworkInterfaceSpec, rows: unknown[]): void => {
  for (const { refusals, why, fix } of STAGE_RULES) {
    const refused = refusals(spec, rows);
    if (refused.length === 0) continue;
    throw new HandlerError(
      `interface ${spec.iface} on ${spec.node} cannot be staged`,
      `${refused.join('; ')}${why}; nothing was staged. ${fix}; then apply again`,
    );
  }
};

/** The plan's checks of PVE's rules over every declared node, in the order the reading runs them. */
export const refuseStages = (specs: readonly NetworkInterfaceSpec[], rows: RowsByNode): void => {
  refuseUnique(specs, rows);
  refuseWriter(specs, rows);
  refuseMtu(specs, rows);
};

/** The interfaces of `specs` on `node` whose stage sends anything: those not in sync with the node's row. */
const stagedOn = (specs: readonly NetworkInterfaceSpec[], node: string, live: unknown) =>
  specs.filter(
    (spec) => spec.node === node && !isInSync(diffInterface(asWritten(spec, live), findInterface(live, spec.iface))),
  );

/** `on <node>: <conflicts>` for each node where the batch stages anything and its end state breaks `check`. */
const nodeConflicts = (
  specs: readonly NetworkInterfaceSpec[],
  rows: RowsByNode,
  check: (view: ReturnType<typeof nodeView>) => string[],
): string[] =>
  [...rows].flatMap(([node, live]) => {
    if (live instanceof Error || stagedOn(specs, node, live).length === 0) return [];
    const conflicts = check(
      nodeView(
        live,
        specs.filter((spec) => spec.node === node),
      ),
    );
    return conflicts.length === 0 ? [] : [`on ${node}: ${conflicts.join(', ')}`];
  });

/**
 * Fails the read, so the plan, naming each bridge port holding an address and each bond slave of a type PVE's writer
 * refuses (interface-writer.ts) on a node where the batch stages anything, what it declares there counted as declared.
 */
const refuseWriter = (specs: readonly NetworkInterfaceSpec[], rows: RowsByNode): void => {
  const refused = nodeConflicts(specs, rows, writerConflicts);
  if (refused.length === 0) return;
  throw new HandlerError(
    "Network interfaces break a rule of PVE's writer",
    `${refused.join('; ')}; PVE's writer refuses any stage on a node where one holds, so nothing can be applied ` +
      `there. ${WRITER_FIX}; then plan again`,
  );
};

/**
 * Fails the read, so the plan, naming each interface the batch stages whose gateway or port another interface of
 * the node would still hold once the batch is applied (what it declares there counted as declared): PVE refuses
 * that stage with a 400 whatever the order, so a plan that passed would promise an apply that cannot succeed.
 */
const refuseUnique = (specs: readonly NetworkInterfaceSpec[], rows: RowsByNode): void => {
  const refused = [...rows].flatMap(([node, live]) => {
    if (live instanceof Error) return [];
    const end = nodeView(
      live,
      specs.filter((spec) => spec.node === node),
    );
    return stagedOn(specs, node, live).flatMap((spec) => uniqueRefusals(end, spec));
  });
  if (refused.length === 0) return;
  throw new HandlerError(
    'Network interfaces would be refused by PVE',
    `${refused.join('; ')}. ${UNIQUE_FIX}; then plan again`,
  );
};

/**
 * Fails the read, so the plan, naming each pair of interfaces whose mtus PVE's writer refuses (interface-mtu.ts) on
 * a node where the batch stages anything, with what it declares there counted as declared; then, when the end state
 * passes, each node where no order of the stages the apply makes keeps every staged file passing (stage-order.ts).
 */
const refuseMtu = (specs: readonly NetworkInterfaceSpec[], rows: RowsByNode): void => {
  const refused = nodeConflicts(specs, rows, mtuConflicts);
  if (refused.length > 0) {
    throw new HandlerError(
      'Network interfaces have an mtu PVE refuses',
      `${refused.join('; ')}; PVE's writer refuses any stage on a node where one holds, so nothing can be applied ` +
        `there. ${MTU_FIX}; then plan again`,
    );
  }
  const stuck = [...rows].flatMap(([node, live]) => {
    const { stuck: left } = live instanceof Error ? {} : stagingOrder(live, stagedOn(specs, node, live));
    return left === undefined ? [] : [{ unique: left.unique, said: describeStuck(node, left) }];
  });
  if (stuck.length === 0) return;
  const unique = stuck.some((left) => left.unique);
  throw new HandlerError(
    `Network interfaces cannot be staged one at a time within PVE's ${unique ? 'rules' : 'mtu rule'}`,
    `${stuck.map((left) => left.said).join('; ')}. ` +
      (unique
        ? 'PVE checks the whole file at every stage, so the apply would stop part-way. Make the change over two ' +
          'applies (one letting go, then one taking), or fix the node by hand; then plan again'
        : "PVE's writer checks the whole file at every stage, so the apply would stop part-way. Change these mtus " +
          'over two applies, or fix the node by hand; then plan again'),
  );
};
