/**
 * Tombstones (README, Removing an object): at synth, the stacks' record is read, every object it
 * holds that the code no longer declares gets a `removed` block running its destroy hook, unless the code
 * declares it under a new name (its lifecycle then moves: object-moves.ts), and the record is written back.
 * Without them, deleting a construct would plan `will be destroyed` while Terraform, having no hook left to
 * run, leaves the object on its target.
 *
 * The record is anyone's to edit in a pull request, so a tombstone takes from it only a name, a kind
 * checked against its target's domain and a target label; the handler, the bundle and the target's
 * settings come from the construct the code still declares under that label, or synth refuses the
 * entry (issue 27: an edited kind ran as shell text, an edited endpoint received the PVE token).
 */
import type { Construct, IConstruct } from 'constructs';
import { Aspects, TerraformStack } from './cdk';
import { handlerAsset, hookHandler } from './handler-asset';
import {
  type DeclaredEntry,
  lifecycleAddress,
  lifecycleMoves,
  nextStackRecord,
  type RecordedObject,
  tombstones,
} from '../../src/core/object-record';
import { objectMoves } from '../../src/core/object-moves';
import { DOMAINS, type DomainName, kindsOf } from '../../src/core/registry';
import { destroyHook } from './object-address';
import { stackIdOf } from './stack-identity';
import { movedBlocks, removedBlocks } from './removed-blocks';
import { recordPath, updateRecord } from './record-file';
import { appProblems, hasProblems } from './problems';

/** A target as the code declares it: where a tombstone's hook runs, and with which settings. */
export interface CodeTarget {
  readonly domain: string;
  /** The handler bundle's path, for a domain of one's own. */
  readonly bundle?: string;
  readonly settings: Readonly<Record<string, unknown>>;
}

/** Whether `name` is a built-in domain's: a guard, as the record's text may name any. */
const isDomainName = (name: string): name is DomainName => Object.hasOwn(DOMAINS, name);

const declaredBy = new WeakMap<TerraformStack, DeclaredEntry[]>();
/** Per stack, the targets its objects declare, then those its target constructs declare. */
const targetsBy = new WeakMap<
  TerraformStack,
  { objects: Map<string, CodeTarget>; constructs: Map<string, CodeTarget> }
>();
const removedBy = new WeakMap<TerraformStack, Array<[string, RecordedObject]>>();

/**
 * The objects the stack removed (by name), known from the synth's aspect on: a spec function may
 * ask, as a network apply asks for the interfaces whose deletion it must make live.
 */
export const removedObjects = (scope: Construct): ReadonlyArray<readonly [string, RecordedObject]> =>
  removedBy.get(TerraformStack.of(scope)) ?? [];
const done = new WeakSet<IConstruct>();

const watched = new WeakSet<TerraformStack>();

/**
 * Makes the stack plan the removals of its app at synth and write the record: every target
 * construct and every object calls it, so a stack whose last object was deleted still plans its removal.
 */
export const watchStack = (scope: Construct): TerraformStack => {
  const stack = TerraformStack.of(scope);
  if (!watched.has(stack)) {
    watched.add(stack);
    Aspects.of(stack).add({ visit: (node) => (node === stack ? tombstoneApp(stack) : undefined) });
  }
  return stack;
};

const targetsOf = (stack: TerraformStack) => {
  const targets = targetsBy.get(stack) ?? { objects: new Map<string, CodeTarget>(), constructs: new Map() };
  targetsBy.set(stack, targets);
  return targets;
};

/**
 * Notes the target a target construct (`ProxmoxCluster`, `SshHost`, `KubeCluster`) declares under
 * `label`: the tombstones of removed objects on it run their hooks there, also once the stack declares
 * no object on it any more. An object's own target, when it declares one, comes first.
 */
export const noteTarget = (scope: Construct, label: string, target: CodeTarget): void => {
  const { constructs } = targetsOf(watchStack(scope));
  if (!constructs.has(label)) constructs.set(label, target);
};

/** Notes that the stack declares an object (or forgets it) on `target`: the record keeps it from this synth on. */
export const noteObject = (scope: Construct, entry: DeclaredEntry, target: CodeTarget): void => {
  const stack = watchStack(scope);
  const { objects } = targetsOf(stack);
  if (!objects.has(entry.label)) objects.set(entry.label, target);
  declaredBy.set(stack, [...(declaredBy.get(stack) ?? []), entry]);
};

