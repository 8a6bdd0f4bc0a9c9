/**
 * What the destroy of a unit or instance the plan removes stops that no stack declares, in words for the host's drift
 * warning (src/core/batch-removals.ts): running units made by hand PartOf=, BindsTo= or Requires= it, or one of those,
 * down the chain (unit-stop-propagation.ts). Without it, the plan said only that the unit will be destroyed, and its
 * destroy stopped them too, one that needs it never to start again.
 */
import type { StopCause } from './unit-stop-propagation';

/** A unit a removal's destroy stops, and how (`StopCause`). */
export interface RemovalStop {
  readonly name: string;
  readonly cause: StopCause;
}

/** The units of `stoppedBy` that the destroy of `removed` stops and `undeclared` keeps, in name order. */
export const undeclaredStops = (
  removed: string,
  stoppedBy: ReadonlyMap<string, StopCause>,
  undeclared: (name: string) => boolean,
): RemovalStop[] =>
  [...stoppedBy]
    .filter(([name, cause]) => cause.by === removed && undeclared(name))
    .map(([name, cause]) => ({ name, cause }))
    .sort((a, b) => (a.name < b.name ? -1 : 1));

/**
 * What the plan says of `stops`, undefined for none; `place` names the removed object. `ownsFile`: its destroy removes
 * its file (a unit), so a stopped unit that needs it cannot start again (`Unit … not found.`, measured, systemd 252);
 * an instance's template stays, and the start of one that needs it starts it again, so nothing is said of those.
 */
export const removalStopWords = (
  place: string,
  removed: string,
  stops: readonly RemovalStop[],
  ownsFile: boolean,
): string | undefined => {
  if (stops.length === 0) return undefined;
  const named = stops.map(({ name, cause }) => (cause.with === undefined ? name : `${name} (with ${cause.with})`));
  const said =
    `${place}, if this plan destroys it: its destroy stops ${named.join(', ')} too ` +
    `(running, and no stack declares ${stops.length === 1 ? 'it' : 'them'})`;
  const needy = ownsFile ? stops.filter(({ cause }) => cause.needs) : [];
  if (needy.length === 0) return said;
  const through = needy.some(({ cause }) => cause.with !== undefined) ? ', or a unit that cannot start without it' : '';
  return (
    `${said}; ${needy.map(({ name }) => name).join(', ')} cannot start again without it (Unit ${removed} not ` +
    `found): ${needy.length === 1 ? 'it' : 'each'} BindsTo=, Requires= or Requisite= it${through}`
  );
};
