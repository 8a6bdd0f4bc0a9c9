/**
 * The undo of a host's batch apply and each object's outcome. What a failed object (or one after
 * it) changed is reverted: the previous file put back, or a new unit stopped and its file removed,
 * or a drop-in's unit restarted with the previous drop-in; the links an enable or disable made or
 * removed are put back as they were, so no link outlives its file. The undo of every object shares
 * one reload. A file changed since the apply wrote it (a hand's edit) is left as it is, and that object's undo
 * ends there. Each failure names the state its unit was left in.
 */
import { waitsFor } from '../../src/core/batch-apply';
import { HandlerError } from '../../src/core/errors';
import { mapConcurrent } from '../../src/core/pool';
import { dropInPath } from '../../src/linux/systemd-drop-in';
import { ConnectionLost } from '../../src/linux/ssh';
import { unitPath } from '../../src/linux/unit-file';
import { clearIntentStep, unlinkStep } from '../../src/linux/root-helper';
import { objectOf, unitOf } from '../../src/linux/unit-batch';
import { isTemplate } from '../../src/linux/unit-name';
import { enablementOf } from '../../src/linux/unit-state';
import { type HostShell, messageOf } from './host-shell';
import { relinkOf, unlinkedOnUndo, unlinksOnly } from './unit-relink';
import { leftWords, revertFile } from './unit-undo-file';
import { IN_FLIGHT, type Track } from './unit-track';

/** Undoes what failed, then answers each object's error, or undefined for one that converged. */
export const undoAndReport = async (
  shell: HostShell,
  tracks: readonly Track[],
): Promise<Map<string, Error | undefined>> => {
  const failed = tracks.filter((track) => track.cause !== undefined || track.blockedBy !== undefined);
  const [notes, broken] = await undo(
    shell,
    failed.filter((track) => track.wrote || track.switched !== undefined),
  );
  await clearUndone(shell, [...failed, ...tracks.filter((track) => track.refused !== undefined)], broken, notes);
  const states = await statesOf(shell, failed.filter(changedUnit));
  return new Map(tracks.map((track) => [track.item.name, outcomeOf(shell.host, track, notes, states)]));
};

/** The undo's words for each track it touched: `; restored …`, or `; the undo failed too …`. */
type Notes = Map<Track, string>;

type Fail = (track: Track, error: unknown) => void;

const undo = async (shell: HostShell, tracks: readonly Track[]): Promise<[Notes, Set<Track>]> => {
  const notes: Notes = new Map();
  const broken = new Set<Track>();
  // Those whose file changed after the apply wrote it: left as it is, the rest of their undo done, their intent kept.
  const left = new Set<Track>();
  const fail: Fail = (track, error) => {
    broken.add(track);
    notes.set(track, undoFailed(track, error));
  };
  const pending = () => tracks.filter((track) => !notes.has(track));
  const started = tracks.filter((track) => isNewUnit(track) && track.started && !isTemplate(unitOf(track.item.change)));
  let stopped = new Set<Track>();
  await attemptAll(started, async () => (stopped = await stopUnits(shell, started, fail)), fail);
  // Disabled while the file it was enabled with is there (that file's [Install] says which links),
  // under /etc alone, where an enable links; then linked again from the file put back as before the apply.
  const switched = pending().filter((track) => track.switched !== undefined && !unlinksOnly(track));
  await attemptAll(
    switched,
    () =>
      shell.mustMany(
        'disable',
        switched.map((track) => track.switchedAs ?? nameOf(track)),
        '--no-reload',
      ),
    fail,
  );
  // A plain disable leaves /run alone: the /run links the apply made again from the new file go too.
  const runtime = pending().filter((track) => track.runtimeAgain === true);
  await attemptAll(runtime, () => shell.mustLink('disable', runtime.map(nameOf)), fail);
  await attemptEach(pending(), (track) => revertFile(shell, track, left), fail);
  for (const verb of ['enable', 'reenable', 'reenable-runtime', 'enable-runtime'] as const) {
    const relink = pending().flatMap((track) => relinkOf(track, isNewUnit(track)).filter(([each]) => each === verb));
    const relinked = pending().filter((track) => relinkOf(track, isNewUnit(track)).some(([each]) => each === verb));
    await attemptAll(relinked, () => shell.mustLink(verb, [...new Set(relink.flatMap(([, names]) => names))]), fail);
  }
  // Those its relink made that were not there: a template alias no systemctl verb removes alone.
  const unlinks = pending().flatMap(({ item: { change }, ...track }) =>
    change.sort === 'unit' ? unlinkedOnUndo(track).map((link) => unlinkStep(change.spec, link)) : [],
  );
  const unlinked = pending().filter((track) => unlinkedOnUndo(track).length > 0);
  await attemptAll(unlinked, () => shell.mustHelper(unlinks), fail);
  const removed = pending().filter((track) => isNewUnit(track) && !left.has(track) && !isTemplate(nameOf(track)));
  let loaded = true;
  await attemptAll(removed, async () => (loaded = await clearRemoved(shell, removed)), fail);
  // systemd drops a stopped unit nothing refers to once its file is gone; anything else needs the reload.
  if (loaded || pending().some((track) => !removed.includes(track)))
    await attemptAll(pending(), () => shell.reload(), fail);
  const gone = new Set(pending().flatMap((track) => (isNewUnit(track) && !left.has(track) ? [nameOf(track)] : [])));
  const restart = pending().filter((track) => track.item.change.sort === 'drop-in' && track.started);
  const restarted = await restartUnits(
    shell,
    restart.filter((track) => !left.has(track) && !gone.has(nameOf(track))),
    fail,
  );
  for (const track of pending()) notes.set(track, wordsOf(track, left.has(track), stopped, restarted));
  return [notes, new Set([...broken, ...left])];
};

