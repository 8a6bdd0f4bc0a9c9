/**
 * A template whose apply disables it by its own name (`systemctl disable a@.service`: declared disabled with the
 * alias its enable made there, which only that verb removes, or its file rewritten) unlinks every instance, so an
 * instance the same batch declares enabled failed its apply after the template's disable (measured, systemd 252).
 * The apply enables such an instance again after that disable, which ends both as declared (measured: its links
 * and its own alias back, the template `indirect` and in sync), and both plans say so, in the words here. A template
 * the apply refuses (`refusedTemplate`) is never disabled, so neither plan says so of it (measured: both said it).
 */
import type { Owned } from '../core/kind';
import { isOtherStack } from '../core/stack-id';
import { mustWrite, type UnitChange } from './unit-batch';
import type { DesiredUnit, LiveUnit } from './unit-control';
import { enableStep, linkedName } from './unit-diff';
import { isTemplate } from './unit-name';
import { markStackOf, unitIsForeign } from './unit-ownership';
import { isMasked } from './unit-state';
import type { UnitSpec } from './systemd-unit';

/** Whether the template's apply runs `systemctl disable <template>` (unit-diff.ts `enableStep`, `linkedName`). */
export const disablesEveryInstance = (spec: DesiredUnit, before: LiveUnit, rewritten: boolean): boolean =>
  isTemplate(spec.name) &&
  enableStep(spec, before, rewritten) === 'disable' &&
  linkedName(spec, before, rewritten) === spec.name;

type Declared = Exclude<UnitChange, { sort: 'drop-in' }>;

/** The batch's instances of `template` (the same directory) declared enabled, by name. */
export const enabledInstancesOf = (template: DesiredUnit, batch: readonly UnitChange[]): string[] =>
  batch.flatMap(({ sort, spec }) =>
    sort === 'instance' && spec.template === template.name && spec.directory === template.directory && spec.enabled
      ? [spec.name]
      : [],
  );

/** The batch's template of an instance (the same directory), declared as a unit; undefined for a unit. */
export const batchTemplateOf = (change: Declared, batch: readonly UnitChange[]): UnitSpec | undefined => {
  if (change.sort !== 'instance') return undefined;
  const { template, directory } = change.spec;
  const units = batch.flatMap((other) => (other.sort === 'unit' ? [other.spec] : []));
  return units.find(({ name, directory: where }) => name === template && where === directory);
};

/**
 * Whether the apply refuses the template before it changes anything, read `before`: masked and not to be unmasked
 * or shadowed (handlers/linux/unit-refusals.ts), not created by this stack and not adopted, or another stack's and
 * not taken over (core/ownership.ts, `owned`: what its construct says). Its disable then never runs.
 */
export const refusedTemplate = (
  { spec, owned }: { readonly spec: UnitSpec; readonly owned?: Owned },
  before: LiveUnit,
  stack: string | undefined,
): boolean =>
  (isMasked(before.status) && !spec.unmask) ||
  before.overridden !== undefined ||
  (owned?.adopt !== true && unitIsForeign(before, true)) ||
  (owned?.takeOver !== true && isOtherStack(markStackOf(before), stack));

/** The template's state read before any change, as the plan judges its disable: none where the apply refuses it. */
export const templateBefore = (
  template: UnitSpec,
  batch: readonly UnitChange[],
  before: LiveUnit | undefined,
  stack: string | undefined,
): LiveUnit | undefined => {
  const change = batch.find(({ sort, spec }) => sort === 'unit' && spec === template);
  const owned = change?.sort === 'unit' ? change.owned : undefined;
  const refused = before !== undefined && refusedTemplate({ spec: template, owned }, before, stack);
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

/** The plan's words for a template whose disable unlinks `instances`, which the apply then enables again. */
export const enablesAgainWords = (template: string, instances: readonly string[]): string =>
  `the apply then enables ${instances.join(', ')} again, which this batch declares enabled and its ` +
  `systemctl disable ${template} unlinks (measured)`;

/** The plan's diff and words for an instance its batch template's disable unlinks. */
export const unlinkedDiff = (template: string) => ({
  live: `unlinked by systemctl disable ${template}`,
  want: 'enabled again after it',
});
export const unlinkedWords = (template: string): string =>
  `its template ${template}, which this batch declares disabled, is disabled by its name (systemctl disable ` +
  `${template}), which unlinks every instance (measured); the apply then enables this one again`;
