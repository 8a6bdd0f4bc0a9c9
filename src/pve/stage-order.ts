/**
 * The order an apply stages a node's interfaces in, which its plan checks: PVE's writer runs check_mtu over the whole
 * file at every stage ([PC] f665029 src/PVE/Network/Interfaces.pm:96-110; bond slaves :905, VLANs :982, bridge ports
 * :1027), so two linked mtus changed at once (a bridge and its port lowered, a bond and its bond slave raised) must be
 * staged in an order whose every file passes, or an apply that planned clean stops part-way on PVE's 500. Its API
 * also refuses a stage sending a gateway or a port another interface still holds (interface-unique.ts), so a gateway
 * or a port moved between two interfaces stages the one letting go first; and its writer's other whole-file rules
 * (interface-writer.ts) are kept at every stage as the mtu rule is.
 */
import { mtuConflicts, nodeView } from './interface-mtu';
import { uniqueRefusals } from './interface-unique';
import { writerConflicts } from './interface-writer';
import { dependedOn, findInterface, type NamingSpec } from './network-interface-diff';

/** A spec the order reads: its node and name, what it names and its mtu (`specOf`'s shape). */
interface OrderSpec extends NamingSpec {
  readonly node: string;
}

/** What each stage left when no next stage keeps the file within the rule. */
export interface StuckStage {
  /** The stages that passed, in order. */
  readonly staged: readonly string[];
  /** Each stage that could come next, with the pairs its file would break. */
  readonly next: ReadonlyArray<{ readonly iface: string; readonly refused: readonly string[] }>;
  /** Whether a refusal is of a gateway, a port or a type the API or the writer refuses, not only of an mtu. */
  readonly unique: boolean;
}

export interface StagingOrder<S> {
  /** Every spec, in the order to stage them; when `stuck`, those after `stuck.staged` in their base order. */
  readonly order: readonly S[];
  /** Set when no order keeps every staged file within the rule. */
  readonly stuck?: StuckStage;
}

/**
 * The names of `specs` each one must follow: an interface it names that the node lacks must be staged first,
 * since PVE refuses a stanza naming a missing one (Interfaces.pm:900, :969, :1023).
 */
const mustFollow = (rows: unknown, specs: readonly OrderSpec[]): Map<string, string[]> => {
  const declared = new Set(specs.map((spec) => spec.iface));
  const absent = (iface: string) => declared.has(iface) && findInterface(rows, iface) === undefined;
  return new Map(specs.map((spec) => [spec.iface, dependedOn(spec).filter(absent)]));
};

/** The base order: each interface after those it names (as synth orders them), otherwise by name. */
const baseOrder = <S extends OrderSpec>(specs: readonly S[]): S[] => {
  const byName = new Map(specs.map((spec) => [spec.iface, spec]));
  const placed = new Set<string>();
  const ordered: S[] = [];
  const place = (spec: S, path: ReadonlySet<string>) => {
    if (placed.has(spec.iface) || path.has(spec.iface)) return;
    for (const name of dependedOn(spec)) {
      const named = byName.get(name);
      if (named !== undefined) place(named, new Set(path).add(spec.iface));
    }
    placed.add(spec.iface);
    ordered.push(spec);
  };
  for (const spec of [...specs].sort((a, b) => (a.iface < b.iface ? -1 : a.iface > b.iface ? 1 : 0))) {
    place(spec, new Set());
  }
  return ordered;
};

/**
 * Stages one at a time: next, the first in base order whose predecessors are staged and whose file passes. check_mtu
 * reads pairs, so a stage that passes now only puts its pairs at their end state later, which the plan checks too:
 * this finds an order whenever one exists (and keeps the base order when it passes).
 */
export const stagingOrder = <S extends OrderSpec>(rows: unknown, specs: readonly S[]): StagingOrder<S> => {
  const follows = mustFollow(rows, specs);
  const pending = baseOrder(specs);
  const staged: S[] = [];
  // PVE's API refuses a duplicate before its writer runs, so a stage it refuses is refused in those words alone.
  const beyondMtu = (spec: S): string[] => {
    const refused = uniqueRefusals(nodeView(rows, staged), spec);
    return refused.length > 0 ? refused : writerConflicts(nodeView(rows, [...staged, spec]));
  };
  const refusedAfter = (spec: S): string[] => {
    const api = uniqueRefusals(nodeView(rows, staged), spec);
    const file = nodeView(rows, [...staged, spec]);
    return api.length > 0 ? api : [...writerConflicts(file), ...mtuConflicts(file)];
  };
  while (pending.length > 0) {
    const free = pending.filter((spec) => (follows.get(spec.iface) ?? []).every((name) => isStaged(staged, name)));
    // Only absent interfaces naming each other wait on each other; the missing-interface check refuses them first.
    const ready = free.length > 0 ? free : pending.slice(0, 1);
    const next = ready.find((spec) => refusedAfter(spec).length === 0);
    if (next === undefined) {
      const unique = ready.some((spec) => beyondMtu(spec).length > 0);
      const stuck = { staged: staged.map((spec) => spec.iface), next: ready.map(whatItLeaves(refusedAfter)), unique };
      return { order: [...staged, ...pending], stuck };
    }
    staged.push(next);
    pending.splice(pending.indexOf(next), 1);
  }
  return { order: staged };
};

const isStaged = (staged: readonly OrderSpec[], iface: string) => staged.some((spec) => spec.iface === iface);

const whatItLeaves =
  <S extends OrderSpec>(refusedAfter: (spec: S) => string[]) =>
  (spec: S) => ({ iface: spec.iface, refused: refusedAfter(spec) });

/** `on n2, with nothing staged yet, every stage leaves a pair PVE refuses: staging vmbr2 is refused as …`. */
export const describeStuck = (node: string, { staged, next }: StuckStage): string => {
  const so = staged.length === 0 ? 'nothing staged yet' : `${staged.join(', ')} staged first`;
  const each = next.map(({ iface, refused }) => `staging ${iface} is refused as ${refused.join(', ')}`);
  return `on ${node}, with ${so}, every stage leaves a pair PVE refuses: ${each.join('; ')}`;
};
