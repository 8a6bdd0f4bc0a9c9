/**
 * The objects a plan removes on one target, which its batch read is told of (`.removing`: src/core/batch-removals.ts)
 * so the plan says what their destroys do besides: those deleted from the code (tombstones.ts) and those retired,
 * of the kinds whose destroy may do more (KINDS' `readsRemoval`). Without it, a template drop-in's destroy restarted
 * instances its plan never named.
 */
import type { Construct } from 'constructs';
import { isKindName, readsRemoval } from '../../src/core/registry';
import { TerraformStack } from './cdk';
import { hasToken } from './encode';
import { removedObjects } from './tombstones';

/** One object the plan removes, as the read's query names it. */
interface Removing {
  readonly kind: string;
  readonly identity: Readonly<Record<string, unknown>>;
  readonly adopt?: true;
}

const retiredBy = new WeakMap<TerraformStack, Array<Removing & { readonly name: string; readonly label: string }>>();

/** Notes a retired object (not forgotten) on the target of `label`, with its identity and whether it may be adopted. */
export const noteRetired = (
  scope: Construct,
  retired: { name: string; kind: string; label: string; identity: Readonly<Record<string, unknown>>; adopt: boolean },
): void => {
  const stack = TerraformStack.of(scope);
  const { adopt, ...rest } = retired;
  retiredBy.set(stack, [...(retiredBy.get(stack) ?? []), { ...rest, ...(adopt ? { adopt: true as const } : {}) }]);
};

/**
 * The objects of the target of `label` that the plan removes and whose kind's read says what their removal does, by
 * name: a tombstone with the identity its record holds (never adopted: the record is anyone's to edit), a retired
 * object with its own. One whose identity holds a Terraform value is left out: the read could not know it.
 */
export const removingOn = (scope: Construct, label: string): Record<string, Removing> => {
  const removing: Record<string, Removing> = {};
  const wanted = (kind: string, identity: unknown): identity is Readonly<Record<string, unknown>> =>
    isKindName(kind) && readsRemoval(kind) && identity !== undefined && !hasToken(identity);
  for (const [name, object] of removedObjects(scope)) {
    const { kind, identity } = object;
    if (object.state === 'removed' && object.target === label && wanted(kind, identity)) {
      removing[name] = { kind, identity };
    }
  }
  for (const { name, label: on, ...object } of retiredBy.get(TerraformStack.of(scope)) ?? []) {
    if (on === label && wanted(object.kind, object.identity)) removing[name] = object;
  }
  return removing;
};
