/**
 * A unit's Requisite= on a unit that a removal's destroy stops and that nothing starts again: the batch apply starts
 * the stopped unit as declared, and systemd fails that start at once, Requisite= finding the other unit inactive with
 * no start queued (measured, systemd 252: `test/contract/linux/systemd-stop-chain.test.ts`). Requires= and BindsTo=
 * would start that unit with it; Requisite= never does. Without this the plan said such a unit starts again.
 */
import { requisitesOf } from './requisite-order';
import type { UnitChange } from './unit-batch';
import type { StopCause } from './unit-stop-propagation';

/** The units the batch starts after the removals: those it declares running. */
export const startedByBatch = (batch: readonly UnitChange[]): Set<string> =>
  new Set(batch.flatMap((change) => (change.sort !== 'drop-in' && change.spec.started ? [change.spec.name] : [])));

/** A unit's text as the apply leaves it: its declared file, then the batch's drop-ins of it. */
export const declaredText = (name: string, content: string | undefined, batch: readonly UnitChange[]): string =>
  [
    content ?? '',
    ...batch.flatMap((change) => (change.sort === 'drop-in' && change.spec.unit === name ? [change.spec.content] : [])),
  ].join('\n');

/**
 * `cause` with the first unit `text` Requisite= that the removals stop (`stopped`) and that `starts` leaves stopped,
 * as its `requisite`; `cause` itself when there is none.
 */
export const withStrandedRequisite = (
  cause: StopCause,
  text: string,
  stopped: ReadonlyMap<string, StopCause>,
  starts: ReadonlySet<string>,
): StopCause => {
  const requisite = requisitesOf(text).find((unit) => stopped.has(unit) && !starts.has(unit));
  return requisite === undefined ? cause : { ...cause, requisite };
};
