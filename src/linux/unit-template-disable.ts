/**
 * A template whose apply disables it by its own name (`systemctl disable a@.service`: declared disabled with the
 * alias its enable made there, which only that verb removes, or its file rewritten) unlinks every instance, so an
 * instance the same batch declares enabled failed its apply after the template's disable (measured, systemd 252).
 * The apply enables such an instance again after that disable, which ends both as declared (measured: its links
 * and its own alias back, the template `indirect` and in sync), and both plans say so, in the words here. A template
 * the apply refuses (unit-refusal.ts `refusedBefore`, the apply's own judgement) is never disabled, so neither plan
 * says so of it (measured: both said it). An instance the apply refuses (shadowed by a file of its name, not created
 * by this stack, one enable cannot link, ...) stays unlinked by that disable, and both plans say so (measured: both
 * said it was enabled again, the apply left it unlinked).
 */
import { type BatchFiles, mustWrite, type UnitChange } from './unit-batch';
import type { DesiredUnit, LiveUnit } from './unit-control';
import { enableStep, linkedName } from './unit-diff';
import { isTemplate } from './unit-name';
import { refusedBefore } from './unit-refusal';
import type { UnitSpec } from './systemd-unit';

/** Whether the template's apply runs `systemctl disable <template>` (unit-diff.ts `enableStep`, `linkedName`). */
export const disablesEveryInstance = (spec: DesiredUnit, before: LiveUnit, rewritten: boolean): boolean =>
  isTemplate(spec.name) &&
  enableStep(spec, before, rewritten) === 'disable' &&
  linkedName(spec, before, rewritten) === spec.name;

type Declared = Exclude<UnitChange, { sort: 'drop-in' }>;

/** The batch's instances of `template` (the same directory) declared enabled. */
export const enabledInstancesOf = (template: DesiredUnit, batch: readonly UnitChange[]): Declared[] =>
  batch.flatMap((change) => {
    if (change.sort !== 'instance') return [];
    const { spec } = change;
    const ofIt = spec.template === template.name && spec.directory === template.directory && spec.enabled;
    return ofIt ? [change] : [];
  });

/** The batch's template of an instance (the same directory), declared as a unit; undefined for a unit. */
export const batchTemplateOf = (change: Declared, batch: readonly UnitChange[]): UnitSpec | undefined => {
  if (change.sort !== 'instance') return undefined;
  const { template, directory } = change.spec;
  const units = batch.flatMap((other) => (other.sort === 'unit' ? [other.spec] : []));
  return units.find(({ name, directory: where }) => name === template && where === directory);
};

/** The template's state read before any change, as the plan judges its disable: none where the apply refuses it. */
export const templateBefore = (
  template: UnitSpec,
  batch: readonly UnitChange[],
  files: BatchFiles,
  before: LiveUnit | undefined,
  stack: string | undefined,
): LiveUnit | undefined => {
  const change = batch.find(({ sort, spec }) => sort === 'unit' && spec === template);
  const owned = change?.sort === 'unit' ? change.owned : undefined;
  const refused = before !== undefined && refusedBefore({ sort: 'unit', spec: template, owned }, before, files, stack);
  return refused ? undefined : before;
};

/** Whether `instance` (declared enabled) is unlinked by its batch template's disable, read `before` any change. */
export const unlinkedByTemplate = (
  instance: Declared,
  template: UnitSpec | undefined,
  templateBefore: LiveUnit | undefined,
): boolean =>
  instance.sort === 'instance' &&
  instance.spec.enabled &&
  template !== undefined &&
  templateBefore !== undefined &&
  disablesEveryInstance(template, templateBefore, mustWrite({ sort: 'unit', spec: template }, templateBefore));

/**
 * The plan's words for a template whose disable unlinks `again`, which the apply then enables again, and `refused`,
 * which the apply refuses and which stay unlinked.
 */
export const enablesAgainWords = (template: string, again: readonly string[], refused: readonly string[]): string => {
  const enabled =
    again.length === 0
      ? []
      : [
          `the apply then enables ${again.join(', ')} again, which this batch declares enabled and its ` +
            `systemctl disable ${template} unlinks (measured)`,
        ];
  const one = refused.length === 1;
  const left =
    refused.length === 0
      ? []
      : [
          `its systemctl disable ${template} unlinks ${refused.join(', ')} too, which this batch declares enabled ` +
            `and the apply refuses: ${one ? 'it stays' : 'they stay'} unlinked (measured)`,
        ];
  return [...enabled, ...left].join('; ');
};

/** The plan's diff and words for an instance its batch template's disable unlinks (`refused`: the apply refuses it). */
export const unlinkedDiff = (template: string, refused: boolean) => ({
  live: `unlinked by systemctl disable ${template}`,
  want: refused ? 'enabled, which the apply refuses: it stays unlinked' : 'enabled again after it',
});
export const unlinkedWords = (template: string, refused: boolean): string =>
  `its template ${template}, which this batch declares disabled, is disabled by its name (systemctl disable ` +
  `${template}), which unlinks every instance (measured); ` +
  (refused ? 'the apply refuses this one: it stays unlinked' : 'the apply then enables this one again');
