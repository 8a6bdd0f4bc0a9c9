/**
 * The read of which declared units the plan's destroys stop (src/linux/unit-stop-propagation.ts), for the unit,
 * instance and drop-in reads and the removals' own words (removal-stops.ts): the marks of the units the stack removes,
 * none read when it removes none, then one `systemctl show` of those whose destroy acts (`removalsThatAct`), then one
 * of the units those stop, and so on down the chain (a unit PartOf= one PartOf= the removed one was read as running,
 * and refused by the apply as stopped since its plan). Every kind reads one host over one session with the same
 * removals, so the answer is kept for the session: before, each kind's fetch ran the same commands again.
 */
import { HandlerError } from '../../src/core/errors';
import type { KindContext } from '../../src/core/kind';
import { restartOnPath } from '../../src/linux/unit-file';
import { unitIntentPath } from '../../src/linux/unit-intent';
import {
  nextToShow,
  removalsThatAct,
  type RemovedUnit,
  removedUnitsOf,
  type StopCause,
  stoppedByRemovals,
  stopsWithCommand,
} from '../../src/linux/unit-stop-propagation';
import { readUnits } from './read-units';
import type { HostSession } from './session';

type StoppedBy = {
  stoppedBy?: ReadonlyMap<string, StopCause>;
  /** The removed units whose destroy acts: the only ones that stop anything. */
  acting?: ReadonlySet<string>;
};

/** The rounds of `show` a read runs at most: the removed units', then one per level of the chain below them. */
const ROUNDS = 6;

const read = new WeakMap<HostSession, Map<string, Promise<StoppedBy>>>();

/** What a read of a unit's marks asks: its state, its record and its intent (unit-ownership.ts). */
export const markEntryOf = (name: string) => ({
  unit: name,
  record: restartOnPath({ name }),
  intent: unitIntentPath({ name }),
});

/**
 * Each unit the destroy of a unit the plan removes stops, with that unit, where that destroy acts for `stack`;
 * nothing when it removes none.
 */
export const readStoppedBy = (
  session: HostSession,
  { removing, stack }: Pick<KindContext, 'removing' | 'stack'>,
): Promise<StoppedBy> => {
  const removed = removedUnitsOf(removing);
  if (removed.length === 0) return Promise.resolve({});
  const key = JSON.stringify([stack ?? null, removed]);
  const known = read.get(session) ?? new Map<string, Promise<StoppedBy>>();
  read.set(session, known);
  const kept = known.get(key);
  if (kept !== undefined) return kept;
  const answer = readActing(session, removed, stack);
  known.set(key, answer);
  return answer;
};

/** One read of the removed units' marks, then the stops of those whose destroy acts. */
const readActing = async (session: HostSession, removed: readonly RemovedUnit[], stack: string | undefined) => {
  const marks = await readUnits(
    session,
    removed.map(({ name }) => markEntryOf(name)),
  );
  const acting = removalsThatAct(removed, new Map(marks.map(([entry, unit]) => [entry.unit, unit])), stack);
  if (acting.length === 0) return { stoppedBy: new Map(), acting: new Set<string>() };
  return { ...(await showStops(session, acting)), acting: new Set(acting) };
};

const showStops = async (session: HostSession, removed: readonly string[]): Promise<StoppedBy> => {
  const shown = new Set(removed);
  let text = await showRound(session, removed);
  let stopped = stoppedByRemovals(text, removed);
  for (let round = 1; round < ROUNDS; round++) {
    const next = nextToShow(stopped, shown);
    if (next.length === 0) break;
    next.forEach((name) => shown.add(name));
    text = `${text}\n\n${await showRound(session, next)}`;
    stopped = stoppedByRemovals(text, removed);
  }
  return { stoppedBy: stopped };
};

/** One `systemctl show` of `names`: what their stops stop, as systemd lists it. */
const showRound = async (session: HostSession, names: readonly string[]): Promise<string> => {
  const shown = await session.remote.run('sh -s', stopsWithCommand(names), 'reads');
  if (shown.code !== 0) throw new HandlerError(`systemctl show failed on ${session.host}`, shown.stderr.trim());
  return shown.stdout;
};
