/**
 * The pure half of a unit's read and apply: the drift between the declared unit and what the host
 * reports, and the steps that close it. Both go through `isUnitRunning`, so a plan and the apply
 * that follows can never disagree about whether a unit is running.
 */
import { sha256Hex } from '../core/canonical';
import { describeDiff, type FieldDiff } from '../core/protocol';
import type { DesiredUnit, LiveUnit } from './unit-control';
import { type EnableInput, enableWords } from './unit-enable';
import { LINK_ROOTS } from './links-command';
import { comparedLinks, hasLinkDrift, linkDrift, linkWords, madeAliases } from './unit-links';
import { refusesLinks, unremovableLinks } from './unit-other-links';
import { OVERRIDDEN_FIELD, overriddenDiff, overriddenPart } from './unit-loaded';
import { maskWords } from './unit-mask';
import { instanceOf, isTemplate } from './unit-name';
import { enablementOf, isMasked, isUnitRunning, type UnitStatus } from './unit-state';
import { PENDING_FIELDS, pendingDiff, pendingWords, restartPending } from './unit-stale';
import { UNLOADED_FIELD, unloadedDiff, unloadedWords } from './unloaded-drop-ins';

export const isAbsent = (live: LiveUnit): boolean =>
  live.fileSha256 === undefined && live.status.loadState === 'not-found';

/** Still activating (not a crash loop) for longer than the unit's start deadline. */
export const isOverdue = (spec: Pick<DesiredUnit, 'startTimeoutSeconds'>, live: LiveUnit): boolean =>
  live.status.activeState === 'activating' &&
  !live.status.subState.startsWith('auto-restart') &&
  (live.stateSeconds ?? 0) > spec.startTimeoutSeconds;

/** Whether the unit counts as running against the spec, by the one shared policy. */
export const runningOf = (spec: DesiredUnit, live: LiveUnit): boolean =>
  isUnitRunning(live.status.activeState, live.status.subState, spec.started, isOverdue(spec, live));

/** `activating/start for 5 min` when it has been so for longer than its deadline, else the state. */
export const stateOf = (spec: DesiredUnit, live: LiveUnit): string => {
  const state = `${live.status.activeState}/${live.status.subState}`;
  return isOverdue(spec, live) ? `${state} for ${duration(live.stateSeconds ?? 0)}` : state;
};

const duration = (seconds: number): string =>
  seconds < 120
    ? `${Math.round(seconds)} s`
    : seconds < 7200
      ? `${Math.round(seconds / 60)} min`
      : `${Math.round(seconds / 3600)} h`;

/** What the diff says of a unit file that is a symbolic link (unit-control.ts `fileIsLink`). */
export const LINKED_FILE =
  'a symbolic link, which systemctl disable would remove: the apply writes the file in its place';

/**
 * Every way the host differs from the spec; empty when in sync. `batch`: what its enable reads once the batch is
 * written (unit-enable.ts), known to a plan's batch read, not to a read back after the apply.
 */
