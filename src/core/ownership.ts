/**
 * Adoption made explicit (README, Adoption): an object that exists on its target without this stack's
 * mark of ownership is named as such by the read, and the apply refuses it unless its construct says
 * `adopt: true`. Without this a hand-made object was taken over silently, and a later destroy deleted it.
 * Where the target has no place for a mark (a PVE metric server or interface), the stack's state keeps
 * ownership instead: the read reports `found` text for an object that exists, the object's lifecycle
 * records it only when it is created (`ignore_changes` on its input), and that record makes the apply
 * refuse the object and its destroy leave it, unless its construct says `adopt: true` (the apply entry
 * and the destroy hook carry that from the configuration).
 */
import { HandlerError } from './errors';
import type { KindContext, ObjectKind, Owned, Reading } from './kind';
import { isOtherStack, otherStackText } from './stack-id';

/** What the read says of an object the stack did not create, `adopt` as its construct says. */
export const foreignReading = (reading: Reading, adopt: boolean, where: string): Reading => {
  const drift = reading.inSync ? '' : `; ${reading.summary}`;
  return { ...reading, inSync: false, summary: `${notCreated(adopt, where)}${drift}`, ...refusedUnless(adopt) };
};

/**
 * What a lifecycle created now records of an object that exists. Only a lifecycle's creation records it,
 * when the stack first declares the object, so the text is true wherever it is recorded.
 */
export const foundReading = (reading: Reading, adopt: boolean, where: string): Reading => ({
  ...reading,
  found: notCreated(adopt, where),
});

const notCreated = (adopt: boolean, where: string): string =>
  `exists on ${where}, not created by this stack: ${
    adopt
      ? 'will be adopted'
      : 'the apply will refuse it: set adopt: true on its construct to adopt it (destroy then deletes it)'
  }`;

/** What the read says of an object another stack's mark names (stack-id.ts), `takeOver` as its construct says. */
export const otherStackReading = (
  reading: Reading,
  markStack: string,
  stack: string,
  takeOver: boolean,
  where: string,
): Reading => {
  const drift = reading.inSync ? '' : `; ${reading.summary}`;
  const then = takeOver
    ? 'will be taken over (takeOver: true)'
    : 'the apply will refuse it, adopt: true or not: set takeOver: true on its construct to take it from that stack';
  const summary = `${otherStackText(where, markStack, stack)}: ${then}${drift}`;
  return { ...reading, inSync: false, summary, ...refusedUnless(takeOver) };
};

/** The reading's flag for an object the apply refuses unless its construct says so (`allowed`). */
const refusedUnless = (allowed: boolean): Pick<Reading, 'converges'> => (allowed ? {} : { converges: false });

/** The apply's refusal of an object another stack marked, naming both stacks and the prop that allows it. */
export const refusedOtherStack = (where: string, markStack: string, stack: string): HandlerError =>
  new HandlerError(
    otherStackText(where, markStack, stack),
    'nothing of it was changed; adopt: true does not take an object from another stack: set takeOver: true ' +
      "to take it (that stack then reads it as this one's), or give the object another name",
  );

/** Why a destroy leaves an object its lifecycle found and never adopted, or undefined to delete it. */
export const keptOnDestroy = (found: string, adopt: boolean): string | undefined =>
  found === '' || adopt
    ? undefined
    : 'left in place: it existed before this stack declared it, and its construct did not say adopt: true; ' +
      'Terraform forgets it, nothing of it was deleted';

/** The apply's refusal of an object it did not create, naming the prop that allows it. */
export const refusedForeign = (where: string): HandlerError =>
  new HandlerError(
    `exists on ${where}, not created by this stack, and its construct does not say adopt: true`,
    'nothing of it was changed; set adopt: true to adopt it (terraform destroy then deletes it), ' +
      'or give the object another name',
  );

/**
 * The apply's refusal of an object its plan read absent that exists now (batch-recheck.ts checked it before the
 * lifecycles were created, so it appeared after that: within the seconds Terraform took to create them).
 */
