/**
 * A template whose apply disables it by its own name (`systemctl disable a@.service`: declared disabled with the
 * alias its enable made there, which only that verb removes, or its file rewritten) unlinks every instance, so an
 * instance the same batch declares enabled failed its apply after the template's disable (measured, systemd 252).
 * The apply enables such an instance again after that disable, which ends both as declared (measured: its links
 * and its own alias back, the template `indirect` and in sync), and both plans say so, in the words here. A template
 * the apply refuses (unit-refusal.ts `refusedBefore`, the apply's own judgement) is never disabled, so neither plan
 * says so of it (measured: both said it). An instance the apply refuses (shadowed by a file of its name, one enable
 * cannot link, ...) stays unlinked by that disable, and both plans say so (measured: both said it was enabled again,
 * the apply left it unlinked). That disable unlinks the instances this stack does not declare too (enabled by hand),
 * which the apply left unlinked, an object never declared changed (measured): the apply links each again after it,
 * as it was (`linkedAgain`), and the template's plan says so; so too one refused for its marks, which the run
 * refuses before the host's transaction (unit-refusal.ts `refusedForMarks`), and both plans say so. Not its default
 * instance, whose links are the template's own: list-unit-files says the template `enabled` for any of them, so a
 * template declared disabled reads in sync only without them (measured).
 */
import { type BatchFiles, mustWrite, type UnitChange, unitOf } from './unit-batch';
import type { DesiredUnit, LiveUnit } from './unit-control';
import { enableStep, linkedName } from './unit-enable-step';
import type { Relinked } from './unit-intent';
import { instanceOf, isTemplate, unitNameProblem } from './unit-name';
import { refusedBefore } from './unit-refusal';
import type { UnitSpec } from './systemd-unit';

/** Whether the template's apply runs `systemctl disable <template>` (unit-diff.ts `enableStep`, `linkedName`). */
export const disablesEveryInstance = (spec: DesiredUnit, before: LiveUnit, rewritten: boolean): boolean =>
  isTemplate(spec.name) &&
  enableStep(spec, before, rewritten) === 'disable' &&
  linkedName(spec, before, rewritten) === spec.name;

type Declared = Exclude<UnitChange, { sort: 'drop-in' }>;

/** The instances a template's links are for: `<target>.wants/<instance>` (not an alias). */
export const instancesIn = (template: string, paths: readonly string[]): string[] => [
  ...new Set(
    paths.flatMap((path) => {
      const name = path.split('/')[1];
      return name !== undefined && instanceOf(name) === template ? [name] : [];
    }),
  ),
];

/**
 * The instances the template's disable by its name unlinks that `batch` does not declare, but its default instance,
 * by where they had links `before` any change: the apply links them again after that disable, under /etc with
 * `enable` and under /run with `enable --runtime`, as they were (measured, systemd 252). None where it is not so
 * disabled. `rewritten`: the apply writes its file. With them, those an apply stopped between that disable and
 * their links left unlinked, as its intent named them (`stoppedRelinks`).
 */
export const linkedAgain = (
  template: DesiredUnit,
  before: LiveUnit,
  rewritten: boolean,
  batch: readonly UnitChange[],
): Relinked => linkedAgainIf(disablesEveryInstance(template, before, rewritten), template, before, batch);

/** `linkedAgain` once whether the template's apply `disabled` it by its name is known. */
const linkedAgainIf = (
  disabled: boolean,
  template: DesiredUnit,
  before: LiveUnit,
  batch: readonly UnitChange[],
): Relinked => {
  const declared = new Set(batch.flatMap((change) => (change.sort === 'drop-in' ? [] : [change.spec.name])));
  const stopped = stoppedRelinks(template, before);
  const found = (paths: readonly string[] = [], left: readonly string[]) =>
    [...new Set([...(disabled ? instancesIn(template.name, paths) : []), ...left])].filter(
      (name) => !declared.has(name) && name !== before.links?.defaultInstance,
    );
  return { etc: found(before.links?.etc, stopped.etc), run: found(before.links?.run, stopped.run) };
};

/**
 * The instances a template's rewrite re-enables that `batch` does not declare (none where its disable by its name
 * unlinks every instance instead: `linkedAgain`), by where they had links `before` (handlers/linux/unit-relink.ts
 * `instancesToReenable` re-enables them). The root helper's reenable of the template runs `systemctl disable
 * --runtime` of it first, which unlinks every instance under /run, and those enabled until reboot are linked there
 * again in a later pass (measured, systemd 252): an apply stopped in between left them unlinked, so its intent names
 * them too.
 */
export const reenabledInstances = (
  template: DesiredUnit,
  before: LiveUnit,
  rewritten: boolean,
  batch: readonly UnitChange[],
): Relinked =>
  !isTemplate(template.name) || !rewritten || disablesEveryInstance(template, before, true)
    ? { etc: [], run: [] }
    : reenabledBy(template, before, batch);