export const diffUnit = (spec: DesiredUnit, live: LiveUnit, batch?: EnableInput): FieldDiff => {
  const changes: Record<string, { live: unknown; want: unknown }> = overriddenDiff(live.overridden);
  if (isMasked(live.status)) changes.masked = { live: true, want: false };
  if (spec.content !== undefined) {
    const want = sha256Hex(spec.content);
    if (live.fileSha256 !== want || live.fileIsLink === true)
      changes.file = { live: live.fileIsLink === true ? LINKED_FILE : short(live.fileSha256), want: short(want) };
  }
  const enablement = enablementOf(live.status.unitFileState);
  // A file the apply rewrites may bring an [Install]: systemd's `static` is of the file it replaces.
  const unlinkable = enableWords(
    { ...spec, template: templateOf(spec) },
    live.status,
    changes.file === undefined,
    batch,
    live.links?.dropIns,
  );
  // Ahead of its template's absence: the apply refuses it before writing that template.
  if (unlinkable !== undefined) changes.enabled = { live: unlinkable, want: true };
  else if (spec.enabled && templateAbsent(spec, live)) changes.enabled = { live: NO_TEMPLATE, want: true };
  // Ahead of its enablement, which is-enabled says `disabled` once its own links are gone: the apply refuses it.
  else if (refusesLinks(spec.enabled, live.links)) changes[LINKS_FIELD] = linksDiff(spec, live);
  // A template declared disabled reads `enabled` for any link named for its default instance (measured): named.
  else if (!spec.enabled && isDefaultInstanced(live) && hasLinkDrift(linksDriftOf(spec, live)))
    changes[LINKS_FIELD] = linksDiff(spec, live);
  else if (enablement !== undefined && enablement !== (spec.enabled ? 'enabled' : 'disabled'))
    changes.enabled = { live: enablement === 'runtime' ? RUNTIME_ONLY : enablement === 'enabled', want: spec.enabled };
  else if (hasLinkDrift(linksDriftOf(spec, live))) changes[LINKS_FIELD] = linksDiff(spec, live);
  const running = runningOf(spec, live);
  if (running !== spec.started)
    changes.running = { live: stateOf(spec, live), want: spec.started ? 'running' : 'stopped' };
  if (live.status.needDaemonReload) changes.NeedDaemonReload = { live: 'yes', want: 'no' };
  Object.assign(changes, unloadedDiff(live.status));
  if (running && spec.started && live.restartOn !== undefined && live.restartOn !== spec.restartOn) {
    changes.restartOn = { live: short(live.restartOn), want: short(spec.restartOn) };
  }
  return { ...changes, ...pendingDiff(live, running) };
};

/**
 * How its links differ from those its [Install] makes (unit-links.ts), judged where systemd says it is
 * enabled or disabled at all (not static or generated), or indirect for a template whose links are compared
 * (another instance's link keeps it so once its own are gone: measured, systemd 252), and wherever the apply
 * refuses it over its links (unit-other-links.ts, unit-alias.ts), so that the plan says so.
 */
const linksDriftOf = (spec: DesiredUnit, live: LiveUnit) => {
  const state = live.status.unitFileState;
  const judged =
    enablementOf(state) !== undefined ||
    (state === 'indirect' && (isDefaultInstanced(live) || live.links?.aliasesOnly === true)) ||
    refusesLinks(spec.enabled, live.links);
  return judged ? linkDrift(spec.enabled, live.links) : undefined;
};

const isDefaultInstanced = (live: LiveUnit): boolean => live.links?.defaultInstance !== undefined;

const LINKS_FIELD = 'links';

/** Every link found, against the links the apply leaves: those its [Install] makes under /etc, or none. */
const linksDiff = (spec: DesiredUnit, { links }: LiveUnit) => ({
  live: [
    ...(links === undefined ? [] : comparedLinks(links).etc).map((path) => `${LINK_ROOTS.etc}/${path}`),
    ...(links === undefined ? [] : comparedLinks(links).run).map((path) => `${LINK_ROOTS.run}/${path}`),
    ...(unremovableLinks(spec.enabled, links) ?? []),
  ],
  want: !spec.enabled
    ? []
    : links?.unknown !== undefined
      ? `cannot compare: ${links.unknown}`
      : (links?.install ?? []).map((path) => `${LINK_ROOTS.etc}/${path}`),
});

/**
 * The template of an instance, when it is not on the host: systemd then answers no state for the instance
 * (`is-enabled` fails, `show` says not-found), so one declared enabled and stopped read in sync while the
 * apply that writes the template was to enable it (measured, systemd 252). Undefined for a unit, or an
 * instance whose template is there.
 */
const templateAbsent = (spec: DesiredUnit, live: LiveUnit): string | undefined =>
  spec.content === undefined && live.status.loadState === 'not-found' && live.status.unitFileState === ''
    ? instanceOf(spec.name)
    : undefined;

const NO_TEMPLATE = 'unknown (its template is not on the host)';

/** An instance's template (an instance has no content of its own); undefined for a unit. */
const templateOf = (spec: DesiredUnit): string | undefined =>
  spec.content === undefined ? instanceOf(spec.name) : undefined;

/** What the apply does to an instance whose template it writes first: the summary's words. */
const onceWritten = (spec: DesiredUnit, live: LiveUnit): string | undefined => {
  const template = templateAbsent(spec, live);
  const does = [...(spec.enabled ? ['enables'] : []), ...(spec.started ? ['starts'] : [])];
  if (template === undefined || does.length === 0) return undefined;
  return `its template ${template} is not on the host; the apply ${does.join(' and ')} it once the template is written`;
};

