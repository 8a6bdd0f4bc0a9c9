/**
 * The one place a built-in object construct becomes Terraform: its domain comes from the kinds
 * registry, its batch is named after its target construct, and it is managed, retired or forgotten,
 * so every kind does these the same way.
 */
import type { Construct } from 'constructs';
import { domainOf, type KindName, ownershipOf } from '../../src/core/registry';
import { ADOPT_CONTEXT, ManagedObject, type ManagedObjectProps } from './managed-object';
import { addressName } from './object-address';
import { RetiredObject } from './retired-object';

export interface DeclaredObject extends Omit<
  ManagedObjectProps,
  'domain' | 'kind' | 'batchLabel' | 'handlerBundle' | 'ownership'
> {
  readonly kind: KindName;
  /** The construct holding the connection (a `ProxmoxCluster`, an `SshHost`): the batch is named after it. */
  readonly targetConstruct: Construct;
  readonly retired?: boolean;
  readonly forget?: boolean;
}

/** A kind that cannot be retired nor forgotten gets its `ManagedObject`, typed as one. */
export function declareObject(
  scope: Construct,
  props: DeclaredObject & { readonly retired?: never; readonly forget?: never },
): ManagedObject;
/** A `ManagedObject`, or its `RetiredObject` when `retired` or `forget` is true. */
export function declareObject(scope: Construct, props: DeclaredObject): ManagedObject | RetiredObject;
export function declareObject(scope: Construct, props: DeclaredObject): ManagedObject | RetiredObject {
  const { targetConstruct, retired, forget, ...object } = props;
  const domain = domainOf(props.kind);
  const batchLabel = addressName(targetConstruct);
  return retired === true || forget === true
    ? new RetiredObject(scope, 'Object', {
        domain,
        kind: props.kind,
        name: props.name,
        target: props.target,
        batchLabel,
        forget,
        adopt: (props.adopt ?? scope.node.tryGetContext(ADOPT_CONTEXT)) === true,
      })
    : new ManagedObject(scope, 'Object', { ...object, domain, batchLabel, ownership: ownershipOf(props.kind) });
}
