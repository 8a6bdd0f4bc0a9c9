/**
 * A host's batch apply as one transaction: every unit, instance and drop-in read in one round trip,
 * every changed file written in few requests (unit-writes.ts), one daemon-reload, every job queued
 * together and waited for together, everything read back. One object that fails is undone alone,
 * with what comes after it, and the others stay converged; 200 units no longer cost 200 reloads and
 * 200 waits one after another.
 */
import { HandlerError } from '../../src/core/errors';
import type { KindContext } from '../../src/core/kind';
import { diffDropIn, summarizeDropIn } from '../../src/linux/systemd-drop-in';
import { ConnectionLost } from '../../src/linux/ssh';
import type { LiveUnit } from '../../src/linux/unit-control';
import { type BatchItem, type UnitChange, needsReload, readEntryOf, unitOf } from '../../src/linux/unit-batch';
import { type LinkVerb, linkSteps, unmaskStep } from '../../src/linux/root-helper';
import * as cmd from '../../src/linux/unit-commands';
import { diffUnit, summarizeUnit } from '../../src/linux/unit-diff';
import { enableStep, linkedName } from '../../src/linux/unit-enable-step';
import { markStackOf } from '../../src/linux/unit-ownership';
import { isMasked } from '../../src/linux/unit-state';
import type { HostSession } from './session';
import { HostShell } from './host-shell';
import { readUnits } from './read-units';
import { runJobs } from './unit-jobs';
import { active, all, block, each, say, type Track, trackOf, unitTracks } from './unit-track';
import { asRecorded, recordAndClear, withoutOwnIntent, writeIntents } from './unit-intents';
import { undoAndReport } from './unit-undo';
import { batchFiles, clearTraces, refuse } from './unit-refusals';
import { enabledAgain, instancesToReenable, keptInstances, ownRuntimeAgain, rewritten } from './unit-relink';
import { writeAll } from './unit-writes';

/** Applies `items`, in reference order, as one transaction: each one's error, or undefined. */
export const applyUnits = async (
  session: HostSession,
  items: readonly BatchItem[],
  context: KindContext,
): Promise<Map<string, Error | undefined>> => {
  const shell = new HostShell(session, context.clock, context.log);
  try {
    const live = await readUnits(
      session,
      items.map((item) => ({ ...readEntryOf(item.change), item })),
      { removed: true },
    );
    const tracks = live.map(([{ item }, before]) =>
      trackOf(item, before, context.log, context.stack ?? markStackOf(before)),
    );
    await converge(shell, tracks);
    return await undoAndReport(shell, tracks);
  } catch (error) {
    if (!(error instanceof ConnectionLost)) throw error;
    throw new HandlerError(
      `SSH connection to ${session.host} lost during apply`,
      `${error.reason}; ${halfDone(items)}`,
    );
  }
};

/** One object alone (`<kind> apply` by hand, a resend): a transaction of one, its failure thrown. */
export const applyOne = async (session: HostSession, change: UnitChange, context: KindContext): Promise<void> => {
  const name = `${change.sort === 'drop-in' ? change.spec.unit : change.spec.name} on ${session.host}`;
  const outcome = (await applyUnits(session, [{ name, after: [], change }], context)).get(name);
  if (outcome !== undefined) throw outcome;
};

const halfDone = (items: readonly BatchItem[]): string =>
  items.length === 1
    ? `the ${items[0]?.change.sort === 'drop-in' ? 'drop-in' : 'unit'} may be half-applied: the next apply converges it`
    : `its ${items.length} objects may be half-applied: the next apply converges them`;

const converge = async (shell: HostShell, tracks: Track[]): Promise<void> => {
  const files = batchFiles(tracks);
  await each(tracks, async (track) => refuse(shell, track, files), 'refused');
  await clearTraces(shell, tracks);
  // Intent first (unit-intents.ts): nothing below changes an object before its intent is on the host.
  await writeIntents(shell, tracks);
  block(tracks);
  await each(tracks, (track) => unmaskIfMasked(shell, track), 'refused');
  block(tracks);
  await writeAll(shell, tracks);
  // A step that fails as a whole (systemctl not answering) fails every object still in it.
  await all(active(tracks), () => switchAll(shell, tracks));
  await reloadAndRead(shell, tracks);
  await all(active(tracks), () => runJobs(shell, tracks));
  block(tracks);
  await readBackAndRecord(shell, tracks);
  block(tracks);
  for (const track of active(tracks)) if (!track.said) say(track, 'applied');
};