/** A unit enabled with `--runtime` alone: neither enabled for good nor disabled, so drift either way. */
const RUNTIME_ONLY = 'until reboot (/run only)';

export const short = (digest: string | undefined): string | null =>
  digest === undefined ? null : `sha256:${digest.slice(0, 12)}`;

/** The plan's one line: an interrupted apply's words first (unit-stale.ts); `also`: what its batch makes it do. */
export const summarizeUnit = (
  spec: DesiredUnit,
  host: string,
  live: LiveUnit,
  changes: FieldDiff,
  also?: string,
): string => {
  const name = `unit ${spec.name} on ${host}`;
  const pending = pendingWords(live, runningOf(spec, live));
  if (isMasked(live.status)) return `${name} is masked (${describeDiff(changes)}); ${maskWords(spec, live.status)}`;
  if (isAbsent(live)) {
    // One the apply refuses (unit-refusal.ts) is never written: its refusal, not what the apply would do once written.
    const refusal = changes.enabled?.live;
    const refused =
      typeof refusal === 'string' && refusal !== NO_TEMPLATE ? `the apply refuses it: ${refusal}` : undefined;
    const words = [refused ?? onceWritten(spec, live), also, pending].filter((said) => said !== undefined).join('; ');
    return `${name} is absent${words === '' ? '' : `: ${words}`}`;
  }
  const state = stateOf(spec, live);
  if (Object.keys(changes).length === 0) return `${name} is in sync (${state})`;
  const shadow = overriddenPart(live.overridden);
  const drift = changes[LINKS_FIELD] === undefined ? undefined : linksDriftOf(spec, live);
  const links = hasLinkDrift(drift) ? `${linkWords(drift, spec.enabled)}${unlinksAll(spec, live)}` : undefined;
  const words =
    [shadow, unloadedWords(live.status), links, also, pending].filter((said) => said !== undefined).join('; ') ||
    undefined;
  const rest = Object.fromEntries(Object.entries(changes).filter(([field]) => !IN_WORDS.includes(field)));
  const differs = Object.keys(rest).length === 0 ? undefined : `differs: ${describeDiff(rest)}`;
  if (words === undefined) return `${name} (${state}) ${differs}`;
  return `${name} (${state}): ${words}${differs === undefined ? '' : `; ${differs}`}`;
};

/** A template declared disabled whose enable's alias is there: its disable, which alone removes it, unlinks all. */
const unlinksAll = (spec: DesiredUnit, live: LiveUnit): string =>
  !spec.enabled && isDefaultInstanced(live) && aliasFound(live)
    ? `; the apply disables ${spec.name}, which unlinks every instance: only its disable removes its alias (measured)`
    : '';

/** An instance its batch template's disable unlinks (unit-template-disable.ts), said in `also`'s words. */
export const UNLINKED_FIELD = 'unlinkedByTemplate';

/** The fields the summary names in words, ahead of what differs. */
export const IN_WORDS: readonly string[] = [
  ...PENDING_FIELDS,
  OVERRIDDEN_FIELD,
  LINKS_FIELD,
  UNLINKED_FIELD,
  UNLOADED_FIELD,
];

/**
 * Enable or disable, decided from the state read before any write, so that it runs before the
 * host's one reload and that reload shows it. A unit systemd had not loaded (a new file, an instance
 * of a new template, a masked one) reads no enablement: it is enabled when declared so (one whose
 * [Install] names nothing to link is never declared so: unit-enable.ts), and so is one systemd calls `static`,
 * whose [Install] a drop-in the apply writes may bring (the read back judges it). One whose links are not those
 * its [Install] makes, or whose file (an instance: its template's) the apply rewrites, is re-enabled:
 * `enable` only adds, and the link of an old WantedBy= stayed (measured, systemd 252). One enabled until
 * reboot alone is enabled for good, or disabled under /run too. `rewritten`: its file, or an instance's
 * template's, is written by this apply.
 */
