/**
 * What `cdktf-homelab prune-record` drops from a stack's record (README, Removing an object): a tombstone
 * (`removed`) or a forgotten object whose lifecycle has left Terraform's state. Its `removed` block is a
 * no-op from then on, yet every synth wrote it again and every plan read it, for as long as the record
 * lived. An entry whose lifecycle is still in the state is kept: its removal has not been applied yet, and
 * dropping it would leave the object on its target. Pure: the record and the state's addresses in.
 */
import { lifecycleAddress, type StackRecord } from '../core/object-record';

export interface PrunedStack {
  /** The stack's record without the dropped entries. */
  readonly record: StackRecord;
  /** Entries whose lifecycle left the state: dropped. */
  readonly dropped: readonly string[];
  /** Removed or forgotten entries whose lifecycle is still in the state: kept until an apply. */
  readonly waiting: readonly string[];
}

/** `stack` without the removed and forgotten entries whose lifecycle `inState` does not hold. */
export const prunedStack = (stack: StackRecord, inState: ReadonlySet<string>): PrunedStack => {
  const objects: StackRecord['objects'] = {};
  const dropped: string[] = [];
  const waiting: string[] = [];
  for (const [name, object] of Object.entries(stack.objects).sort(([a], [b]) => (a < b ? -1 : 1))) {
    if (object.state === 'declared') objects[name] = object;
    else if (inState.has(lifecycleAddress(name))) {
      objects[name] = object;
      waiting.push(name);
    } else dropped.push(name);
  }
  return { record: { objects }, dropped, waiting };
};

/** Whether `stack` holds anything prune-record could drop: a removed or forgotten entry. */
export const hasTombstones = (stack: StackRecord): boolean =>
  Object.values(stack.objects).some((object) => object.state !== 'declared');
