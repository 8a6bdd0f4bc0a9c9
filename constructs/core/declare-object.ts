/**
 * The one place an object construct chooses between managing its object and retiring it, so every
 * kind retires the same way.
 */
import type { Construct } from 'constructs';
import { ManagedObject, type ManagedObjectProps } from './managed-object';
import { RetiredObject } from './retired-object';

/** A `ManagedObject`, or its `RetiredObject` when `retired` is true. */
export const declareObject = (
  scope: Construct,
  props: ManagedObjectProps & { readonly retired?: boolean },
): ManagedObject | RetiredObject =>
  props.retired
    ? new RetiredObject(scope, 'Object', { domain: props.domain, kind: props.kind, name: props.name })
    : new ManagedObject(scope, 'Object', props);
