/**
 * What a host's batch apply refuses before it changes anything, as one pure judgement over the read: a masked unit it
 * may not unmask, a unit or an instance declared enabled that `systemctl enable` cannot link (its [Install] and its
 * drop-ins', the batch's and the host's, name nothing: unit-enable.ts) or with an alias its [Install] does not make
 * (unit-alias.ts), one with links no systemctl verb removes (unit-other-links.ts), a file systemd would not load
 * (unit-loaded.ts), and one its marks make another's (core/ownership.ts `markRefusal`). The apply throws it
 * (handlers/linux/unit-refusals.ts); the plan reads the same judgement where another object's apply depends on it
 * (unit-template-disable.ts), so the two cannot drift: the plan's own copy of this list missed the unlinkable instance
 * and said it would be enabled again (measured). The plan's reading also takes from it whether the apply converges
 * the object (`convergesAsRead`), so the drift warning promises that by this judgement, never by its line's words.
 */
import type { Owned } from '../core/kind';
import { markRefusal } from '../core/ownership';
import { aliasRefusalWords, refusedAliases } from './unit-alias';
import { type BatchFiles, enableInputOf, unitOf, type UnitChange } from './unit-batch';
import type { LiveUnit } from './unit-control';
import { cannotEnable, ENABLE_FIX, enabledProblem } from './unit-enable';
import { overriddenWords } from './unit-loaded';
import { maskOutOfReach, unmaskAdvice } from './unit-mask';
import { markStackOf, unitIsForeign } from './unit-ownership';
import { isMasked } from './unit-state';
import { enableRefused } from './unit-link-judge';
import { isTemplate } from './unit-name';
import { otherLinksVerdict, otherLinksWords, unremovableLinks } from './unit-other-links';
import { TEMPLATE_ENABLE_FIX, templateEnabledProblem } from './template-enable';

/** One refusal: `<subject> on <host> <verdict>: <detail>`, with the facts it names. */
export interface UnitRefusal {
  readonly subject: string;
  readonly verdict: string;
  readonly detail: string;
  readonly facts?: Readonly<Record<string, string>>;
}

/** What the apply refuses of `change` read `before`, `files` being its batch's; undefined when it may go on. */
export const unitRefusalOf = (change: UnitChange, before: LiveUnit, files: BatchFiles): UnitRefusal | undefined =>
  masked(change, before) ??
  unlinkable(change, before, files) ??
  aliased(change, before) ??
  unremovable(change, before) ??
  overridden(change, before);

const masked = (change: UnitChange, { status }: LiveUnit): UnitRefusal | undefined => {
  if (change.sort === 'drop-in' || !isMasked(status)) return undefined;
  if (change.spec.unmask && maskOutOfReach(change.spec, status) === undefined) return undefined;
  const detail = `systemd will not start or enable it; ${unmaskAdvice(change.spec, status)}`;
  return { subject: change.spec.name, verdict: 'is masked', detail, facts: { UnitFileState: status.unitFileState } };
};

const unlinkable = (change: UnitChange, before: LiveUnit, files: BatchFiles): UnitRefusal | undefined => {
  if (change.sort === 'drop-in') return undefined;
  const { spec } = change;
  const templateOf = change.sort === 'instance' ? change.spec.template : undefined;
  const { text, dropIns } = enableInputOf(change, files);
  const why = cannotEnable({ ...spec, template: templateOf }, text, dropIns, before.status, before.links?.dropIns);
  if (why === undefined) return undefined;
  const template = isTemplate(spec.name);
  const rule = template ? templateEnabledProblem() : enabledProblem(change.sort);
  const fix = template ? TEMPLATE_ENABLE_FIX : ENABLE_FIX;
  const detail = `${why}: ${rule.prop} ${rule.says}; nothing was changed: ${fix}`;
  return { subject: spec.name, verdict: 'is declared enabled', detail };
};

/** An instance declared enabled with an alias no systemctl verb the apply has removes: its removal by hand. */
const aliased = (change: UnitChange, { links }: LiveUnit): UnitRefusal | undefined => {
  const aliases = change.sort === 'drop-in' ? undefined : refusedAliases(change.spec.enabled, links);
  if (aliases === undefined) return undefined;
  const detail = `${aliasRefusalWords(aliases)}; nothing was changed`;
  return { subject: change.spec.name, verdict: 'has an alias its [Install] does not make', detail };
};

/** A unit or an instance with links in a directory no systemctl verb the apply has unlinks: their removal by hand. */
const unremovable = (change: UnitChange, { links }: LiveUnit): UnitRefusal | undefined => {
  if (change.sort === 'drop-in') return undefined;
  const paths = unremovableLinks(change.spec.enabled, links);
  if (paths === undefined) return undefined;
  const detail = `${otherLinksWords(change.spec.enabled, paths)}; nothing was changed`;
  return { subject: change.spec.name, verdict: otherLinksVerdict(paths), detail };
};

const overridden = (change: UnitChange, { overridden: by }: LiveUnit): UnitRefusal | undefined => {
  if (by === undefined) return undefined;
  const detail = `${overriddenWords(by)}; nothing was changed`;
  return by.declared.as === 'drop-in'
    ? { subject: `drop-in ${by.declared.path}`, verdict: 'is overridden', detail }
    : { subject: unitOf(change), verdict: 'is shadowed', detail };
};

const NOT_OWNED: Owned = { adopt: false, takeOver: false };

/**
 * Whether the apply refuses the unit or instance before it changes anything, read `before`: the refusals above, or
 * its marks (not created by this stack and not adopted, another stack's and not taken over: what its construct
 * says, `owned`).
 */
export const refusedBefore = (
  change: Exclude<UnitChange, { sort: 'drop-in' }>,
  before: LiveUnit,
  files: BatchFiles,
  stack: string | undefined,
): boolean => unitRefusalOf(change, before, files) !== undefined || refusedForMarks(change, before, stack);

/**
 * Whether the apply refuses it for its marks alone, which the run does before the host's transaction, so that
 * transaction never sees it: to that apply, an object this stack does not declare (unit-template-disable.ts).
 */
export const refusedForMarks = (
  change: Exclude<UnitChange, { sort: 'drop-in' }>,
  before: LiveUnit,
  stack: string | undefined,
): boolean => {
  const marks = { markStack: markStackOf(before), foreign: unitIsForeign(before, change.sort === 'unit') };
  return markRefusal(marks, change.owned ?? NOT_OWNED, stack) !== undefined;
};

/**
 * Whether the apply converges the object as read `before`: it refuses none of it before any change, and enables
 * nothing `systemctl enable` refuses (unit-link-judge.ts). Its marks are core/ownership.ts's to judge.
 */
export const convergesAsRead = (change: UnitChange, before: LiveUnit, files: BatchFiles): boolean =>
  unitRefusalOf(change, before, files) === undefined &&
  (change.sort === 'drop-in' || !enableRefused(change.spec, before));
