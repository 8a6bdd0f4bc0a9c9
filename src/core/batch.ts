/**
 * The batch read: every object of one domain on one target, read by one process. Objects are
 * grouped by kind, each kind fetches once, and each object gets its own reading, so one object
 * that cannot be read is reported as such while the others read normally. A target that cannot be
 * reached fails the whole read in one line: a plan must never show creates for a cluster it never saw.
 */
import * as z from 'zod/mini';
import type { ZodMiniType } from 'zod/mini';
import { removalGroups, removalLines, type Removing, removingOf } from './batch-removals';
import { canonicalJson } from './canonical';
import { errorMessage, HandlerError } from './errors';
import type { HandlerDomain, KindContext, ObjectKind, Reading } from './kind';
import { foreignReading, foundReading, otherStackReading } from './ownership';
import { unpackObjects } from './packed-objects';
import { bounded, parseAs, parseJson, stringMap } from './parse';
import { BATCH, foundGroups, resultKey, toReadResult } from './protocol';
import { isOtherStack, receivedStackId } from './stack-id';

const objectEntry = z.object({
  kind: z.string(),
  spec: z.unknown(),
  adopt: z._default(z.boolean(), false),
  takeOver: z._default(z.boolean(), false),
  follows: z._default(z.array(z.string()), []),
});

/**
 * The target itself did not answer (no member reachable, connection refused): thrown by a domain's
 * client, it fails the batch read even when a kind kept it as one object's reading.
 */
export class TargetUnreachable extends HandlerError {}

/** How many drifted objects the batch summary names before it only counts. */
export const SUMMARY_NAMES = 20;

/**
 * Reads every object in the query; the result is the external data source's flat string map. With `unread` (why),
 * the target is not read: each object reads as not in sync, saying why, the query still checked whole.
 */
export const readBatch = async <S, T, C, R>(
  domain: HandlerDomain<S, T, string, C, R>,
  query: unknown,
  context: KindContext,
  unread?: string,
): Promise<Record<string, string>> => {
  const removals = new Map<string, string>();
  const { names, readings, fields } =
    unread === undefined
      ? await readQuery(domain, query, context, undefined, removals)
      : unreadQuery(domain, query, unread);
  return summarize(names, readings, followsOf(names, fields), removals);
};

/** The query checked as readQuery checks it, each object's reading `not read: <why>`; no connection. */
const unreadQuery = <S, T, C, R>(domain: HandlerDomain<S, T, string, C, R>, query: unknown, why: string) => {
  const fields = unpacked(parseAs(stringMap, query, 'query'));
  parseAs(domain.target, parseJson(fields[BATCH.target], `query["${BATCH.target}"]`), 'target');
  receivedStackId(fields[BATCH.stack], `query["${BATCH.stack}"]`);
  const names = Object.keys(fields).filter((key) => !key.startsWith('.'));
  const reading: Reading = { inSync: false, summary: `not read: ${why}`, diff: {} };
  return { names, readings: new Map(names.map((name) => [name, reading])), fields };
};

/**
 * Each object of a batch read's query (those `pick` keeps of its names, by default all) read as the plan reads
 * it, with the query's fields and the target in words; with `removals`, what the query's removals do besides
 * (batch-removals.ts) goes there by name.
 */
export const readQuery = async <S, T, C, R>(
  domain: HandlerDomain<S, T, string, C, R>,
  query: unknown,
  context: KindContext,
  pick: (names: readonly string[], fields: Readonly<Record<string, string>>) => readonly string[] = (n) => n,
  removals?: Map<string, string>,
) => {
  const fields = unpacked(parseAs(stringMap, query, 'query'));
  const target = parseAs(domain.target, parseJson(fields[BATCH.target], `query["${BATCH.target}"]`), 'target');
  const names = pick(
    Object.keys(fields).filter((key) => !key.startsWith('.')),
    fields,
  );
  const stack = receivedStackId(fields[BATCH.stack], `query["${BATCH.stack}"]`);
  const removing = removingOf(fields);
  const read = { names, fields, removals: removals === undefined ? undefined : { of: removing, removals } };
  // Every kind's read is told of the removals too: a destroy that runs before the batch apply may change its objects.
  const known = { ...(stack === undefined ? {} : { stack }), ...(removing.length === 0 ? {} : { removing }) };
  const readings = await readAll(domain, target, read, { ...context, ...known });
  return { names, readings, fields, where: domain.describe(target) };
};

/**
 * What each object follows, as its query entry says: an entry that cannot be parsed follows nothing (its
 * reading says it cannot be read, so it is drifted anyway).
 */