/** The targets the code declares in `stack`, by label. */
const codeTargets = (stack: TerraformStack): ReadonlyMap<string, CodeTarget> => {
  const { objects, constructs } = targetsOf(stack);
  return new Map([...constructs, ...objects]);
};

/**
 * Once per app, before the first stack is written: every stack of the app, so each gets its blocks in time.
 * An app with problems fails here, before the record is written: its refused constructs declared nothing,
 * and the record would take their objects for removed.
 */
const tombstoneApp = (first: TerraformStack): void => {
  const app = first.node.root;
  if (hasProblems(app)) throw appProblems(app);
  if (done.has(app)) return;
  done.add(app);
  const path = recordPath(app);
  if (path === undefined) return;
  const stacks = app.node.findAll().filter((node): node is TerraformStack => TerraformStack.isStack(node));
  updateRecord(path, (record) => {
    const problems: string[] = [];
    const planned: Array<() => void> = [];
    for (const stack of stacks) {
      const id = stack.node.id;
      const last = Object.hasOwn(record.stacks, id) ? record.stacks[id] : undefined;
      const declared = declaredBy.get(stack) ?? [];
      const next = nextStackRecord(last, declared, objectMoves(last, declared));
      if (Object.keys(next.objects).length === 0) continue;
      record.stacks[id] = next;
      const moves = lifecycleMoves(next, new Set(declared.flatMap((entry) => (entry.resend ? [entry.name] : []))));
      if (moves.length > 0) planned.push(() => movedBlocks(stack).push(...moves));
      const removed = tombstones(next, declared);
      const targets = codeTargets(stack);
      for (const [name, object] of removed) {
        const problem = refusal(id, name, object, targets);
        if (problem !== undefined) problems.push(problem);
        else planned.push(() => addTombstone(stack, name, object, targets.get(object.target)));
      }
      removedBy.set(stack, removed);
    }
    if (problems.length > 0) {
      throw new Error(
        `${path}: ${problems.length === 1 ? '' : `${problems.length} entries refused: `}${problems.join('; ')}`,
      );
    }
    for (const plan of planned) plan();
    return record;
  });
};

/**
 * Why the entry `name` of stack `id` cannot become a tombstone: its target is not declared by the
 * code (its settings would have to come from the record), or its kind is not one of that target's.
 * A forgotten object runs no hook, so it needs neither.
 */
const refusal = (
  id: string,
  name: string,
  object: RecordedObject,
  targets: ReadonlyMap<string, CodeTarget>,
): string | undefined => {
  if (object.state === 'forgotten') return undefined;
  const entry = `stacks.${id}.objects.${name}`;
  const target = targets.get(object.target);
  if (target === undefined) {
    return (
      `${entry} names target "${object.target}", which no construct of stack ${id} declares now: ` +
      'a removed object is destroyed with the settings its target has in the code, never the record; keep its ' +
      'target construct (ProxmoxCluster, SshHost, KubeCluster) declared until an apply has removed it, then run ' +
      'npx cdktf-homelab prune-record'
    );
  }
  if (isDomainName(target.domain)) {
    const kinds: readonly string[] = kindsOf(target.domain);
    if (!kinds.includes(object.kind)) {
      return (
        `${entry}.kind must be a kind of target "${object.target}" (${kinds.join(', ')}), ` +
        `got ${JSON.stringify(object.kind)}: restore the record from version control`
      );
    }
  }
  return undefined;
};

/** `removed` with the destroy hook the object was created with, or, forgotten, without destroying. */
const addTombstone = (
  stack: TerraformStack,
  name: string,
  object: RecordedObject,
  target: CodeTarget | undefined,
): void => {
  const from = lifecycleAddress(name);
  if (object.state === 'forgotten' || target === undefined) {
    removedBlocks(stack).push({ from, lifecycle: { destroy: false } });
    return;
  }
  const handler = handlerAsset(stack, target.domain, target.bundle).path;
  // No `adopt`: the record is anyone's to edit, so only the state may prove an adoption (lifecycle-input.ts).
  const hook = destroyHook(hookHandler(stack, target.domain, handler), object.kind, target.settings, object.target, {
    stack: stackIdOf(stack),
  });
  removedBlocks(stack).push({ from, lifecycle: { destroy: true }, provisioner: [{ 'local-exec': hook }] });
};
