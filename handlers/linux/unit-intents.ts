/**
 * The first and last steps of a host's batch apply (DESIGN, Interruption): every object's intent
 * written in one request to the root helper before the first effect, and, once the objects read back as declared, their
 * records (with the content and run their process was started with) and the removal of their
 * intents in one request. A kill in between leaves intents the read reports and the next apply
 * finishes; the object is never read as foreign.
 */
import { sha256Hex } from '../../src/core/canonical';
import { HandlerError } from '../../src/core/errors';
import { HELPER_TEXT_MAX } from '../../src/linux/root-helper-script';
import type { LiveUnit } from '../../src/linux/unit-control';
import { dropInUnitRuns } from '../../src/linux/systemd-drop-in';
import { clearIntentStep, type HelperStep, intentStep, recordStep, type UnitObject } from '../../src/linux/root-helper';
import { fileOf, mustWrite, objectOf, type UnitChange } from '../../src/linux/unit-batch';
import { runningOf } from '../../src/linux/unit-diff';
import { INTENT_DIR } from '../../src/linux/state-paths';
import { type IntentEntry, intentRest, recordText, type RecordEntry } from '../../src/linux/unit-intent';
import { isTemplate } from '../../src/linux/unit-name';
import { intentRelinks } from '../../src/linux/unit-template-disable';
import { DROP_IN_MARK } from '../../src/linux/unit-ownership';
import { restartPending } from '../../src/linux/unit-stale';
import type { HostShell } from './host-shell';
import { active, all, type Track } from './unit-track';

/** Whether this apply is to start or restart the object's unit, as far as the read before it tells. */
const restartsOf = (change: UnitChange, before: LiveUnit): boolean => {
  if (change.sort === 'drop-in') return dropInUnitRuns(before) && (mustWrite(change, before) || restartPending(before));
  const { spec } = change;
  if (!spec.started || isTemplate(spec.name)) return false;
  const moved = before.restartOn !== spec.restartOn;
  return !runningOf(spec, before) || mustWrite(change, before) || moved || restartPending(before);
};

/**
 * What the object's intent says; a template's names the instances its disable by its name or its rewrite's reenable
 * unlinks that the apply then links again (unit-template-disable.ts `intentRelinks`, with the write to come), so an
 * apply stopped between the two leaves what the next one needs to link them again.
 */
const intentOf = ({ item: { change }, before, stack }: Track, batch: readonly UnitChange[]): IntentEntry => {
  const file = fileOf(change);
  const relink =
    change.sort === 'unit' ? intentRelinks(change.spec, before, mustWrite(change, before), batch) : undefined;
  return {
    object: objectOf(change),
    unit: change.sort === 'drop-in' ? change.spec.unit : change.spec.name,
    ...(file === undefined ? {} : { sha256: sha256Hex(file.content) }),
    restart: restartsOf(change, before),
    ...(stack === undefined ? {} : { stack }),
    ...(relink === undefined || relink.etc.length + relink.run.length === 0 ? {} : { relink }),
  };
};

/** The helper's step that writes `entry`: the host's clock stamps it. */
const writeIntentStep = (entry: IntentEntry): HelperStep => intentStep(entry.object, intentRest(entry));

/**
 * The helper's steps that write `records` and then remove the intents of `cleared`, in one request
 * (the helper installs every file of a request before it removes any).
 */
export const recordSteps = (records: readonly RecordEntry[], cleared: readonly UnitObject[]): HelperStep[] => [
  ...records.map(({ object, text }) => recordStep(object, text)),
  ...cleared.map(clearIntentStep),
];

/**
 * Writes the intent of every active object, in one request; one that fails fails them all, each named. A template
 * whose intent cannot name every instance it is to link again (the helper's text limit) is refused first, alone:
 * an apply stopped after its disable would lose them.
 */
