/**
 * Which declared units a plan's destroys stop: a unit the stack removes (a tombstone) is stopped by its destroy hook
 * before the host's batch apply runs, and systemd stops with it each unit that BindsTo=, PartOf=, Requires= or
 * Requisite= it (or that it PropagatesStopTo=). A unit the same apply changes was refused as changed since its plan
 * (running then, stopped now): the plan's reading of such a unit leaves whether it runs to that destroy
 * (unit-basis.ts).
 */
import type { FieldDiff } from '../core/field-diff';
import type { RemovedObject } from '../core/kind';
import { isRecord } from '../core/records';
import { quote } from './shell';
import { isTemplate, unitNameProblem } from './unit-name';
import { isUnitRunning } from './unit-state';

/** The properties of a unit that name the units its stop stops (systemd.unit(5), on the other side). */
const STOPS_WITH = ['RequiredBy', 'RequisiteOf', 'BoundBy', 'ConsistsOf', 'PropagatesStopTo'] as const;

const UNIT_KINDS = new Set(['systemd-unit', 'systemd-instance']);

/**
 * The names of the units and instances the plan's tombstones destroy and may stop: no template (`show` refuses its
 * name, and nothing runs as it), nor a name the record's text gives that is no unit's (the record is input).
 */
export const removedUnits = (removing: readonly RemovedObject[] | undefined): string[] =>
  (removing ?? []).flatMap(({ kind, identity }) => {
    const name = isRecord(identity) ? identity.name : undefined;
    return UNIT_KINDS.has(kind) && typeof name === 'string' && unitNameProblem(name) === undefined && !isTemplate(name)
      ? [name]
      : [];
  });

/** One `systemctl show` of the removed units: whether each runs, and the units its stop stops. */
export const stopsWithCommand = (names: readonly string[]): string =>
  `systemctl show -p Id,ActiveState,SubState,${STOPS_WITH.join(',')} -- ${names.map(quote).join(' ')}`;

/**
 * Each declared unit that the stop of a removed unit running now stops, with that unit's name. A removed unit
 * not running is not stopped by its destroy (unit-ops.ts stops only those), and neither are the units bound to it.
 */
export const stoppedByRemovals = (shown: string): Map<string, string> => {
  const stopped = new Map<string, string>();
  for (const block of shown.split(/\n\s*\n/)) {
    const fields = new Map(
      block
        .split('\n')
        .filter((line) => line.includes('='))
        .map((line) => [line.slice(0, line.indexOf('=')), line.slice(line.indexOf('=') + 1)] as const),
    );
    const id = fields.get('Id');
    if (id === undefined || !isUnitRunning(fields.get('ActiveState') ?? '', fields.get('SubState') ?? '', true))
      continue;
    for (const property of STOPS_WITH)
      for (const unit of (fields.get(property) ?? '').split(/\s+/).filter((name) => name !== ''))
        if (!stopped.has(unit)) stopped.set(unit, id);
  }
  return stopped;
};

/**
 * A declared-running unit in sync that the destroy of `removed` will stop: the plan names it to start again, so the
 * batch apply (which finds it stopped, that destroy having run first) starts it in the same apply. Without it, an
 * unchanged unit `PartOf=` a removed one was left stopped by that apply, whose plan said nothing of it, and only the
 * next plan showed it. `running` is the diff's own field (unit-diff.ts); nothing when the diff already names it.
 */
export const startsAgain = (
  removed: string | undefined,
  running: { readonly declared: boolean; readonly now: boolean; readonly state: string },
  diff: FieldDiff,
): FieldDiff =>
  removed === undefined || !running.declared || !running.now || 'running' in diff
    ? {}
    : { running: { live: `${running.state}, then stopped by the destroy of ${removed}`, want: 'running' } };

/** What the plan says of a unit the destroy of `removed` stops. */
export const stoppedWords = (removed: string): string =>
  `the destroy of ${removed}, which this plan runs before the apply, stops it too`;
