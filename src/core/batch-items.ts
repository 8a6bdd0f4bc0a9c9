/**
 * The batch apply's entries, each parsed once at the boundary: its spec by its kind's schema, before any
 * connection, into an item that carries its kind's apply over that spec (and its change, for a domain
 * with its own batch), so nothing after it sees an unparsed spec or parses one again.
 */
import * as z from 'zod/mini';
import { withSpecs } from './batch';
import { HandlerError } from './errors';
import type { ApplyItem, HandlerDomain, KindContext, ObjectKind } from './kind';
import { foreignItems } from './ownership';
import { bounded, parseAs, parseJson, stringMap } from './parse';
import { APPLY } from './protocol';

const objectEntry = z.object({
  kind: z.string(),
  spec: z.unknown(),
  after: z._default(z.array(z.string()), []),
  adopt: z._default(z.boolean(), false),
  found: z._default(z.boolean(), false),
  takeOver: z._default(z.boolean(), false),
});

/**
 * An entry and its name; `absent`: its plan read it absent (APPLY.absent); `basis`: what its plan read that decides
 * its write (APPLY.basis), undefined when the plan read nothing.
 */
type Entry = z.infer<typeof objectEntry> & { readonly name: string; readonly absent: boolean; readonly basis?: string };

/**
 * Which items of one kind the apply must refuse (ownership.ts), among those still `open`: one fetch over
 * the apply's session.
 */
type Refusals<S> = (
  session: S,
  open: ReadonlySet<string>,
  context: KindContext,
  where: string,
) => Promise<ReadonlyMap<string, Error>>;

/**
 * Each entry parsed once, against its kind's schema, before any connection: its item, or its failure
 * in `failed`, both in the order of `names`; and per kind, its ownership check.
 */
export const resolveAll = async <S, T, C, R>(
  domain: HandlerDomain<S, T, string, C, R>,
  names: readonly string[],
  env: NodeJS.ProcessEnv,
  failed: Map<string, Error>,
) => {
  const refused = new Map<string, Error>();
  const byKind = new Map<string, Entry[]>();
  const absent = new Set((env[APPLY.absent] ?? '').split(','));
  const basis = planBasis(env[APPLY.basis]);
  for (const [index, name] of names.entries()) {
    try {
      const entry = parseAs(objectEntry, parseJson(env[`${APPLY.objectPrefix}${index}`], `the entry of ${name}`), name);
      const planned = Object.hasOwn(basis, name) ? { basis: basis[name] } : {};
      byKind.set(entry.kind, [
        ...(byKind.get(entry.kind) ?? []),
        { ...entry, name, absent: absent.has(name), ...planned },
      ]);
    } catch (error) {
      refused.set(name, asError(error));
    }
  }
  const items = new Map<string, ApplyItem<S, C>>();
  const refusals: Array<Refusals<S>> = [];
  for (const [kindName, entries] of byKind) {
    const load = Object.hasOwn(domain.kinds, kindName) ? domain.kinds[kindName] : undefined;
    if (load === undefined) {
      const unknown = new HandlerError('Unknown kind', `${bounded(kindName)} is not served by this bundle`);
      for (const { name } of entries) refused.set(name, unknown);
      continue;
    }
    const group = (await load()).open((kind) => itemsOf(kind, kindName, entries, refused));
    for (const item of group.items) items.set(item.name, item);
    refusals.push(group.refusals);
  }
  for (const name of names) {
    const error = refused.get(name);
    if (error !== undefined) failed.set(name, error);
  }
  return { items: names.flatMap((name) => items.get(name) ?? []), refusals };
};

/** One kind's items, each spec parsed by the kind's schema, and the kind's ownership check over them. */
const itemsOf = <S, Spec, I, L, C, R>(
  kind: ObjectKind<S, Spec, I, L, C, R>,
  kindName: string,
  entries: readonly Entry[],
  failed: Map<string, Error>,
) => {
  const parsed = withSpecs(kind.spec, entries, (name, error) => failed.set(name, asError(error)));
  const items = parsed.map(({ name, spec, after, adopt, found, absent, takeOver, basis }): ApplyItem<S, C> => {
    const change = kind.change?.(spec, { adopt, takeOver });
    return {
      name,
      kind: kindName,
      concurrency: kind.applyConcurrency ?? 1,
      after,
      adopt,
      found,
      absent,
      takeOver,
      ...(basis !== undefined && { basis }),
      apply: (session, context) => kind.apply(session, spec, basis === undefined ? context : { ...context, basis }),
      ...(change !== undefined && { change }),
    };
  });
  const refusals: Refusals<S> = (session, open, context, where) =>
    foreignItems(
      session,
      kind,
      parsed.filter((entry) => open.has(entry.name)),
      context,
      where,
    );
  return { items, refusals };
};

/** The plan's `.basis` by name (APPLY.basis); none when it read nothing that decides a write, or an older synth. */
const planBasis = (text: string | undefined): Readonly<Record<string, string>> =>
  text === undefined || text === '' ? {} : parseAs(stringMap, parseJson(text, APPLY.basis), APPLY.basis);

const asError = (error: unknown): Error => (error instanceof Error ? error : new Error(String(error)));