export const writeIntents = async (shell: HostShell, tracks: readonly Track[]): Promise<void> => {
  const batch = tracks.map(({ item }) => item.change);
  const steps: HelperStep[] = [];
  const live: Track[] = [];
  for (const track of active(tracks)) {
    const entry = intentOf(track, batch);
    track.refused = tooManyToName(shell.host, entry);
    if (track.refused !== undefined) continue;
    live.push(track);
    steps.push(writeIntentStep(entry));
  }
  if (live.length === 0) return;
  await all(live, async () => {
    await shell.mustHelper(steps);
    for (const track of live) track.intended = true;
    const count = live.length === 1 ? '1 object' : `${live.length} objects`;
    shell.log(`${shell.host}: wrote the intents of ${count} (${INTENT_DIR})`);
  });
};

/** Why `entry` is more than the root helper takes (a template with too many instances to link again), if it is. */
export const tooManyToName = (host: string, entry: IntentEntry): HandlerError | undefined => {
  if (intentRest(entry).length <= HELPER_TEXT_MAX) return undefined;
  const { etc = [], run = [] } = entry.relink ?? {};
  return new HandlerError(
    `${entry.unit} on ${host} was not applied`,
    `its systemctl disable by its name unlinks ${etc.length + run.length} instances this stack does not declare ` +
      `(${[...etc, ...run].join(', ')}), which the apply links again after it; its intent on the host cannot name ` +
      `them all (at most ${HELPER_TEXT_MAX} characters), so an apply stopped in between would leave them ` +
      'unlinked: declare them (SystemdUnit.instance), or disable the template by hand first',
  );
};

/** The object as read, less the intent this apply wrote: the one it found stays in `before`. */
export const withoutOwnIntent = (track: Track, live: LiveUnit): LiveUnit => {
  const { intent: _, ...rest } = live;
  return track.before.intent === undefined ? rest : { ...rest, intent: track.before.intent };
};

/** What the record of an object read back as `after` says: the restartOn or mark, and the run. */
const recordedOf = ({ item: { change } }: Track, after: LiveUnit) => {
  const first = change.sort === 'drop-in' ? DROP_IN_MARK : change.spec.restartOn;
  const { content, status } = after;
  const started =
    change.sort !== 'drop-in' && isTemplate(change.spec.name) ? undefined : { content, invocation: status.invocation };
  return { first, started };
};

/** The object read back as `after` as the next read will see it, once its record is written and intent removed. */
export const asRecorded = (track: Track, after: LiveUnit): LiveUnit => {
  const { first, started } = recordedOf(track, after);
  const { intent: _, startedWith: __, recordStack: ___, ...rest } = after;
  const { content, invocation } = started ?? {};
  return {
    ...rest,
    restartOn: first,
    ...(content === undefined || invocation === undefined ? {} : { startedWith: { content, invocation } }),
    ...(track.stack === undefined ? {} : { recordStack: track.stack }),
  };
};

/**
 * The record of a converged object, read back as `after`: undefined when it already says that. One
 * naming no stack, or another (taken over), says otherwise, so it is written with the track's.
 */
const recordOf = (track: Track, after: LiveUnit): RecordEntry | undefined => {
  const { first, started } = recordedOf(track, after);
  const text = recordText(first, started, track.stack);
  const now =
    after.restartOn === undefined ? undefined : recordText(after.restartOn, after.startedWith, after.recordStack);
  return now === text ? undefined : { object: objectOf(track.item.change), text };
};

/**
 * Writes the record of each object in `converged` (each with its read-back) and then removes their
 * intents, with those of `untouched` (objects this apply changed nothing of), in one request.
 */
export const recordAndClear = async (
  shell: HostShell,
  converged: ReadonlyArray<{ track: Track; after: LiveUnit }>,
  untouched: readonly Track[] = [],
): Promise<void> => {
  const records = converged.flatMap(({ track, after }) => recordOf(track, after) ?? []);
  const cleared = [...converged.map(({ track }) => track), ...untouched].map((track) => objectOf(track.item.change));
  if (records.length === 0 && cleared.length === 0) return;
  await all(
    converged.map(({ track }) => track),
    () => shell.mustHelper(recordSteps(records, cleared)),
  );
};
