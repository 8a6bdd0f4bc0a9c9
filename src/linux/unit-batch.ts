/**
 * The pure half of one host's batch apply: what each unit, instance and drop-in reads and writes,
 * whether the host needs its one daemon-reload, and the one job per unit shared by the unit and the
 * drop-ins that change it, so no unit is restarted twice by one apply.
 */
import { sha256Hex } from '../core/canonical';
import type { UnitObject } from './root-helper';
import type { DropInPlace } from './drop-in-path';
import { dropInPath, type DropInSpec } from './systemd-drop-in';
import type { InstanceSpec } from './systemd-instance';
import type { LiveUnit } from './unit-control';
import { restartOnPath, unitPath } from './unit-file';
import type { UnitSpec } from './systemd-unit';
import { settleSteps, settleTarget } from './unit-diff';
import { enableNeedsReload } from './unit-enable-step';
import type { BatchDropIn, EnableInput } from './unit-enable';
import { isTemplate } from './unit-name';
import { dropInIntentPath, unitIntentPath } from './unit-intent';
import { dropInMarkPath } from './unit-ownership';
import { restartPending } from './unit-stale';
import { requisitesFirst, requisitesOf } from './requisite-order';
import { runsToRestart } from './template-runs';
import type { ReadEntry } from './unit-read';
import type { Owned } from '../core/kind';

/** What one object of the batch declares, by its kind. */
export type UnitChange =
  | { readonly sort: 'unit'; readonly spec: UnitSpec; readonly owned?: Owned }
  | { readonly sort: 'instance'; readonly spec: InstanceSpec; readonly owned?: Owned }
  | { readonly sort: 'drop-in'; readonly spec: DropInSpec };

/** One object of a host's batch: its Terraform name, the names applied before it, its change. */
export interface BatchItem {
  readonly name: string;
  readonly after: readonly string[];
  readonly change: UnitChange;
  /** What the plan read of a unit or instance (unit-basis.ts), which the apply must still find; none without one. */
  readonly basis?: string;
}

/** The unit systemd acts on: a drop-in's is the unit it extends. */
export const unitOf = (change: UnitChange): string => (change.sort === 'drop-in' ? change.spec.unit : change.spec.name);

/** The batch's unit files by name, and its drop-ins by the unit they change: what enable reads once it is written. */
export interface BatchFiles {
  readonly units: ReadonlyMap<string, string>;
  readonly dropIns: ReadonlyMap<string, readonly BatchDropIn[]>;
}

export const batchFilesOf = (changes: readonly UnitChange[]): BatchFiles => {
  const units = new Map<string, string>();
  const dropIns = new Map<string, BatchDropIn[]>();
  for (const change of changes) {
    if (change.sort === 'unit') units.set(change.spec.name, change.spec.content);
    if (change.sort !== 'drop-in') continue;
    const { unit, name, content } = change.spec;
    dropIns.set(unit, [...(dropIns.get(unit) ?? []), { name, content, path: dropInPath(change.spec) }]);
  }
  return { units, dropIns };
};

/**
 * What the enable of a unit or instance reads once `files` (its batch's) are written: its file (an instance:
 * its template's, when the batch declares it) and the batch's drop-ins of it (an instance: of it and its template).
 */
export const enableInputOf = (change: Exclude<UnitChange, { sort: 'drop-in' }>, files: BatchFiles): EnableInput => {
  const template = change.sort === 'instance' ? change.spec.template : undefined;
  const text = change.sort === 'instance' ? files.units.get(change.spec.template) : change.spec.content;
  const names = [change.spec.name, ...(template === undefined ? [] : [template])];
  return { text, dropIns: names.flatMap((unit) => files.dropIns.get(unit) ?? []) };
};

/** What the read of the host fetches for the change: a drop-in is read with its unit's state. */
export const readEntryOf = (change: UnitChange): ReadEntry => {
  const text = fileOf(change)?.content;
  const entry = entryOf(change);
  return text !== undefined && namesUpheldBy(text) ? { ...entry, manager: true } : entry;
};

