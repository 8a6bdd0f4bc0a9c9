/**
 * The read of which declared units the plan's destroys stop (src/linux/unit-stop-propagation.ts), for the unit,
 * instance and drop-in reads: one `systemctl show` of the units the stack removes, none when it removes none. The
 * three kinds read one host over one session with the same removals, so the answer is kept for the session: before,
 * each kind's fetch ran the same command again.
 */
import { HandlerError } from '../../src/core/errors';
import type { KindContext } from '../../src/core/kind';
import {
  removedUnits,
  type StopCause,
  stoppedByRemovals,
  stopsWithCommand,
} from '../../src/linux/unit-stop-propagation';
import type { HostSession } from './session';

type StoppedBy = { stoppedBy?: ReadonlyMap<string, StopCause> };

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
  const answer = showStops(session, script);
  known.set(script, answer);
  return answer;
};

const showStops = async (session: HostSession, script: string): Promise<StoppedBy> => {
  const shown = await session.remote.run('sh -s', script, 'reads');
  if (shown.code !== 0) throw new HandlerError(`systemctl show failed on ${session.host}`, shown.stderr.trim());
  return { stoppedBy: stoppedByRemovals(shown.stdout) };
};
