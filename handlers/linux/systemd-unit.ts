/**
 * The systemd-unit kind: every declared unit on a host read in one round trip; apply is a
 * transaction of one (`unit-transaction.ts`), destroy `destroyUnit` (a unit owns its file, templates
 * included).
 */
import { defineKind, type KindContext, type Reading } from '../../src/core/kind';
import type { LiveUnit } from '../../src/linux/unit-control';
import { unitIdentity, unitSpec, type UnitIdentity, type UnitSpec } from '../../src/linux/systemd-unit';
import type { FieldDiff } from '../../src/core/protocol';
import { diffUnit, runningOf, stateOf, summarizeUnit, UNLINKED_FIELD } from '../../src/linux/unit-diff';
import { templateRunsDiff, templateRunsWords } from '../../src/linux/template-runs';
import { markStackOf, unitIsForeign } from '../../src/linux/unit-ownership';
import type { DesiredUnit } from '../../src/linux/unit-control';
import {
  type BatchFiles,
  batchFilesOf,
  dropInEntryOf,
  enableInputOf,
  mustWrite,
  readEntryOf,
  type UnitChange,
} from '../../src/linux/unit-batch';
import {
  batchTemplateOf,
  disablesEveryInstance,
  enabledInstancesOf,
  enablesAgainWords,
  linkedAgain,
  stoppedRelinkWords,
  linkedAgainWords,
  templateBefore,
  unlinkedByTemplate,
  unlinkedDiff,
  unlinkedWords,
} from '../../src/linux/unit-template-disable';
import { convergesAsRead, refusedBefore, refusedForMarks } from '../../src/linux/unit-refusal';
import { unitBasis } from '../../src/linux/unit-basis';
import { afterStop, startsAgain, type StopCause, stoppedWords } from '../../src/linux/unit-stop-propagation';
import { declaredText, startedByBatch, withStrandedRequisite } from '../../src/linux/requisite-stranded';
import { alsoWords } from '../../src/linux/unit-also';
import { TEMPLATE_DROP_IN_FIELD, templateDropInsOf, templateDropInsToWrite } from '../../src/linux/template-drop-ins';
import type { HostSession } from './session';
import { readUnits } from './read-units';
import { readStoppedBy } from './stopped-by';
import { readRemovalStops } from './removal-stops';
import { destroyUnit, type UnitRemoval } from './unit-ops';
import { applyOne } from './unit-transaction';

/** Live units in the order of the specs they were read for, from one read of the host. */
export interface LiveUnits {
  readonly host: string;
  readonly units: ReadonlyMap<string, LiveUnit>;
  /** The files of the batch read's objects on the host, what the apply writes (a read by hand knows none). */
  readonly files?: BatchFiles;
  /** The batch read's objects. */
  readonly batch?: readonly UnitChange[];
  /** The batch's drop-ins of its instances' templates, by path (template-drop-ins.ts `templateDropInsToWrite`). */
  readonly dropIns?: ReadonlyMap<string, LiveUnit>;
  /** Each unit the destroy of a unit the plan removes stops, with that unit (unit-stop-propagation.ts). */
  readonly stoppedBy?: ReadonlyMap<string, StopCause>;
}

/**
 * One read of the host for `changes` (its kind's), knowing the files of the batch read's `batch` when given, and
 * reading too the batch's templates declared disabled of its instances declared enabled, and those instances of its
 * templates declared disabled (unit-template-disable.ts), and the batch's drop-ins of its instances' templates.
 */
export const fetchUnits = async (
  session: HostSession,
  changes: ReadonlyArray<Exclude<UnitChange, { sort: 'drop-in' }>>,
  batch: readonly UnitChange[] | undefined,
  context: Pick<KindContext, 'removing' | 'stack'> = {},
): Promise<LiveUnits> => {
  const templates = new Map<string, UnitSpec>();
  for (const change of changes) {
    const template = change.spec.enabled ? batchTemplateOf(change, batch ?? []) : undefined;
    if (template !== undefined && !template.enabled) templates.set(template.name, template);
  }
  const instances = changes.flatMap((change) =>
    change.sort === 'unit' && !change.spec.enabled ? enabledInstancesOf(change.spec, batch ?? []) : [],
  );
  const read = [...changes, ...[...templates.values()].map((spec) => ({ sort: 'unit', spec }) as const), ...instances];
  // Read beside them, so that an instance is judged against its template's drop-ins (template-drop-ins.ts).
  const dropIns = templateDropInsOf(read, batch ?? []).map(dropInEntryOf);
  const live = await readUnits(session, [...read.map(readEntryOf), ...dropIns]);
  const units = new Map(
    live.flatMap(([entry, unit]) => (dropIns.includes(entry) ? [] : [[entry.unit, unit] as const])),
  );
  const files = new Map(live.flatMap(([{ file }, unit]) => (file === undefined ? [] : [[file, unit] as const])));
  const known = batch === undefined ? {} : { files: batchFilesOf(batch), batch, dropIns: files };
  return { host: session.host, units, ...known, ...(await readStoppedBy(session, context)) };
};

