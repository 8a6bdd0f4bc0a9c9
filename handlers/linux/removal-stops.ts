/**
 * The running units no stack declares that the destroy of each unit or instance a plan removes stops, read for that
 * plan (src/linux/unit-removal-stops.ts). It reuses the session's answer of which units the removals whose destroy
 * acts stop (stopped-by.ts, which read their marks), and reads only when that names one: the stopped units' state,
 * records and intents, in one read.
 */
import type { KindContext } from '../../src/core/kind';
import type { UnitIdentity } from '../../src/linux/systemd-unit';
import type { UnitChange } from '../../src/linux/unit-batch';
import { isTemplate, unitNameProblem } from '../../src/linux/unit-name';
import { removalStopWords, undeclaredStops } from '../../src/linux/unit-removal-stops';
import { isUnitRunning } from '../../src/linux/unit-state';
import { removedUnits } from '../../src/linux/unit-stop-propagation';
import { readUnits } from './read-units';
import type { HostSession } from './session';
import { markEntryOf, readStoppedBy } from './stopped-by';

type Removal = { readonly identity: UnitIdentity; readonly adopt: boolean };

/**
 * For each of `removals` (one kind's: a unit when `ownsFile`, else an instance), what its destroy stops that no stack
 * declares, in words, or undefined: nothing running stopped, or a destroy that leaves it (another stack's, or neither
 * marked nor adopted: stopped-by.ts `acting`). A stack declares a unit its batch names, or one with a record or intent
 * (any stack's).
 */
export const readRemovalStops = async (
  session: HostSession,
  removals: readonly Removal[],
  context: KindContext,
  ownsFile: boolean,
  batch: readonly UnitChange[] = [],
): Promise<Array<string | undefined>> => {
  const { stoppedBy, acting } = await readStoppedBy(session, context);
  const removed = new Set(removedUnits(context.removing));
  const ours = removals.filter(({ identity }) => acting?.has(identity.name) === true);
  const declared = new Set([
    ...removed,
    ...batch.flatMap((change) => (change.sort === 'drop-in' ? [] : [change.spec.name])),
  ]);
  // Names from the host are input: only a unit's name reaches the read.
  const stopped = [...(stoppedBy?.keys() ?? [])].filter(
    (name) => !declared.has(name) && unitNameProblem(name) === undefined && !isTemplate(name),
  );
  const byOurs = stopped.filter((name) => ours.some(({ identity }) => stoppedBy?.get(name)?.by === identity.name));
  if (stoppedBy === undefined || byOurs.length === 0) return removals.map(() => undefined);
  const read = await readUnits(session, byOurs.map(markEntryOf));
  const live = new Map(read.map(([entry, unit]) => [entry.unit, unit]));
  const undeclared = (name: string) => {
    const unit = live.get(name);
    return (
      unit !== undefined &&
      unit.restartOn === undefined &&
      unit.intent === undefined &&
      isUnitRunning(unit.status.activeState, unit.status.subState, true)
    );
  };
  return removals.map(({ identity }) => {
    if (acting?.has(identity.name) !== true) return undefined;
    const place = `${ownsFile ? 'unit' : 'instance'} ${identity.name} on ${session.host}`;
    return removalStopWords(place, identity.name, undeclaredStops(identity.name, stoppedBy, undeclared), ownsFile);
  });
};