/** Whether `text` sets UpheldBy= (a line of it; enable reads it from systemd 254 on: unit-install.ts). */
const namesUpheldBy = (text: string): boolean => /^[ \t]*UpheldBy[ \t]*=/m.test(text);

const entryOf = (change: UnitChange): ReadEntry => {
  if (change.sort === 'drop-in') return dropInEntryOf(change.spec);
  const { spec } = change;
  const [record, intent] = [restartOnPath(spec), unitIntentPath(spec)];
  if (change.sort === 'instance') {
    const template = unitPath({ directory: spec.directory, name: change.spec.template });
    return { unit: spec.name, record, intent, declared: { as: 'unit', path: template } };
  }
  const file = unitPath(spec);
  return { unit: spec.name, file, record, intent, declared: { as: 'unit', path: file } };
};

/** What the read fetches for a drop-in, known by its place alone (its destroy reads it so too). */
export const dropInEntryOf = (dropIn: DropInPlace): ReadEntry => {
  const file = dropInPath(dropIn);
  const [record, intent] = [dropInMarkPath(dropIn), dropInIntentPath(dropIn)];
  return { unit: dropIn.unit, file, record, intent, declared: { as: 'drop-in', path: file } };
};

/** The object the root helper's steps name for the change (its record, intent, file). */
export const objectOf = (change: UnitChange): UnitObject => {
  if (change.sort === 'drop-in') {
    const { directory, unit, name } = change.spec;
    return { sort: 'drop-in', directory, unit, name };
  }
  return { sort: 'unit', directory: change.spec.directory, name: change.spec.name };
};

/** A file the change owns. */
export interface OwnedFile {
  readonly object: UnitObject;
  readonly path: string;
  readonly content: string;
}

/** The file the change owns; none for an instance, whose file is its template's. */
export const fileOf = (change: UnitChange): OwnedFile | undefined => {
  if (change.sort === 'instance') return undefined;
  const path = change.sort === 'unit' ? unitPath(change.spec) : dropInPath(change.spec);
  return { object: objectOf(change), path, content: change.spec.content };
};

/** Whether the owned file is absent or differs. */
export const mustWrite = (change: UnitChange, live: LiveUnit): boolean => {
  const file = fileOf(change);
  return file !== undefined && (live.fileSha256 !== sha256Hex(file.content) || live.fileIsLink === true);
};

/** What the batch did to one object before the reload, as the reload decision needs it. */
export interface BeforeReload {
  readonly change: UnitChange;
  readonly before: LiveUnit;
  readonly wrote: boolean;
  readonly unmasked: boolean;
  /** It was enabled or disabled. */
  readonly switched: boolean;
}

/**
 * The host reloads once when any file was written or unmasked, systemd has any unit stale (or a drop-in on disk it
 * has not loaded: unloaded-drop-ins.ts), or an enable shows only after a reload (`enableNeedsReload`). A written
 * file always counts: a new one that an earlier read made systemd look up stays not-found until a reload.
 */
export const needsReload = (objects: readonly BeforeReload[]): boolean =>
  objects.some(
    ({ change, before, wrote, unmasked, switched }) =>
      wrote ||
      unmasked ||
      before.status.needDaemonReload ||
      (before.status.unloadedDropIns ?? []).length > 0 ||
      (switched && change.sort !== 'drop-in' && enableNeedsReload(change.spec)),
  );

export type Verb = 'start' | 'stop' | 'restart';

/** One unit's job: queued with `verb`, then waited for until it is `want` or `seconds` pass. */
export interface PlannedJob {
  readonly unit: string;
  /** None for a unit already activating that must still get ready. */
  readonly verb: Verb | undefined;
  readonly want: 'active' | 'inactive';
  readonly seconds: number;
  /** The objects it is for: the unit's own first, then each drop-in whose change restarts it. */
  readonly owners: readonly string[];
}

