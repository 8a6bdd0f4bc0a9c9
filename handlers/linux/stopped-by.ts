/**
 * The read of which declared units the plan's destroys stop (src/linux/unit-stop-propagation.ts), for the unit,
 * instance and drop-in reads: one `systemctl show` of the units the stack removes, none when it removes none, then one
 * of the units those stop, and so on down the chain (a unit PartOf= one PartOf= the removed one was read as running,
 * and refused by the apply as stopped since its plan). The three kinds read one host over one session with the same
 * removals, so the answer is kept for the session: before, each kind's fetch ran the same command again.
 */
import { HandlerError } from '../../src/core/errors';
import type { KindContext } from '../../src/core/kind';
import {
  nextToShow,
  removedUnits,
  type StopCause,
  stoppedByRemovals,
  stopsWithCommand,
} from '../../src/linux/unit-stop-propagation';
import type { HostSession } from './session';

type StoppedBy = { stoppedBy?: ReadonlyMap<string, StopCause> };

/** The rounds of `show` a read runs at most: the removed units', then one per level of the chain below them. */
const ROUNDS = 6;

const read = new WeakMap<HostSession, Map<string, Promise<StoppedBy>>>();

/** Each unit the destroy of a unit the plan removes stops, with that unit; nothing when it removes none. */
export const readStoppedBy = (session: HostSession, removing: KindContext['removing']): Promise<StoppedBy> => {
  const removed = removedUnits(removing);
  if (removed.length === 0) return Promise.resolve({});
  const script = stopsWithCommand(removed);
  const known = read.get(session) ?? new Map<string, Promise<StoppedBy>>();
  read.set(session, known);
  const kept = known.get(script);
  if (kept !== undefined) return kept;
  const answer = showStops(session, removed);
  known.set(script, answer);
  return answer;
};

const showStops = async (session: HostSession, removed: readonly string[]): Promise<StoppedBy> => {
  const shown = new Set(removed);
  let stopped = await showRound(session, removed, new Map());
  for (let round = 1; round < ROUNDS; round++) {
    const next = nextToShow(stopped, shown);
    if (next.length === 0) break;
    next.forEach((name) => shown.add(name));
    stopped = await showRound(session, next, stopped);
  }
  return { stoppedBy: stopped };
};

/** One `systemctl show` of `names`, what their stops stop added to `stopped`. */
const showRound = async (session: HostSession, names: readonly string[], stopped: Map<string, StopCause>) => {
  const shown = await session.remote.run('sh -s', stopsWithCommand(names), 'reads');
  if (shown.code !== 0) throw new HandlerError(`systemctl show failed on ${session.host}`, shown.stderr.trim());
  return stoppedByRemovals(shown.stdout, stopped);
};