/** `reenabledInstances` of a template whose rewrite re-enables it (not disabled by its name). */
const reenabledBy = (template: DesiredUnit, before: LiveUnit, batch: readonly UnitChange[]): Relinked => {
  const own = new Set(batch.map(unitOf));
  const found = (paths: readonly string[] = []) => instancesIn(template.name, paths).filter((name) => !own.has(name));
  return { etc: found(before.links?.etc), run: found(before.links?.run) };
};

/**
 * What the template's intent names to link again should its apply stop (unit-intent.ts `relink`): the instances it
 * links again after its disable by its name (`linkedAgain`) and those its rewrite re-enables (`reenabledInstances`),
 * but its default instance, whose links the template's own enable makes.
 */
export const intentRelinks = (
  template: DesiredUnit,
  before: LiveUnit,
  rewritten: boolean,
  batch: readonly UnitChange[],
): Relinked => {
  const disabled = disablesEveryInstance(template, before, rewritten);
  const again = linkedAgainIf(disabled, template, before, batch);
  const reenabled =
    isTemplate(template.name) && rewritten && !disabled ? reenabledBy(template, before, batch) : { etc: [], run: [] };
  const names = (root: 'etc' | 'run') =>
    [...new Set([...again[root], ...reenabled[root]])].filter((name) => name !== before.links?.defaultInstance);
  return { etc: names('etc'), run: names('run') };
};

/**
 * The instances the intent `before` holds (unit-intent.ts `relink`) that are still unlinked where it says: an apply
 * stopped after the template's disable and before it linked them again. Only the template's own instances: the
 * intent is a file on the host, and its names reach `systemctl enable` (the root helper checks each name too).
 */
export const stoppedRelinks = (template: { readonly name: string }, before: LiveUnit): Relinked => {
  const left = (names: readonly string[] = [], paths: readonly string[] = []) => {
    const linked = new Set(instancesIn(template.name, paths));
    return names.filter(
      (name) => unitNameProblem(name) === undefined && instanceOf(name) === template.name && !linked.has(name),
    );
  };
  const { relink } = before.intent ?? {};
  return { etc: left(relink?.etc, before.links?.etc), run: left(relink?.run, before.links?.run) };
};

/**
 * The template's plan's words for the instances `linkedAgain` names, `refused` among them: declared, and refused for
 * their marks before the transaction, which links them again as it does those the stack does not declare.
 */
export const linkedAgainWords = (
  template: string,
  { etc, run }: Relinked,
  refused: readonly string[] = [],
): string | undefined => {
  const where = (name: string) =>
    !run.includes(name)
      ? ''
      : etc.includes(name)
        ? ' (under /etc, and /run until reboot)'
        : ' (under /run, until reboot)';
  const all = [...new Set([...etc, ...run])].sort();
  const listed = (names: readonly string[]) => names.map((name) => `${name}${where(name)}`).join(', ');
  const [theirs, declined] = [
    all.filter((name) => !refused.includes(name)),
    all.filter((name) => refused.includes(name)),
  ];
  const unlinks = `its systemctl disable ${template} unlinks (measured)`;
  const words = [
    ...(theirs.length === 0
      ? []
      : [`the apply then links again ${listed(theirs)}, which this stack does not declare and ${unlinks}`]),
    ...(declined.length === 0
      ? []
      : [
          `the apply then links again ${listed(declined)} as before, which this batch declares, the apply ` +
            `refuses and ${unlinks}`,
        ]),
  ];
  return words.length === 0 ? undefined : words.join('; ');
};

/**
 * The plan's words for the instances an apply stopped between the template's disable and their links left unlinked
 * (`stoppedRelinks`, as `linkedAgain` keeps them): undefined where none.
 */
export const stoppedRelinkWords = (template: string, { etc, run }: Relinked): string | undefined => {
  const where = (name: string) =>
    run.includes(name) ? (etc.includes(name) ? ' (under /etc and /run)' : ' (under /run)') : '';
  const all = [...new Set([...etc, ...run])].sort();
  return all.length === 0
    ? undefined
    : `the apply links again ${all.map((name) => `${name}${where(name)}`).join(', ')}, which this stack does not ` +
        `declare and an apply stopped after its systemctl disable ${template} left unlinked`;
};

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

/**
 * The plan's diff and words for an instance its batch template's disable unlinks (`refused`: the apply refuses it;
 * `back`: for its marks, and the apply links it again as it was, `linkedAgain`).
 */
export const unlinkedDiff = (template: string, refused: boolean, back = false) => ({
  live: `unlinked by systemctl disable ${template}`,
  want: !refused
    ? 'enabled again after it'
    : back
      ? REFUSED_BACK
      : 'enabled, which the apply refuses: it stays unlinked',
});
export const unlinkedWords = (template: string, refused: boolean, back = false): string =>
  `its template ${template}, which this batch declares disabled, is disabled by its name (systemctl disable ` +
  `${template}), which unlinks every instance (measured); ` +
  (!refused
    ? 'the apply then enables this one again'
    : back
      ? `the apply refuses this one: ${REFUSED_BACK}`
      : 'the apply refuses this one: it stays unlinked');
const REFUSED_BACK = 'linked again after it as before';