/**
 * Removes the intents this apply wrote for objects it left as they were (undone, or never changed),
 * in one command: an intent that an earlier, interrupted apply left stays, as does one whose undo failed.
 */
const clearUndone = async (shell: HostShell, tracks: readonly Track[], broken: Set<Track>, notes: Notes) => {
  const clear = tracks.filter((track) => track.intended && !broken.has(track) && track.before.intent === undefined);
  if (clear.length === 0) return;
  try {
    await shell.mustHelper(clear.map((track) => clearIntentStep(objectOf(track.item.change))));
  } catch (error) {
    if (error instanceof ConnectionLost) throw error;
    for (const track of clear) notes.set(track, `${notes.get(track) ?? ''}; its intent stays (${messageOf(error)})`);
  }
};

/** A unit this apply created: its undo removes its file. */
const isNewUnit = (track: Track): boolean =>
  track.item.change.sort === 'unit' && track.wrote && track.replaced !== true;

const nameOf = (track: Track): string => unitOf(track.item.change);

const enablementBefore = (track: Track) => enablementOf(track.before.status.unitFileState);

/** `work` on each track, `IN_FLIGHT` at once; a failure is the undo failure of its track. */
const attemptEach = (tracks: readonly Track[], work: (track: Track) => Promise<unknown>, fail: Fail) =>
  mapConcurrent(tracks, IN_FLIGHT, (track) => attemptAll([track], () => work(track), fail));

/** `work` once for `tracks`, when there are any; a failure is the undo failure of each. */
const attemptAll = async (tracks: readonly Track[], work: () => Promise<unknown>, fail: Fail): Promise<void> => {
  if (tracks.length === 0) return;
  try {
    await work();
  } catch (error) {
    if (error instanceof ConnectionLost) throw error;
    for (const track of tracks) fail(track, error);
  }
};

/** Stops those of `tracks` still running, together, before their files go: the ones it stopped. */
const stopUnits = async (shell: HostShell, tracks: readonly Track[], fail: Fail): Promise<Set<Track>> => {
  const states = await shell.statusesOf(tracks, (track) => unitOf(track.item.change));
  const running = states.flatMap(([track, { activeState }]) =>
    ['inactive', 'failed'].includes(activeState) ? [] : [track],
  );
  if (running.length === 0) return new Set();
  await shell.many(
    'stop',
    running.map((track) => unitOf(track.item.change)),
    '--no-block',
  );
  const outcomes = await shell.settleAll(running.map((track) => waitFor(track, 'inactive')));
  for (const track of running) {
    const error = outcomes.get(unitOf(track.item.change));
    if (error !== undefined) fail(track, error);
  }
  return new Set(running);
};

const waitFor = (track: Track, want: 'active' | 'inactive') => {
  const { change } = track.item;
  return { name: unitOf(change), want, seconds: change.spec.startTimeoutSeconds, log: track.log };
};

/**
 * Clears the failed record of removed units (one that failed stays listed, the host "degraded",
 * until then), and says whether systemd still has any of them loaded.
 */
const clearRemoved = async (shell: HostShell, tracks: readonly Track[]): Promise<boolean> => {
  const names = tracks.map((track) => unitOf(track.item.change));
  const failed = (await shell.statusesOf(names, (name) => name)).flatMap(([name, status]) =>
    status.activeState === 'failed' ? [name] : [],
  );
  if (failed.length > 0) await shell.mustMany('reset-failed', failed);
  return (await shell.statuses(names)).some((status) => status.loadState !== 'not-found');
};