const unmaskIfMasked = async (shell: HostShell, track: Track): Promise<void> => {
  const { change } = track.item;
  if (change.sort !== 'drop-in' && isMasked(track.before.status)) await unmask(shell, track, change.spec);
};

const unmask = async (shell: HostShell, track: Track, spec: { name: string; directory: string }) => {
  const name = `${spec.name} on ${shell.host}`;
  const result = await shell.helper([unmaskStep(spec)]);
  if (result.code !== 0) {
    const hint =
      result.code === cmd.UNMASK_REFUSED ? '; unmask removes only /dev/null links: move that file away by hand' : '';
    throw new HandlerError(`${name} is masked and was not unmasked`, `${result.stderr.trim()}${hint}`);
  }
  track.unmasked = true;
  say(track, 'unmasked (removed its /dev/null link)');
};

/**
 * Each verb once, then the enable of the instances a template's disable by its name unlinks: those declared enabled
 * (unit-relink.ts `enabledAgain`) and those the stack does not declare, under /etc then under /run (`keptInstances`).
 */
const PASSES = [
  ['enable', false],
  ['reenable', false],
  ['relink', false],
  ['reenable-runtime', false],
  ['disable', false],
  ['enable', true],
  ['enable-runtime', true],
] as const;

/** The instances a template's track links in the pass of `verb`: re-enabled by its rewrite, or linked again. */
const instancesOf = (track: Track, tracks: readonly Track[], verb: LinkVerb, late: boolean) => {
  const [etc, run] = late ? ['enable', 'enable-runtime'] : ['reenable', 'reenable-runtime'];
  const root: PassMember['root'] = verb === etc ? 'etc' : verb === run ? 'run' : undefined;
  const from = late ? keptInstances : instancesToReenable;
  return { root, instances: root === undefined ? [] : from(track, tracks)[root] };
};

/** A track's part in the pass of a verb: its own step, its own /run links again, its instances, and all their names. */
interface PassMember {
  readonly track: Track;
  readonly own: boolean;
  readonly runtime: readonly string[];
  readonly root: 'etc' | 'run' | undefined;
  readonly instances: readonly string[];
  readonly names: readonly string[];
}

/** The tracks with a part in the pass of `verb` (`late`: after the disables), `again` those enabled after them. */
const passMembers = (tracks: readonly Track[], again: Set<Track>, verb: LinkVerb, late: boolean): PassMember[] =>
  active(tracks).flatMap((track) => {
    const { change } = track.item;
    const written = rewritten(track, tracks);
    const step = change.sort === 'drop-in' ? undefined : enableStep(change.spec, track.before, written);
    const own = (again.has(track) ? 'enable' : step) === verb && again.has(track) === late;
    const { root, instances } = instancesOf(track, tracks, verb, late);
    const runtime = verb === 'reenable-runtime' && !late ? ownRuntimeAgain(track, step) : [];
    const name = change.sort === 'drop-in' ? undefined : linkedName(change.spec, track.before, written);
    const names = [...(own && name !== undefined ? [name] : []), ...runtime, ...instances];
    return names.length === 0 ? [] : [{ track, own, runtime, root, instances, names }];
  });

/** Notes on its track what the pass of `verb` did for `member`, and says it in the track's log. */
const passed = (member: PassMember, tracks: readonly Track[], verb: LinkVerb, late: boolean): void => {
  const { track, own, runtime, root, instances, names } = member;
  const [name = ''] = names;
  if (runtime.length > 0) {
    track.runtimeAgain = true;
    say(track, 'reenabled under /run (until reboot) too, as it was');
  }
  if (own) [track.switched, track.switchedAs] = [verb, name];
  // Its undo disables it again, which unlinks them too: it links them again as they were (unit-relink.ts).
  const kept = own && verb === 'disable' ? keptInstances(track, tracks) : { etc: [], run: [] };
  if (kept.etc.length + kept.run.length > 0) track.instances = kept;
  const as = name === unitOf(track.item.change) ? '' : ` its default instance ${name}`;
  const after = late ? " again after its template's disable, which unlinked it" : '';
  if (own)
    say(
      track,
      verb === 'relink' ? `relinked${as} (disabled it, enabled ${unitOf(track.item.change)})` : `${verb}d${as}${after}`,
    );
  if (root === undefined || instances.length === 0) return;
  track.instances = { etc: [], run: [], ...track.instances, [root]: [...instances] };
  const where = root === 'run' ? 'under /run (until reboot) ' : '';
  say(
    track,
    late
      ? `linked again ${where}${instances.join(', ')}, which this stack does not declare, after its disable`
      : `reenabled ${where}its instances ${instances.join(', ')}`,
  );
};

