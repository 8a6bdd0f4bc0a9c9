/**
 * A template's drop-in, judged where systemd loads it: for each instance of that template read with it. `show`
 * refuses a template's name, so the drop-in's own read lists no DropInPaths; a same-name file ranked higher
 * (`system.control`) or in an instance's own `.d/` ran in its place while the plan said the drop-in and the instance
 * in sync (measured, systemd 252). Both now read overridden by it, and the apply refuses both (unit-refusal.ts).
 */
import { sha256Hex } from '../core/canonical';
import type { DropInSpec } from './systemd-drop-in';
import { dropInPath } from './drop-in-path';
import type { UnitChange } from './unit-batch';
import type { LiveUnit } from './unit-control';
import type { FileStat } from './file-stat';
import { type Declared, type Overridden, overriddenOf } from './unit-loaded';
import { instanceOf, isTemplate } from './unit-name';

/** What the judgement needs of one read entry: the unit it reads and the file systemd must load for it. */
export interface JudgedEntry {
  readonly unit: string;
  readonly declared?: Declared;
}

/**
 * `live` (one per entry) with each template's drop-in and each instance of that template read beside it marked
 * overridden where the instance loads another file in the drop-in's place (`overriddenOf`, over the instance's
 * DropInPaths). An object already overridden (an instance whose template's file is shadowed) keeps that; a drop-in
 * replaced for several instances names the first.
 */
export const withReplacedForInstances = (
  entries: readonly JudgedEntry[],
  live: readonly LiveUnit[],
  stats: ReadonlyMap<string, FileStat>,
): LiveUnit[] => {
  const dropInsOf = new Map<string, Array<{ declared: Declared; at: number }>>();
  entries.forEach(({ unit, declared }, at) => {
    if (declared?.as !== 'drop-in') return;
    dropInsOf.set(unit, [...(dropInsOf.get(unit) ?? []), { declared, at }]);
  });
  const replaced = new Map<number, Overridden>();
  entries.forEach(({ unit }, index) => {
    const template = instanceOf(unit);
    const status = live[index]?.status;
    if (template === undefined || status === undefined) return;
    for (const { declared, at } of dropInsOf.get(template) ?? []) {
      const found = overriddenOf(declared, status, stats);
      if (found === undefined) continue;
      const overridden = { ...found, instance: unit };
      if (!replaced.has(at)) replaced.set(at, overridden);
      if (!replaced.has(index)) replaced.set(index, overridden);
    }
  });
  return live.map((unit, index) => {
    const overridden = replaced.get(index);
    return overridden === undefined || unit.overridden !== undefined ? unit : { ...unit, overridden };
  });
};

/** The batch's instances of the templates `dropIns` change, each once: a drop-in's read shows them with it. */
export const instancesToJudge = (dropIns: readonly DropInSpec[], batch: readonly UnitChange[]): string[] => {
  const templates = new Set(dropIns.flatMap(({ unit }) => (isTemplate(unit) ? [unit] : [])));
  const names = batch.flatMap((change) => (change.sort === 'instance' ? [change.spec.name] : []));
  return [...new Set(names.filter((name) => templates.has(instanceOf(name) ?? '')))];
};

/** The batch's drop-ins of the templates of `changes`' instances: an instance's read judges it against them. */
export const templateDropInsOf = (changes: readonly UnitChange[], batch: readonly UnitChange[]): DropInSpec[] => {
  const templates = new Set(changes.flatMap((change) => (change.sort === 'instance' ? [change.spec.template] : [])));
  return batch.flatMap((change) => (change.sort === 'drop-in' && templates.has(change.spec.unit) ? [change.spec] : []));
};

/** The diff's field of an instance whose template's drop-ins the apply writes while it runs. */
export const TEMPLATE_DROP_IN_FIELD = 'templateDropIn';

/**
 * The batch's drop-ins of `instance`'s template that the apply writes (absent or differing, as `dropIns` read them by
 * path) while the instance runs and is declared started: the apply restarts it with them. Without it the plan named
 * the drop-in alone, the apply wrote it and restarted nothing (a template's drop-in restarts no unit of its own), and
 * the next plan said the instance's restart was pending (measured, systemd 252): one apply did not converge.
 */
export const templateDropInsToWrite = (
  instance: { readonly template: string; readonly started: boolean },
  live: LiveUnit,
  batch: readonly UnitChange[],
  dropIns: ReadonlyMap<string, LiveUnit>,
): string[] => {
  if (!instance.started || live.status.activeState !== 'active') return [];
  return batch.flatMap((change) => {
    if (change.sort !== 'drop-in' || change.spec.unit !== instance.template) return [];
    const path = dropInPath(change.spec);
    return dropIns.get(path)?.fileSha256 === sha256Hex(change.spec.content) ? [] : [path];
  });
};
