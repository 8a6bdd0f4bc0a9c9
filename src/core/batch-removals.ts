/**
 * What the objects a plan removes do besides their removal, read by their target's batch read (README, Removing an
 * object): the query names them (`.removing`), a kind whose destroy does more than its plan's "will be destroyed"
 * says reads it (ObjectKind.readRemovals), and the read's summary says it. Without it, a template drop-in's destroy
 * restarted instances of the template that no line of its plan named, and a unit's destroy stopped units made by hand
 * PartOf= or BindsTo= it.
 */
import * as z from 'zod/mini';
import { errorMessage, HandlerError } from './errors';
import type { HandlerDomain, KindContext, ObjectKind } from './kind';
import { parseAs, parseJson } from './parse';
import { printableLine } from './printable';
import { BATCH } from './protocol';

/** One object the plan removes: its kind, its identity as its lifecycle stored it, and whether it may be adopted. */
const removingEntry = z.object({ kind: z.string(), identity: z.unknown(), adopt: z._default(z.boolean(), false) });
const removingField = z.record(z.string(), removingEntry);

export type Removing = z.infer<typeof removingEntry> & { readonly name: string };

/** The query's removals by name, in name order; none when it names none. */
export const removingOf = (fields: Readonly<Record<string, string>>): Removing[] => {
  const text = fields[BATCH.removing];
  if (text === undefined) return [];
  const entries = parseAs(removingField, parseJson(text, `query["${BATCH.removing}"]`), BATCH.removing);
  return Object.entries(entries)
    .map(([name, entry]) => ({ ...entry, name }))
    .sort((a, b) => (a.name < b.name ? -1 : 1));
};

/**
 * One kind's removals, each identity parsed by its kind's schema, as a read over the session that fills `words` by
 * name; none when the kind says nothing of its removals. An identity the schema refuses is said so: the plan cannot
 * tell what its destroy does.
 */
export const removalsRead = <S, Spec, I, L, C, R>(
  kind: ObjectKind<S, Spec, I, L, C, R>,
  removals: readonly Removing[],
  words: Map<string, string>,
  context: KindContext,
  batch: readonly C[],
): ((session: S) => Promise<void>) | undefined => {
  const read = kind.readRemovals;
  if (read === undefined) return undefined;
  const parsed = removals.flatMap(({ name, identity, adopt }) => {
    try {
      return [{ name, identity: parseAs(kind.identity, identity, name), adopt }];
    } catch (error) {
      words.set(name, `cannot be read: ${error instanceof HandlerError ? error.oneLine() : errorMessage(error)}`);
      return [];
    }
  });
  if (parsed.length === 0) return undefined;
  return async (session) => {
    const said = await read(session, parsed, context, batch);
    parsed.forEach(({ name }, index) => {
      const line = said[index];
      if (line !== undefined) words.set(name, line);
    });
  };
};

/**
 * The reads of the removals by the kinds that say what theirs do (ObjectKind.readRemovals), each given the read's
 * `batch`; a kind not served none.
 */
export const removalGroups = async <S, T, C, R>(
  domain: HandlerDomain<S, T, string, C, R>,
  removing: readonly Removing[],
  words: Map<string, string>,
  context: KindContext,
  batch: readonly C[] = [],
): Promise<Array<(session: S) => Promise<void>>> => {
  const groups: Array<(session: S) => Promise<void>> = [];
  for (const kindName of new Set(removing.map((removal) => removal.kind))) {
    const load = Object.hasOwn(domain.kinds, kindName) ? domain.kinds[kindName] : undefined;
    if (load === undefined) continue;
    const ofKind = removing.filter((removal) => removal.kind === kindName);
    const group = (await load()).open((kind) => removalsRead(kind, ofKind, words, context, batch));
    if (group !== undefined) groups.push(group);
  }
  return groups;
};

/**
 * The summary's part for the removals that do more than their plan line says: a header, then a line per removal
 * (each printable and bounded), in name order; nothing when none does.
 */
export const removalLines = (words: ReadonlyMap<string, string>): string[] => {
  if (words.size === 0) return [];
  const names = [...words.keys()].sort();
  const header =
    names.length === 1
      ? 'the removal of 1 object does more than its "will be destroyed" says:'
      : `the removals of ${names.length} objects do more than their "will be destroyed" says:`;
  return [header, ...names.map((name) => printableLine(`- ${name}: ${words.get(name) ?? ''}`))];
};