/**
 * Enables and disables before the reload, which then shows them: one command per verb. One unit it
 * cannot act on fails the whole command and changes nothing (measured, systemd 252), so then each
 * unit goes alone and only that one fails. A rewritten template re-enables its enabled instances
 * (unit-relink.ts) with the reenables, then under /run those enabled until reboot.
 */
const switchAll = async (shell: HostShell, tracks: readonly Track[]): Promise<void> => {
  const again = enabledAgain(tracks);
  for (const [verb, late] of PASSES) {
    const group = passMembers(tracks, again, verb, late);
    if (group.length === 0) continue;
    const together = await shell.helper(
      linkSteps(
        verb,
        group.flatMap(({ names }) => names),
      ),
    );
    if (together.code === 0) group.forEach((member) => passed(member, tracks, verb, late));
    else
      await each(
        group.map(({ track }) => track),
        async (track) => {
          const member = group.find((each) => each.track === track);
          if (member === undefined) return;
          await shell.mustLink(verb, member.names);
          passed(member, tracks, verb, late);
        },
      );
  }
};

/** The host's one reload, when `needsReload` says, then the units as systemd now has them loaded. */
const reloadAndRead = async (shell: HostShell, tracks: readonly Track[]): Promise<void> => {
  const live = active(tracks);
  const reload = needsReload(
    live.map((track) => ({
      change: track.item.change,
      before: track.before,
      wrote: track.wrote,
      unmasked: track.unmasked,
      switched: track.switched !== undefined,
    })),
  );
  if (reload) {
    await all(live, () => shell.reload());
    if (active(tracks).length > 0) shell.log(`${shell.host}: reloaded systemd`);
  }
  const units = unitTracks(active(tracks));
  if (units.length === 0) return;
  await all(units, async () => {
    const loaded = await readUnits(
      shell.session,
      units.map((track) => ({ ...readEntryOf(track.item.change), track })),
    );
    for (const [{ track }, unit] of loaded) track.loaded = withoutOwnIntent(track, unit);
  });
};

/**
 * Reads every converged object back: one that is not as declared failed, whatever systemctl said.
 * Then, record last: the records of the others, and their intents removed, in one script.
 */
const readBackAndRecord = async (shell: HostShell, tracks: readonly Track[]): Promise<void> => {
  const live = active(tracks);
  if (live.length === 0) return;
  await all(live, async () => {
    const read = await readUnits(
      shell.session,
      live.map((track) => ({ ...readEntryOf(track.item.change), track })),
    );
    const converged = read.flatMap(([{ track }, unit]) => {
      const after = withoutOwnIntent(track, unit);
      const left = leftOf(track, asRecorded(track, after), shell.host);
      if (left !== undefined) track.cause = new Error(`systemctl reported success but ${left}`);
      return left === undefined ? [{ track, after }] : [];
    });
    await recordAndClear(shell, converged);
  });
};

const leftOf = ({ item: { change } }: Track, after: LiveUnit, host: string): string | undefined => {
  if (change.sort === 'drop-in') {
    const left = diffDropIn(change.spec, after);
    return Object.keys(left).length === 0 ? undefined : summarizeDropIn(change.spec, host, after, left);
  }
  const left = diffUnit(change.spec, after);
  const state = `${after.status.activeState}/${after.status.subState}`;
  return Object.keys(left).length === 0
    ? undefined
    : `the unit is ${state}: ${summarizeUnit(change.spec, host, after, left)}`;
};