const followsOf = (names: readonly string[], fields: Readonly<Record<string, string>>) =>
  new Map(names.map((name) => [name, objectEntry.safeParse(safeJson(fields[name])).data?.follows ?? []]));

const safeJson = (text: string | undefined): unknown => {
  try {
    return text === undefined ? undefined : JSON.parse(text);
  } catch {
    return undefined;
  }
};

/** The query with its packed objects (`.objects`) as fields of their own, as if each had been sent alone. */
const unpacked = (fields: Readonly<Record<string, string>>): Readonly<Record<string, string>> => {
  const packed = fields[BATCH.objects];
  return packed === undefined ? fields : { ...unpackObjects(packed, `query["${BATCH.objects}"]`), ...fields };
};

type Entry = z.infer<typeof objectEntry> & { readonly name: string };

/** What one kind's objects need of the session: its one fetch, then each object's reading. */
type GroupRead<S> = (session: S) => Promise<void>;

/** What a batch read reads: the objects `names` of the query's `fields`, and its removals when asked. */
interface ReadWanted {
  readonly names: readonly string[];
  readonly fields: Readonly<Record<string, string>>;
  readonly removals?: { readonly of: readonly Removing[]; readonly removals: Map<string, string> };
}

const readAll = async <S, T, C, R>(
  domain: HandlerDomain<S, T, string, C, R>,
  target: T,
  { names, fields, removals }: ReadWanted,
  context: KindContext,
): Promise<Map<string, Reading>> => {
  const readings = new Map<string, Reading>();
  const byKind = new Map<string, Entry[]>();
  for (const name of names) {
    try {
      const entry = parseAs(objectEntry, parseJson(fields[name], `query["${name}"]`), name);
      // Pushed, not spread: a copy of the kind's list an object was quadratic (1000 objects 35 CPU-ms, now 4.5).
      const group = byKind.get(entry.kind) ?? [];
      group.push({ ...entry, name });
      byKind.set(entry.kind, group);
    } catch (error) {
      readings.set(name, unreadable(error));
    }
  }
  // Every spec parsed once, by its kind's schema, before connecting; each kind's fetch sees the batch's changes.
  const groups: Array<GroupRead<S>> = [];
  const batch: C[] = [];
  for (const [kindName, entries] of byKind) {
    const load = Object.hasOwn(domain.kinds, kindName) ? domain.kinds[kindName] : undefined;
    if (load === undefined) {
      const unknown = new HandlerError('Unknown kind', `${bounded(kindName)} is not served by this bundle`);
      for (const { name } of entries) readings.set(name, unreadable(unknown));
      continue;
    }
    const where = domain.describe(target);
    const group = (await load()).open((kind) => groupRead(kind, entries, { readings, batch }, context, where));
    if (group !== undefined) groups.push(group);
  }
  if (removals !== undefined)
    groups.push(...(await removalGroups(domain, removals.of, removals.removals, context, batch)));
  if (groups.length === 0) return readings;
  const session = await domain.connect(target, context, 'read');
  try {
    for (const group of groups) await group(session);
  } finally {
    await domain.close(session);
  }
  return readings;
};

/** Each entry with its spec parsed once, by the kind's schema; an entry it refuses goes to `refused` instead. */
export const withSpecs = <Spec, E extends { readonly name: string; readonly spec: unknown }>(
  schema: ZodMiniType<Spec>,
  entries: readonly E[],
  refused: (name: string, error: unknown) => void,
): Array<Omit<E, 'spec'> & { readonly spec: Spec }> =>
  entries.flatMap((entry) => {
    try {
      return [{ ...entry, spec: parseAs(schema, entry.spec, 'spec') }];
    } catch (error) {
      refused(entry.name, error);
      return [];
    }
  });

/**
 * One kind's objects, each spec parsed by the kind's schema: their fetch and readings, or none to read. Their
 * changes join `batch`, which every kind's fetch gets once all are parsed (`ObjectKind.fetch`).
 */
const groupRead = <S, Spec, I, L, C, R>(
  kind: ObjectKind<S, Spec, I, L, C, R>,
  entries: readonly Entry[],
  { readings, batch }: { readonly readings: Map<string, Reading>; readonly batch: C[] },
  context: KindContext,
  where: string,
): GroupRead<S> | undefined => {
  const parsed = withSpecs(kind.spec, entries, (name, error) => readings.set(name, unreadable(error)));
  if (parsed.length === 0) return undefined;
  for (const { spec, adopt, takeOver } of parsed)
    if (kind.change !== undefined) batch.push(kind.change(spec, { adopt, takeOver }));
  return async (session) => {
    const live = await kind.fetch(
      session,
      parsed.map(({ spec }) => spec),
      context,
      batch,
    );
    for (const entry of parsed) {
      try {
        readings.set(entry.name, ownedReading(kind, entry, live, context, where));
      } catch (error) {
        if (error instanceof TargetUnreachable) throw error;
        readings.set(entry.name, unreadable(error));
      }
    }
  };
};