export const enableStep = (spec: DesiredUnit, before: LiveUnit, rewritten: boolean): EnableStep | undefined => {
  const enablement = enablementOf(before.status.unitFileState);
  const unread = before.status.loadState !== 'loaded' && enablement === undefined;
  const linked = enablement === 'enabled' || enablement === 'runtime';
  const drift = linksDriftOf(spec, before);
  if (!spec.enabled) return linked || hasLinkDrift(drift) ? 'disable' : undefined;
  // One whose links the read cannot compare is re-enabled, so they are those enable makes (unit-links.ts).
  const stray = (drift?.stray.length ?? 0) > 0 || drift?.unknown !== undefined;
  const kept = enablement === 'enabled' || (isDefaultInstanced(before) && !unread && enablement !== 'disabled');
  const missing = kept && (drift?.missing.length ?? 0) > 0;
  // A template without DefaultInstance=: its enable makes its aliases alone (none other is compared), where its
  // reenable unlinks every instance (measured, systemd 252).
  if (!rewritten && before.links?.aliasesOnly === true && (drift?.missing.length ?? 0) > 0) return 'enable';
  if ((rewritten && linked) || stray || missing) return !rewritten && aliasesMade(before) ? 'relink' : 'reenable';
  // `static` on the host: a drop-in the apply writes may bring its [Install] (unit-enable.ts `enableWords`).
  const unlinked = before.status.unitFileState === 'static' && !isTemplate(spec.name);
  return (enablement !== undefined && enablement !== 'enabled') || rewritten || unread || unlinked
    ? 'enable'
    : undefined;
};

export type EnableStep = 'enable' | 'reenable' | 'relink' | 'disable';

/** A template whose enable makes aliases for its default instance (unit-links.ts `madeAliases`). */
const aliasesMade = (live: LiveUnit): boolean =>
  isDefaultInstanced(live) && live.links !== undefined && madeAliases(live.links).length > 0;

/** Such an alias is on the host: only the template's disable removes it (measured, systemd 252). */
const aliasFound = ({ links }: LiveUnit): boolean =>
  links !== undefined && madeAliases(links).some((alias) => [...links.etc, ...links.run].includes(alias));

/**
 * The name its enable step acts on: its own, but a template's default instance where only the links named for it
 * are re-enabled or relinked (`relink` enables the template after), or unlinked for a template declared disabled
 * without an alias its enable made (unit-links.ts). A template's reenable or disable unlinks every instance (an
 * instance object's too: measured, systemd 252); its default instance's, only the links named for it, and its
 * reenable then links what the template's enable links, but for Alias= (measured).
 */
export const linkedName = (spec: DesiredUnit, before: LiveUnit, rewritten: boolean): string => {
  const instance = before.links?.defaultInstance;
  const step = enableStep(spec, before, rewritten);
  const unlinked = step === 'disable' && hasLinkDrift(linksDriftOf(spec, before)) && !aliasFound(before);
  const own = step === 'reenable' || step === 'relink' || unlinked;
  return instance !== undefined && own && !rewritten ? instance : spec.name;
};

/**
 * Whether an enable or disable shows only after a reload: a loaded instance keeps its old
 * UnitFileState until one, and Alias= and Also= name units the manager learns of only in one
 * (measured, systemd 252). A plain unit's state follows at once.
 */
export const enableNeedsReload = (spec: DesiredUnit): boolean =>
  spec.content === undefined || /^\s*(Alias|Also)\s*=/m.test(spec.content);

/** Which job closes the gap, from the status read after the reload. */
export interface SettleSteps {
  readonly start: boolean;
  readonly stop: boolean;
  readonly restart: boolean;
}

/**
 * Never stop a declared `started: false` oneshot mid-run, never start a unit already activating,
 * and restart a running unit whose file or restartOn changed, or whose restart is pending (an
 * interrupted apply's intent, or a process older than its content: unit-stale.ts).
 */
export const settleSteps = (spec: DesiredUnit, live: LiveUnit, written: boolean): SettleSteps => {
  const running = runningOf(spec, live);
  const restartOnMoved = live.restartOn !== undefined && live.restartOn !== spec.restartOn;
  return {
    stop: !spec.started && running,
    start: spec.started && !running,
    restart: spec.started && running && (written || restartOnMoved || restartPending(live)),
  };
};

/** What a wait after the steps must see: active for a start or restart, inactive for a stop. */
export const settleTarget = (steps: SettleSteps): 'active' | 'inactive' | undefined =>
  steps.start || steps.restart ? 'active' : steps.stop ? 'inactive' : undefined;

export type { UnitStatus };
