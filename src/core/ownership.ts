/**
 * Adoption made explicit (README, Adoption): an object that exists on its target without this stack's
 * mark of ownership is named as such by the read, and the apply refuses it unless its construct says
 * `adopt: true`. Without this a hand-made object was taken over silently, and a later destroy deleted it.
 */
import { HandlerError } from './errors';
import type { AnyKind, ApplyItem, KindContext, Reading } from './kind';

/** What the read says of an object the stack did not create, `adopt` as its construct says. */
export const foreignReading = (reading: Reading, adopt: boolean, where: string): Reading => {
  const verdict = adopt
    ? 'will be adopted'
    : 'the apply will refuse it: set adopt: true on its construct to adopt it (destroy then deletes it)';
  const drift = reading.inSync ? '' : `; ${reading.summary}`;
  return {
    inSync: false,
    summary: `exists on ${where}, not created by this stack: ${verdict}${drift}`,
    diff: reading.diff,
  };
};

/** The apply's refusal of an object it did not create, naming the prop that allows it. */
export const refusedForeign = (where: string): HandlerError =>
  new HandlerError(
    `exists on ${where}, not created by this stack, and its construct does not say adopt: true`,
    'nothing of it was changed; set adopt: true to adopt it (terraform destroy then deletes it), ' +
      'or give the object another name',
  );

/**
 * The items the apply must refuse: those whose kind tracks ownership, found on the target without the
 * stack's mark, and not marked `adopt`. One fetch per kind, over the apply's own session, just before
 * it writes: the plan's reading may be stale.
 */
export const foreignItems = async <S>(
  session: S,
  items: readonly ApplyItem<S>[],
  context: KindContext,
  where: string,
): Promise<Map<string, Error>> => {
  const refused = new Map<string, Error>();
  const byKind = new Map<AnyKind<S>, ApplyItem<S>[]>();
  for (const item of items) {
    if (item.adopt === true || item.kind.foreign === undefined) continue;
    byKind.set(item.kind, [...(byKind.get(item.kind) ?? []), item]);
  }
  for (const [kind, members] of byKind) {
    const live: unknown = await kind.fetch(
      session,
      members.map((item) => item.spec),
      context,
    );
    for (const item of members) if (kind.foreign?.(item.spec, live)) refused.set(item.name, refusedForeign(where));
  }
  return refused;
};