export const refusedAppeared = (where: string, name: string): HandlerError =>
  new HandlerError(
    `exists on ${where}, though the plan read it absent: it appeared after the plan (made by another stack or by ` +
      'hand), and its construct does not say adopt: true',
    "nothing of it was changed; its lifecycle records it as this stack's (PVE keeps no mark): forget that record " +
      `with terraform state rm terraform_data.${name}_lifecycle (nothing is deleted) and plan again, which then ` +
      'names it as not created by this stack',
  );

/** One object of an apply as the ownership check needs it: its name, its parsed spec, what its construct says. */
export interface OwnedSpec<Spec> {
  readonly name: string;
  readonly spec: Spec;
  readonly adopt: boolean;
  readonly found: boolean;
  /** Its plan read it absent, for a kind whose ownership the state keeps (Reading.absent). */
  readonly absent?: boolean;
  readonly takeOver: boolean;
}

/**
 * The items of one kind the apply must refuse: those their lifecycle recorded as found, those found on the
 * target without the stack's mark, and those the plan read absent that exist now, unless marked `adopt`; those
 * another stack's mark names, unless marked `takeOver`. One fetch when the kind marks or some item was read
 * absent, over the apply's own session, just before it writes: the plan's reading may be stale.
 */
export const foreignItems = async <S, Spec, Live>(
  session: S,
  kind: Pick<ObjectKind<S, Spec, unknown, Live>, 'fetch' | 'foreign' | 'markedBy' | 'exists'>,
  items: readonly OwnedSpec<Spec>[],
  context: KindContext,
  where: string,
): Promise<Map<string, Error>> => {
  const refused = new Map<string, Error>();
  const checked: Array<OwnedSpec<Spec>> = [];
  for (const item of items) {
    if (item.found && !item.adopt) {
      refused.set(item.name, refusedForeign(where));
      continue;
    }
    const checksMark = (kind.foreign !== undefined || appears(kind, item)) && !item.adopt;
    const checksStack = kind.markedBy !== undefined && !item.takeOver && context.stack !== undefined;
    if (checksMark || checksStack) checked.push(item);
  }
  if (checked.length === 0) return refused;
  const live = await kind.fetch(
    session,
    checked.map((item) => item.spec),
    context,
  );
  for (const item of checked) {
    const markStack = kind.markedBy?.(item.spec, live);
    const { stack } = context;
    const marks = { markStack, foreign: kind.foreign?.(item.spec, live) === true };
    const refusal = markRefusal(marks, item, stack);
    if (refusal === 'other-stack' && markStack !== undefined && stack !== undefined) {
      refused.set(item.name, refusedOtherStack(where, markStack, stack));
    } else if (refusal === 'foreign') {
      refused.set(item.name, refusedForeign(where));
    } else if (!item.adopt && appears(kind, item) && kind.exists?.(item.spec, live) === true) {
      refused.set(item.name, refusedAppeared(where, item.name));
    }
  }
  return refused;
};

/**
 * Why the apply refuses an object by its marks read live, one rule for the apply (`foreignItems`) and for a plan
 * that must foresee it (linux/unit-refusal.ts): another stack's mark unless `takeOver`, then no mark of this stack
 * unless `adopt`; undefined when it may act.
 */
export const markRefusal = (
  { markStack, foreign }: { readonly markStack: string | undefined; readonly foreign: boolean },
  { adopt, takeOver }: Owned,
  stack: string | undefined,
): 'other-stack' | 'foreign' | undefined => {
  if (!takeOver && isOtherStack(markStack, stack)) return 'other-stack';
  return !adopt && foreign ? 'foreign' : undefined;
};

/** Whether the item was read absent by its plan, for a kind that can tell it exists now (`exists`). */
const appears = (kind: Pick<ObjectKind<never, never, unknown, never>, 'exists'>, item: { readonly absent?: boolean }) =>
  kind.exists !== undefined && item.absent === true;
