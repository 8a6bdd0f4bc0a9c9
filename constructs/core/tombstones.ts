/**
 * Tombstones (README, Removing an object): at synth, the stacks' record is read, every object it
 * holds that the code no longer declares gets a `removed` block running its destroy hook, and the
 * record is written back. Without them, deleting a construct would plan `will be destroyed` while
 * Terraform, having no hook left to run, leaves the object on its target.
 */
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { isAbsolute, join, relative, resolve } from 'node:path';
import type { Construct, IConstruct } from 'constructs';
import { Aspects, TerraformStack } from './cdk';
import { handlerAsset } from './handler-asset';
import {
  type DeclaredEntry,
  lifecycleAddress,
  nextStackRecord,
  parseRecord,
  RECORD_FILE,
  type RecordedObject,
  type RecordedTarget,
  recordText,
  type StackRecord,
  tombstones,
} from '../../src/core/object-record';
import { hasToken } from './encode';
import { destroyHook } from './object-address';
import { removedBlocks } from './removed-blocks';

const declaredBy = new WeakMap<TerraformStack, DeclaredEntry[]>();
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

/** Notes that the stack declares an object (or forgets it): the record keeps it from this synth on. */
export const noteObject = (scope: Construct, entry: DeclaredEntry): void => {
  const stack = watchStack(scope);
  declaredBy.set(stack, [...(declaredBy.get(stack) ?? []), entry]);
};

/** What the record keeps of a target: settings holding a Terraform value stay in the lifecycle instead. */
export const recordedTarget = (
  domain: string,
  bundle: string | undefined,
  settings: Readonly<Record<string, unknown>>,
): RecordedTarget => ({
  domain,
  ...(bundle === undefined ? {} : { bundle }),
  settings: hasToken(settings) ? null : { ...settings },
});

/**
 * The record's path: beside cdktf.json in the working directory, where cdktf-cli and cdktn-cli run
 * the app, when the app writes its output there too. Elsewhere (a test's `Testing.app()`, which
 * writes to a temporary folder) no record is kept and nothing is planned for removal.
 */
const recordPath = (app: IConstruct): string | undefined => {
  const project = process.cwd();
  const outdir = (app as { outdir?: unknown }).outdir;
  if (typeof outdir !== 'string' || !existsSync(join(project, 'cdktf.json'))) return undefined;
  const below = relative(project, resolve(project, outdir));
  return below.startsWith('..') || isAbsolute(below) ? undefined : join(project, RECORD_FILE);
};

/** Once per app, before the first stack is written: every stack of the app, so each gets its blocks in time. */
const tombstoneApp = (first: TerraformStack): void => {
  const app = first.node.root;
  const path = recordPath(app);
  if (done.has(app) || path === undefined) return;
  done.add(app);
  const text = existsSync(path) ? readFileSync(path, 'utf8') : undefined;
  const record = parseRecord(text, path);
  const stacks = app.node.findAll().filter((node): node is TerraformStack => TerraformStack.isStack(node));
  for (const stack of stacks) {
    const id = stack.node.id;
    const last = Object.hasOwn(record.stacks, id) ? record.stacks[id] : undefined;
    const declared = declaredBy.get(stack) ?? [];
    const next = nextStackRecord(last, declared);
    if (Object.keys(next.objects).length === 0) continue;
    record.stacks[id] = next;
    const removed = tombstones(next, declared);
    removedBy.set(stack, removed);
    for (const [name, object] of removed) addTombstone(stack, name, object, next);
  }
  const written = recordText(record);
  if (written !== text) writeFileSync(path, written);
};

/** `removed` with the destroy hook the object was created with, or, forgotten, without destroying. */
const addTombstone = (stack: TerraformStack, name: string, object: RecordedObject, record: StackRecord): void => {
  const from = lifecycleAddress(name);
  if (object.state === 'forgotten') {
    removedBlocks(stack).push({ from, lifecycle: { destroy: false } });
    return;
  }
  const target: RecordedTarget | undefined = record.targets[object.target];
  const handler = handlerAsset(stack, target?.domain ?? '', target?.bundle).path;
  const hook = destroyHook(handler, object.kind, target?.settings ?? undefined, object.target, object.adopt === true);
  removedBlocks(stack).push({ from, lifecycle: { destroy: true }, provisioner: [{ 'local-exec': hook }] });
};