/** One object after the reload: its state then, and whether its file was written. */
export interface Loaded {
  readonly name: string;
  readonly change: UnitChange;
  /** Read before any write; a drop-in restarts its unit only if that was running then. */
  readonly before: LiveUnit;
  readonly loaded: LiveUnit;
  readonly wrote: boolean;
}

/**
 * Each unit's one job. A unit or instance gets what `settleSteps` says; a written drop-in (or one
 * whose unit's restart is pending, unit-stale.ts) restarts its unit when that ran before (a stopped
 * unit reads it when it next starts), joining the unit's own start or restart, and giving way to its stop.
 */
export const planJobs = (objects: readonly Loaded[]): PlannedJob[] => {
  const jobs = new Map<string, PlannedJob>();
  for (const object of objects) {
    const job = object.change.sort === 'drop-in' ? undefined : ownJob(object.name, object.change.spec, object);
    if (job !== undefined) jobs.set(job.unit, job);
  }
  const own = new Set(jobs.keys());
  for (const { name, change, before, wrote } of objects) {
    if (change.sort !== 'drop-in' || !(wrote || restartPending(before)) || isTemplate(change.spec.unit)) continue;
    if (before.status.activeState !== 'active') continue;
    const { unit, startTimeoutSeconds } = change.spec;
    const job = jobs.get(unit);
    if (job?.want === 'inactive') continue;
    const seconds = own.has(unit) && job ? job.seconds : Math.max(job?.seconds ?? 0, startTimeoutSeconds);
    const owners = [...(job?.owners ?? []), name];
    jobs.set(unit, { unit, verb: job?.verb ?? 'restart', want: 'active', seconds, owners });
  }
  for (const { name, change, before } of objects) {
    const template = change.sort === 'drop-in' ? change.spec.unit : change.spec.name;
    if (change.sort === 'instance' || !isTemplate(template)) continue;
    for (const unit of runsToRestart(change.spec.content, before))
      joinRestart(jobs, unit, name, change.spec.startTimeoutSeconds);
  }
  return requisitesFirst([...jobs.values()], requisitesByUnit(objects));
};

/** The units each declared unit Requisite= after the apply: its file's lines, then its declared drop-ins'. */
const requisitesByUnit = (objects: readonly Loaded[]): Map<string, string[]> => {
  const texts = new Map<string, string>();
  for (const { change } of objects)
    if (change.sort === 'unit')
      texts.set(change.spec.name, `${change.spec.content}\n${texts.get(change.spec.name) ?? ''}`);
    else if (change.sort === 'drop-in')
      texts.set(change.spec.unit, `${texts.get(change.spec.unit) ?? ''}\n${change.spec.content}`);
  return new Map([...texts].map(([unit, text]) => [unit, requisitesOf(text)]));
};

/** A template's drop-in's restart of an instance the stack does not declare (template-runs.ts). */
const joinRestart = (jobs: Map<string, PlannedJob>, unit: string, owner: string, seconds: number): void => {
  const job = jobs.get(unit);
  if (job?.want === 'inactive') return;
  const owners = [...(job?.owners ?? []), owner];
  jobs.set(unit, {
    unit,
    verb: job?.verb ?? 'restart',
    want: 'active',
    seconds: Math.max(job?.seconds ?? 0, seconds),
    owners,
  });
};

const ownJob = (name: string, spec: UnitSpec | InstanceSpec, { loaded, wrote }: Loaded): PlannedJob | undefined => {
  const steps = settleSteps(spec, loaded, wrote);
  const verb = steps.stop ? 'stop' : steps.start ? 'start' : steps.restart ? 'restart' : undefined;
  // A unit already activating counts as running, so it gets no start; it must still get ready.
  const activating = spec.started && loaded.status.activeState === 'activating';
  const want = settleTarget(steps) ?? (activating ? 'active' : undefined);
  return want === undefined
    ? undefined
    : { unit: spec.name, verb, want, seconds: spec.startTimeoutSeconds, owners: [name] };
};
