/**
 * How a stack's network interfaces and its network apply objects find each other, in whichever
 * order they are declared: an apply follows every interface on its nodes (it runs after them, and
 * again whenever one changed), and each of those interfaces is torn down before the apply's own
 * teardown reload runs. Without this, a new bridge would stay staged until a second apply. On one
 * node, an interface is staged after those it names (a bridge after its bond port, a VLAN after its
 * bridge) and removed before them: PVE refuses a bridge whose port does not exist yet (the batch apply
 * stages one first when PVE's mtu rule asks and its port exists: handlers/pve/stage-order.ts). A second
 * declaration of one interface is one of the app's problems: the two would stage over each other on every apply.
 */
import type { Construct } from 'constructs';
import { broken } from '../../src/core/rules';
import { dependable, TerraformStack } from '../core/cdk';
import { addressName } from '../core/object-address';
import { recordProblems } from '../core/problems';
import { removedObjects } from '../core/tombstones';
import type { ManagedObject } from '../core/managed-object';
import { unresolved } from '../core/validate';
import type { ProxmoxCluster } from './cluster';

/** What names an interface in a stack: one declaration per cluster, node and name. */
export interface InterfaceName {
  readonly cluster: ProxmoxCluster;
  readonly node: string;
  readonly iface: string;
}

export interface StagingObject extends InterfaceName {
  /** The interfaces it names: bridge ports, bond slaves, a VLAN's raw device. */
  readonly references: readonly string[];
  readonly object: ManagedObject;
}

export interface ApplyObject {
  readonly cluster: ProxmoxCluster;
  readonly nodes: readonly string[];
  readonly object: ManagedObject;
  /** The staging objects it follows, filled as they are declared; its spec names their interfaces. */
  readonly staged: StagingObject[];
}

/** A staging object with the path of the construct that declared it, for the duplicate's message. */
type Declared = StagingObject & { readonly path: string };

const stacks = new WeakMap<TerraformStack, { stagings: Declared[]; applies: ApplyObject[] }>();

const wiringOf = (scope: Construct) => {
  const stack = TerraformStack.of(scope);
  const wiring = stacks.get(stack) ?? { stagings: [], applies: [] };
  stacks.set(stack, wiring);
  return wiring;
};

const covers = (apply: ApplyObject, staging: StagingObject): boolean =>
  apply.cluster === staging.cluster && apply.nodes.includes(staging.node);

/**
 * The apply follows the staging (it is applied after it, and whenever it is); the staging's
 * lifecycle depends on the apply's, so `terraform destroy` stages the removal first and the
 * apply's teardown reload comes after it.
 */
const link = (apply: ApplyObject, staging: StagingObject): void => {
  apply.staged.push(staging);
  const { lifecycle } = staging.object;
  lifecycle.dependsOn = [...(lifecycle.dependsOn ?? []), dependable(apply.object.lifecycle)];
};

/** Whether `a` names `b`, both on one node of one cluster. */
const names = (a: StagingObject, b: StagingObject): boolean =>
  a.cluster === b.cluster && a.node === b.node && a.references.includes(b.iface);

/**
 * Records a second declaration of an interface as a problem: the two would stage over each other, and
 * every apply would reload the node. A name Terraform only knows at apply is not judged.
 */
export const refuseDuplicate = (scope: Construct, { cluster, node, iface }: InterfaceName): void => {
  if (unresolved(node) || unresolved(iface)) return;
  const first = wiringOf(scope).stagings.find((s) => s.cluster === cluster && s.node === node && s.iface === iface);
  if (first === undefined) return;
  const rule = `declared once per node (${first.path} declares it on ${node} too)`;
  recordProblems(scope, [broken('iface', rule, iface)]);
};

/**
 * Registers a staging object, links it to the apply objects already declared on its node, and
 * orders it against the interfaces it names or that name it.
 */
export const registerStaging = (scope: Construct, staging: StagingObject): void => {
  const wiring = wiringOf(scope);
  for (const other of wiring.stagings) {
    if (names(staging, other)) staging.object.applyAfter(other.object);
    if (names(other, staging)) other.object.applyAfter(staging.object);
  }
  wiring.stagings.push({ ...staging, path: scope.node.path });
  for (const apply of wiring.applies) if (covers(apply, staging)) link(apply, staging);
};

/**
 * Per node of `nodes`, the interfaces of `cluster` removed from the stack, whose deletion the apply
 * makes live (README, Removing an object); nothing when there are none, so the spec stays as it was.
 */
export const removedInterfaces = (scope: Construct, cluster: ProxmoxCluster, nodes: readonly string[]) => {
  const label = addressName(cluster);
  const removing: Record<string, string[]> = {};
  for (const [, object] of removedObjects(scope)) {
    const { node, iface } = object.identity ?? {};
    const wanted = object.kind === 'network-interface' && object.state === 'removed' && object.target === label;
    if (!wanted || typeof node !== 'string' || typeof iface !== 'string' || !nodes.includes(node)) continue;
    removing[node] = [...(removing[node] ?? []), iface].sort();
  }
  return Object.keys(removing).length === 0 ? {} : { removing };
};

/** Registers an apply object and links the staging objects already declared on its nodes. */
export const registerApply = (scope: Construct, apply: ApplyObject): void => {
  const wiring = wiringOf(scope);
  wiring.applies.push(apply);
  for (const staging of wiring.stagings) if (covers(apply, staging)) link(apply, staging);
};