/** Restarts the units whose drop-in restarted them, now with the drop-in put back: the tracks it restarted. */
const restartUnits = async (shell: HostShell, tracks: readonly Track[], fail: Fail): Promise<Set<Track>> => {
  const first = new Map<string, Track>();
  for (const track of tracks) if (!first.has(unitOf(track.item.change))) first.set(unitOf(track.item.change), track);
  const restarted = new Set<Track>();
  await attemptAll(
    tracks,
    async () => {
      if (first.size === 0) return;
      await shell.many('restart', [...first.keys()], '--no-block');
      const outcomes = await shell.settleAll([...first.values()].map((track) => waitFor(track, 'active')));
      for (const track of tracks) {
        const error = outcomes.get(unitOf(track.item.change));
        if (error === undefined) restarted.add(track);
        else fail(track, error);
      }
    },
    fail,
  );
  return restarted;
};

/** What the undo did of `track`: of one whose file it `left`, that first. */
const wordsOf = (track: Track, left: boolean, stopped: Set<Track>, restarted: Set<Track>): string =>
  left ? leftWords(track, stopped.has(track)) : undoneWords(track, stopped.has(track), restarted.has(track));

const undoneWords = (track: Track, stopped: boolean, restarted: boolean): string => {
  const { change } = track.item;
  if (change.sort === 'drop-in') {
    const what = track.replaced === true ? 'restored the previous drop-in' : 'removed the new drop-in';
    return `; ${what}${restarted ? ` and restarted ${change.spec.unit} with it` : ''}`;
  }
  const relinked = [...new Set([...(track.instances?.etc ?? []), ...(track.instances?.run ?? [])])].sort();
  const instances = relinked.length === 0 ? '' : ` and re-enabled its instances ${relinked.join(', ')}`;
  const links = track.switched ? ' and its links' : '';
  if (track.replaced === true) return `; restored the previous unit file${links}${instances}`;
  const both = relinkOf(track, false).filter(([, names]) => names.includes(nameOf(track))).length === 2;
  if (!track.wrote) return `; ${both ? BOTH : AGAIN[enablementBefore(track) ?? 'disabled']}${instances}`;
  return `; restored the host by ${stopped ? 'stopping the unit and ' : ''}removing the new unit file${links}`;
};

const AGAIN = {
  enabled: 'enabled it again',
  runtime: 'enabled it again until reboot (/run only), as it was',
  disabled: 'disabled it again',
} as const;

const BOTH = 'enabled it again, under /etc and until reboot under /run, as it was';

const undoFailed = ({ item: { change } }: Track, error: unknown): string => {
  const where =
    change.sort === 'drop-in'
      ? `${dropInPath(change.spec)} and ${change.spec.unit}`
      : change.sort === 'unit'
        ? unitPath(change.spec)
        : change.spec.name;
  return `; the undo failed too (${messageOf(error)}): check ${where} by hand`;
};

/** A unit or instance (not a template) whose state a failure message names. */
const changedUnit = (track: Track): boolean =>
  track.item.change.sort !== 'drop-in' &&
  !isTemplate(unitOf(track.item.change)) &&
  (track.cause !== undefined || track.wrote || track.started || track.switched !== undefined);

/** `; the unit is now <state>` for each of `tracks`, read in one command. */
const statesOf = async (shell: HostShell, tracks: readonly Track[]): Promise<Map<Track, string>> => {
  try {
    const states = await shell.statusesOf(tracks, (track) => unitOf(track.item.change));
    return new Map(
      states.map(([track, { activeState, subState }]) => [track, `; the unit is now ${activeState}/${subState}`]),
    );
  } catch (error) {
    if (error instanceof ConnectionLost) throw error;
    return new Map(tracks.map((track) => [track, `; its state could not be read (${messageOf(error)})`]));
  }
};

const outcomeOf = (host: string, track: Track, notes: Notes, states: Map<Track, string>): Error | undefined => {
  const words = `${notes.get(track) ?? ''}${states.get(track) ?? ''}`;
  const { change } = track.item;
  if (track.refused !== undefined) return track.refused;
  if (track.cause !== undefined) {
    const what = change.sort === 'drop-in' ? `drop-in ${dropInPath(change.spec)}` : change.spec.name;
    return new HandlerError(`${what} on ${host} was not applied`, `${messageOf(track.cause)}${words}`);
  }
  if (track.blockedBy === undefined) return undefined;
  if (words === '') return waitsFor(track.blockedBy);
  return new Error(`it comes after ${track.blockedBy}, which was not applied${words}`);
};