/** An object's reading, and what the read says of its owner: another stack, nobody, or found (ownership.ts). */
const ownedReading = <S, Spec, I, L, C, R>(
  kind: ObjectKind<S, Spec, I, L, C, R>,
  { spec, adopt, takeOver }: { readonly spec: Spec; readonly adopt: boolean; readonly takeOver: boolean },
  live: L,
  context: KindContext,
  where: string,
): Reading => {
  const reading = kind.read(spec, live, context);
  const { stack } = context;
  const markStack = kind.markedBy?.(spec, live);
  if (stack !== undefined && isOtherStack(markStack, stack))
    return otherStackReading(reading, markStack, stack, takeOver, where);
  if (kind.foreign?.(spec, live) === true) return foreignReading(reading, adopt, where);
  if (kind.exists === undefined) return reading;
  if (kind.exists(spec, live)) return foundReading(reading, adopt, where);
  return adopt ? reading : { ...reading, absent: true };
};

const unreadable = (error: unknown): Reading => ({
  inSync: false,
  summary: 'cannot be read: ' + (error instanceof HandlerError ? error.oneLine() : errorMessage(error)),
  diff: {},
  // Whether the apply converges it depends on why it could not be read.
  converges: false,
});

/**
 * The flat result: each object's reading, printable and bounded (toReadResult), the batch's verdict
 * naming the drifted objects with those same summaries, `.converges`: whether the kind of none of them decided
 * that the apply will not converge it (Reading.converges), `.drifted`: the names the apply acts on, each
 * object not in sync or following one that is not (an unknown name counts as not in sync), `.found`:
 * each found text once with its objects' names (foundGroups), and `.absent`: the names of the objects whose
 * lifecycle would record nothing found (Reading.absent), and `.basis`: what the read found that decides the write
 * of each applied object (Reading.basis), which the apply checks again. The plan reads those keys instead
 * of one expression per object (issue 30). What a removal does besides (`removals`) is said after the drifted
 * objects, and is not in sync: the check prints it.
 */
const summarize = (
  names: readonly string[],
  readings: ReadonlyMap<string, Reading>,
  follows: ReadonlyMap<string, readonly string[]>,
  removals: ReadonlyMap<string, string>,
): Record<string, string> => {
  const result: Record<string, string> = {};
  const drifted: string[] = [];
  const found: Array<[string, string]> = [];
  const absent: string[] = [];
  let converges = true;
  for (const name of names) {
    const reading = readings.get(name) ?? unreadable(new Error('no reading'));
    const flat = toReadResult(reading);
    for (const field of ['in_sync', 'summary', 'diff'] as const) result[resultKey(name, field)] = flat[field];
    if (reading.found !== undefined) found.push([name, reading.found]);
    if (reading.absent === true) absent.push(name);
    if (reading.inSync) continue;
    drifted.push(`- ${name}: ${flat.summary}`);
    converges &&= reading.converges !== false;
  }
  const groups = foundGroups(found);
  if (groups !== undefined) result[BATCH.found] = groups;
  if (absent.length > 0) result[BATCH.absent] = absent.join(',');
  const inSync = (name: string) => readings.get(name)?.inSync === true;
  const applied = names.filter((name) => !inSync(name) || (follows.get(name) ?? []).some((f) => !inSync(f)));
  result[BATCH.drifted] = applied.join(',');
  const basis = applied.flatMap((name) => {
    const text = readings.get(name)?.basis;
    return text === undefined ? [] : [[name, text] as const];
  });
  if (basis.length > 0) result[BATCH.basis] = canonicalJson(Object.fromEntries(basis));
  const removed = removalLines(removals);
  result[BATCH.inSync] = String(drifted.length === 0 && removed.length === 0);
  const objects = drifted.length === 0 && removed.length > 0 ? [] : [batchSummary(names.length, drifted)];
  result[BATCH.summary] = [...objects, ...removed].join('\n');
  result[BATCH.converges] = String(converges);
  return result;
};

const batchSummary = (total: number, drifted: readonly string[]): string => {
  if (drifted.length === 0) return `all ${total} objects are in sync`;
  const shown = drifted.slice(0, SUMMARY_NAMES);
  const more = drifted.length - shown.length;
  const tail = more > 0 ? [`- and ${more} more (each object's summary is in the read's result)`] : [];
  return [`${drifted.length} of ${total} objects are not in sync:`, ...shown, ...tail].join('\n');
};
