/**
 * The pure half of a unit's read and apply: the drift between the declared unit and what the host
 * reports, the plan's line for it, and the settle steps that close it (the enable step:
 * unit-enable-step.ts). Both go through `isUnitRunning`, so a plan and the apply
 * that follows can never disagree about whether a unit is running.
 */
import { sha256Hex } from '../core/canonical';
import { describeDiff, type FieldDiff } from '../core/protocol';
import type { DesiredUnit, LiveUnit } from './unit-control';
import { type EnableInput, enableWords } from './unit-enable';
import { aliasFound, isDefaultInstanced, LINKS_FIELD, linksDiff, linksDriftOf, linkWords } from './unit-link-judge';
import { hasLinkDrift } from './unit-links';
import { refusesLinks } from './unit-other-links';
import { OVERRIDDEN_FIELD, overriddenDiff, overriddenPart } from './unit-loaded';
import { maskWords } from './unit-mask';
import { instanceOf } from './unit-name';
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
      changes.file = { live: live.fileIsLink === true ? LINKED_FILE : liveFileWords(live), want: short(want) };
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

/**
 * What the diff says of a file on the host that is not the declared one: its size, never a digest of its content,
 * which the read result carries into the plan and the state and which could be tested against guesses offline (a
 * file edited by hand may hold `Environment=TOKEN=...`). Unset when there is no file.
 */
export const liveFileWords = (live: Pick<LiveUnit, 'fileSha256' | 'fileStat'>): string | null => {
  if (live.fileSha256 === undefined) return null;
  const bytes = live.fileStat?.bytes;
  return bytes === undefined ? OTHER_CONTENT : `${OTHER_CONTENT} (${bytes} bytes)`;
};

const OTHER_CONTENT = 'not the declared content';

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