type Declared = Exclude<UnitChange, { sort: 'drop-in' }>;

/** The reading of one unit or instance from its host's fetch, for a run of `stack` (its ownership). */
export const readingOf = (change: Declared, live: LiveUnits, stack: string | undefined): Reading => {
  const { spec } = change;
  const unit = live.units.get(spec.name);
  if (unit === undefined) throw new Error(`${spec.name} was not read`);
  const content = change.sort === 'unit' ? change.spec.content : undefined;
  const own = {
    ...diffUnit(spec, unit, live.files === undefined ? undefined : enableInputOf(change, live.files)),
    ...templateRunsDiff(content, unit),
  };
  const linked = withBatchLinks(change, unit, withTemplateDropIns(change, unit, own, live), live, stack);
  const { also } = linked;
  const stoppedBy = strandedOf(spec.name, content, live);
  const text = 'file' in linked.diff ? declaredText(spec.name, content, live.batch ?? []) : undefined;
  const after = stoppedBy === undefined ? 'starts' : afterStop(stoppedBy, text, live.stoppedBy);
  const running = { declared: spec.started, now: runningOf(spec, unit), state: stateOf(spec, unit) };
  const diff = { ...linked.diff, ...startsAgain(stoppedBy, after, running, linked.diff) };
  const inSync = Object.keys(diff).length === 0;
  const others = inSync ? undefined : alsoWords(spec, unit, mustWrite(change, unit));
  const runs = templateRunsWords(content, unit);
  const words = [also, others, runs].filter((said) => said !== undefined).join('; ') || undefined;
  const files = live.files ?? batchFilesOf(live.batch ?? [change]);
  const converges = convergesAsRead(change, unit, files) ? {} : { converges: false as const };
  const basis = unitBasis(spec, unit, stoppedBy?.by, stack);
  const stopped = stoppedBy === undefined ? undefined : stoppedWords(stoppedBy, after);
  const said = inSync || stopped === undefined ? words : [words, stopped].filter(Boolean).join('; ');
  return { inSync, summary: summarizeUnit(spec, live.host, unit, diff, said), diff, basis, ...converges };
};

/** How the removals stop the unit `name`, with a unit it Requisite= that they stop and nothing starts again. */
const strandedOf = (name: string, content: string | undefined, live: LiveUnits): StopCause | undefined => {
  const cause = live.stoppedBy?.get(name);
  if (cause === undefined || live.stoppedBy === undefined) return cause;
  const batch = live.batch ?? [];
  return withStrandedRequisite(cause, declaredText(name, content, batch), live.stoppedBy, startedByBatch(batch));
};

/** A running instance whose template's batch drop-ins the apply writes: the apply restarts it with them. */
const withTemplateDropIns = (change: Declared, unit: LiveUnit, diff: FieldDiff, live: LiveUnits): FieldDiff => {
  if (change.sort !== 'instance' || live.batch === undefined) return diff;
  const paths = templateDropInsToWrite(change.spec, unit, live.batch, live.dropIns ?? new Map());
  if (paths.length === 0) return diff;
  const words = `its process runs without ${paths.join(', ')}, which the apply writes`;
  return { ...diff, [TEMPLATE_DROP_IN_FIELD]: { live: words, want: 'restarted with it' } };
};

/**
 * A template whose disable unlinks the batch's instances declared enabled, and such an instance: in words; not where
 * the apply refuses the template (unit-template-disable.ts `templateBefore`); one the apply refuses stays unlinked.
 * The instances that disable unlinks which the stack does not declare, linked again after it (`linkedAgain`): too.
 */
