/**
 * The read of which declared units the plan's destroys stop (src/linux/unit-stop-propagation.ts), for the unit,
 * instance and drop-in reads: one `systemctl show` of the units the stack removes, none when it removes none.
 */
import { HandlerError } from '../../src/core/errors';
import type { KindContext } from '../../src/core/kind';
import { removedUnits, stoppedByRemovals, stopsWithCommand } from '../../src/linux/unit-stop-propagation';
import type { HostSession } from './session';

/** Each unit the destroy of a unit the plan removes stops, with that unit; nothing when it removes none. */
export const readStoppedBy = async (
  session: HostSession,
  removing: KindContext['removing'],
): Promise<{ stoppedBy?: ReadonlyMap<string, string> }> => {
  const removed = removedUnits(removing);
  if (removed.length === 0) return {};
  const shown = await session.remote.run('sh -s', stopsWithCommand(removed), 'reads');
  if (shown.code !== 0) throw new HandlerError(`systemctl show failed on ${session.host}`, shown.stderr.trim());
  return { stoppedBy: stoppedByRemovals(shown.stdout) };
};
