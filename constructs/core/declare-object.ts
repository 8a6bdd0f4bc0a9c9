/**
 * The one place a built-in object construct becomes Terraform: its domain comes from the kinds
 * registry, its batch is named after its target construct, and it is managed, retired or forgotten,
 * so every kind does these the same way. Two constructs naming one object on one target are refused
 * here, naming both, among the app's problems (problems.ts): they would fight, and the plan would never
 * settle (issue 29: two metric servers with one id planned `1 to add, 1 to destroy` on every run).
 */
import type { Construct } from 'constructs';
import { domainOf, type KindName, ownershipOf } from '../../src/core/registry';
import { broken } from '../../src/core/rules';
import { ADOPT_CONTEXT, ManagedObject, type ManagedObjectProps } from './managed-object';
import { addressName } from './object-address';
import { recordProblems } from './problems';
import { RetiredObject } from './retired-object';
import { unresolved } from './validate';

export interface DeclaredObject extends Omit<
  ManagedObjectProps,
  'domain' | 'kind' | 'batchLabel' | 'handlerBundle' | 'ownership'
> {
  readonly kind: KindName;
  /** The construct holding the connection (a `ProxmoxCluster`, an `SshHost`): the batch is named after it. */
  readonly targetConstruct: Construct;
  readonly retired?: boolean;
  readonly forget?: boolean;
  /**
   * What names the object on its target, for the refusal of a second construct naming it: the prop, its
   * value, and the name space it is unique in (kinds sharing one, as units and instances share unit names).
   * A value holding a Terraform value is not compared.
   *
   * @default - not compared
   */
  readonly unique?: { readonly prop: string; readonly value: unknown; readonly among: string };
}

const claims = new WeakMap<Construct, Map<string, string>>();

/** Records a second construct naming the object `unique` names on `target` as a problem, naming the first. */
const claimUnique = (scope: Construct, target: Construct, unique: DeclaredObject['unique']): void => {
  if (unique === undefined || typeof unique.value !== 'string' || unresolved(unique.value)) return;
  const taken = claims.get(target) ?? new Map<string, string>();
  claims.set(target, taken);
  const key = `${unique.among}\0${unique.value}`;
  const first = taken.get(key);
  if (first === undefined) {
    taken.set(key, scope.node.path);
    return;
  }
  const rule = `unique among the ${unique.among} of ${target.node.path} (${first} declares it too)`;
  recordProblems(scope, [broken(unique.prop, rule, unique.value)]);
};

/** A kind that cannot be retired nor forgotten gets its `ManagedObject`, typed as one. */
export function declareObject(
  scope: Construct,
  props: DeclaredObject & { readonly retired?: never; readonly forget?: never },
): ManagedObject;
/** A `ManagedObject`, or its `RetiredObject` when `retired` or `forget` is true. */
export function declareObject(scope: Construct, props: DeclaredObject): ManagedObject | RetiredObject;
export function declareObject(scope: Construct, props: DeclaredObject): ManagedObject | RetiredObject {
  const { targetConstruct, retired, forget, unique, ...object } = props;
  claimUnique(scope, targetConstruct, unique);
  const domain = domainOf(props.kind);
  const batchLabel = addressName(targetConstruct);
  return retired === true || forget === true
    ? new RetiredObject(scope, 'Object', {
        domain,
        kind: props.kind,
        name: props.name,
        target: props.target,
        batchLabel,
        identity: props.identity,
        forget,
        adopt: (props.adopt ?? scope.node.tryGetContext(ADOPT_CONTEXT)) === true,
      })
    : new ManagedObject(scope, 'Object', { ...object, domain, batchLabel, ownership: ownershipOf(props.kind) });
}