const withBatchLinks = (
  change: Declared,
  unit: LiveUnit,
  diff: FieldDiff,
  { batch = [], units, files = batchFilesOf(batch) }: LiveUnits,
  stack: string | undefined,
) => {
  const { spec } = change;
  const refused = (instance: Declared, live = units.get(instance.spec.name)) =>
    live !== undefined && refusedBefore(instance, live, files, stack);
  const instances = enabledInstancesOf(spec, batch);
  const self = change.sort === 'unit' ? templateBefore(change.spec, batch, files, unit, stack) : undefined;
  const applied = transactionOf(batch, units, stack);
  if (self !== undefined && disablesEveryInstance(spec, self, mustWrite(change, self))) {
    const kept = linkedAgain(spec, self, mustWrite(change, self), applied);
    const back = (i: Declared) => [...kept.etc, ...kept.run].includes(i.spec.name);
    const [left, again] = [instances.filter((i) => refused(i) && !back(i)), instances.filter((i) => !refused(i))];
    const words = linkedAgainWords(spec.name, kept, names(instances.filter(back)));
    const also = [enablesAgainWords(spec.name, names(again), names(left)), words].filter((said) => said);
    return { diff, ...(also.length === 0 ? {} : { also: also.join('; ') }) };
  }
  const stopped = self === undefined ? undefined : linkedAgain(spec, self, mustWrite(change, self), applied);
  const words = stopped === undefined ? undefined : stoppedRelinkWords(spec.name, stopped);
  if (words !== undefined) return { diff, also: words };
  const template = batchTemplateOf(change, batch);
  const before = template && templateBefore(template, batch, files, units.get(template.name), stack);
  if (template === undefined || !unlinkedByTemplate(change, template, before)) return { diff };
  // The batch's own change: what its construct says of ownership (`owned`), which a read by its kind lacks.
  const declared = batch.find((other) => other.sort === change.sort && other.spec.name === spec.name);
  const left = refused(declared?.sort === change.sort ? declared : change, unit);
  const kept =
    left && before !== undefined
      ? linkedAgain(template, before, mustWrite({ sort: 'unit', spec: template }, before), applied)
      : undefined;
  const back = kept !== undefined && [...kept.etc, ...kept.run].includes(spec.name);
  const { name } = template;
  return { diff: { ...diff, [UNLINKED_FIELD]: unlinkedDiff(name, left, back) }, also: unlinkedWords(name, left, back) };
};

/**
 * The batch as the apply's transaction has it: the run refuses those it refuses for their marks before it
 * (unit-refusal.ts `refusedForMarks`), so the transaction links them again as it does those the stack does not declare.
 */
const transactionOf = (batch: readonly UnitChange[], units: LiveUnits['units'], stack: string | undefined) =>
  batch.filter((change) => {
    const live = change.sort === 'drop-in' ? undefined : units.get(change.spec.name);
    return change.sort === 'drop-in' || live === undefined || !refusedForMarks(change, live, stack);
  });

const names = (changes: readonly Declared[]): string[] => changes.map(({ spec }) => spec.name);

/** Whether the unit or instance exists on the host without the stack's record (unit-ownership.ts). */
export const isForeign = (spec: DesiredUnit, { units }: LiveUnits, ownsFile: boolean): boolean => {
  const live = units.get(spec.name);
  return live !== undefined && unitIsForeign(live, ownsFile);
};

/** The stack the unit's or instance's record or intent names (unit-ownership.ts). */
export const markedBy = (spec: DesiredUnit, { units }: LiveUnits): string | undefined => {
  const live = units.get(spec.name);
  return live === undefined ? undefined : markStackOf(live);
};

export const systemdUnitKind = defineKind({
  spec: unitSpec,
  identity: unitIdentity,

  fetch: (session: HostSession, specs: readonly UnitSpec[], context, batch?: readonly UnitChange[]) =>
    fetchUnits(
      session,
      specs.map((spec) => ({ sort: 'unit', spec })),
      batch,
      context,
    ),
  read: (spec: UnitSpec, live: LiveUnits, { stack }): Reading => readingOf({ sort: 'unit', spec }, live, stack),
  foreign: (spec: UnitSpec, live: LiveUnits): boolean => isForeign(spec, live, true),
  markedBy: (spec: UnitSpec, live: LiveUnits): string | undefined => markedBy(spec, live),
  change: (spec: UnitSpec, owned): UnitChange => ({ sort: 'unit', spec, owned }),
  apply: (session: HostSession, spec: UnitSpec, context) => applyOne(session, { sort: 'unit', spec }, context),
  removal: (unit: UnitIdentity, context, adopt): UnitRemoval => ({ unit, ownsFile: true, context, adopt }),
  destroy: (session: HostSession, unit: UnitIdentity, context, adopt) =>
    destroyUnit(session, { unit, ownsFile: true, context, adopt }),
  /** A unit the plan removes: the running units no stack declares that its destroy stops (removal-stops.ts). */
  readRemovals: (session: HostSession, removals, context, batch?: readonly UnitChange[]) =>
    readRemovalStops(session, removals, context, true, batch),
});
