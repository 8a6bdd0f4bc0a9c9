/**
 * A `ManagedObject` of a made-up `widget` kind on one PVE-shaped target, for the tests of the
 * managed-object pattern itself: each test overrides only what it is about.
 */
import { Construct } from 'constructs';
import { ManagedObject } from '../../../../constructs/core/managed-object';

const TARGET = { endpoints: ['https://n1:8006'], tokenEnv: 'T' };

/** A widget `id` under `scope/id/Object`, so its Terraform name is the path below the stack. */
export const objectIn = (
  scope: Construct,
  id: string,
  over: Partial<ConstructorParameters<typeof ManagedObject>[2]> = {},
): ManagedObject =>
  new ManagedObject(new Construct(scope, id), 'Object', {
    domain: 'pve',
    kind: 'widget',
    target: TARGET,
    identity: { id },
    spec: { id, size: 3 },
    ...over,
  });
