/**
 * Which declared units a plan's destroys stop: a unit the stack removes (a tombstone) is stopped by its destroy hook
 * before the host's batch apply runs, and systemd stops with it each unit that BindsTo=, PartOf=, Requires= or
 * Requisite= it (or that it PropagatesStopTo=), and with each of those the units bound to it, down the chain. A unit
 * the same apply changes was refused as changed since its plan (running then, stopped now): the plan's reading of such
 * a unit leaves whether it runs to that destroy (unit-basis.ts). One that BindsTo=, Requires= or Requisite= the
 * removed unit, or a unit that cannot start without it, cannot start again once it is gone (`Unit dep.service not
 * found.`, measured, systemd 252), which its plan says rather than that it starts again. The running units no stack
 * declares that it stops are said under the removal itself (unit-removal-stops.ts). Only a removal whose destroy acts
 * stops anything (`removalsThatAct`): the plan said a unit was stopped by the destroy of one that destroy left.
 */
import type { FieldDiff } from '../core/field-diff';
import type { RemovedObject } from '../core/kind';
import { isRecord } from '../core/records';
import { quote } from './shell';
import type { LiveUnit } from './unit-control';
import { instanceOf, isTemplate, unitNameProblem } from './unit-name';
import { destroyMayAct } from './unit-ownership';
import { isUnitRunning } from './unit-state';

/** The properties of a unit that name the units its stop stops (systemd.unit(5), on the other side). */
const STOPS_WITH = ['RequiredBy', 'RequisiteOf', 'BoundBy', 'ConsistsOf', 'PropagatesStopTo'] as const;
/** Of those, the ones whose units do not start without it: their Requires=, Requisite= and BindsTo=. */
const NEEDED_BY: ReadonlySet<string> = new Set(['RequiredBy', 'RequisiteOf', 'BoundBy']);
/** The directives of a unit's own text that name the units it does not start without. */
const NEEDS = /^\s*(?:Requires|Requisite|BindsTo)\s*=(.*)$/;

/**
 * The removed unit whose destroy stops a unit, whether that unit cannot start without it, and the unit through whose
 * stop it is stopped when that is not the removed one (`with`: its start needs `with`, which needs the removed one).
 */
export interface StopCause {
  readonly by: string;
  readonly needs: boolean;
  readonly with?: string;
  /** A unit it Requisite= that the removals stop and nothing starts again (requisite-stranded.ts). */
  readonly requisite?: string;
}

const UNIT_KINDS = new Set(['systemd-unit', 'systemd-instance']);

/** A unit or instance the plan removes, and whether its construct says `adopt: true`. */
export interface RemovedUnit {
  readonly name: string;
  readonly adopt: boolean;
}

/**
 * The units and instances the plan's tombstones destroy and may stop: no template (`show` refuses its name, and
 * nothing runs as it), nor a name the record's text gives that is no unit's (the record is input).
 */
export const removedUnitsOf = (removing: readonly RemovedObject[] | undefined): RemovedUnit[] =>
  (removing ?? []).flatMap(({ kind, identity, adopt }) => {
    const name = isRecord(identity) ? identity.name : undefined;
    return UNIT_KINDS.has(kind) && typeof name === 'string' && unitNameProblem(name) === undefined && !isTemplate(name)
      ? [{ name, adopt: adopt === true }]
      : [];
  });

/** The names of `removedUnitsOf`. */
export const removedUnits = (removing: readonly RemovedObject[] | undefined): string[] =>
  removedUnitsOf(removing).map(({ name }) => name);

/**
 * The removed units whose destroy acts (unit-ownership.ts `destroyMayAct`), by their marks as read: a destroy that
 * leaves its unit (another stack's, or neither marked nor adopted) stops nothing, so what that unit's stop would stop
 * is no stop of this plan's. One the read missed acts not.
 */
export const removalsThatAct = (
  removed: readonly RemovedUnit[],
  marks: ReadonlyMap<string, LiveUnit>,
  stack: string | undefined,
): string[] =>
  removed.flatMap(({ name, adopt }) => {
    const live = marks.get(name);
    return live !== undefined && destroyMayAct(live, adopt, stack) ? [name] : [];
  });

/** One `systemctl show` of the removed units: whether each runs, and the units its stop stops. */
export const stopsWithCommand = (names: readonly string[]): string =>
  `systemctl show -p Id,ActiveState,SubState,${STOPS_WITH.join(',')} -- ${names.map(quote).join(' ')}`;

/** A shown unit: whether it runs now, and the units its stop stops, by the property that names each. */
interface ShownUnit {
  readonly running: boolean;
  readonly stops: readonly (readonly [property: string, unit: string])[];
}

/** The blocks of `systemctl show` output by unit, in the order shown. */
const shownUnits = (shown: string): Map<string, ShownUnit> => {
  const units = new Map<string, ShownUnit>();
  for (const block of shown.split(/\n\s*\n/)) {
    const fields = new Map(
      block
        .split('\n')
        .filter((line) => line.includes('='))
        .map((line) => [line.slice(0, line.indexOf('=')), line.slice(line.indexOf('=') + 1)] as const),
    );
    const id = fields.get('Id');
    if (id === undefined || units.has(id)) continue;
    const running = isUnitRunning(fields.get('ActiveState') ?? '', fields.get('SubState') ?? '', true);
    const stops = STOPS_WITH.flatMap((property) =>
      (fields.get(property) ?? '')
        .split(/\s+/)
        .filter((name) => name !== '')
        .map((unit) => [property, unit] as const),
    );
    units.set(id, { running, stops });
  }
  return units;
};

/**
 * Each unit that the stop of a shown unit running now stops, with the removed unit whose destroy stops it, from every
 * round's `show` so far (`shown`) and the `removed` units the first round showed. A shown unit not running is not
 * stopped (unit-ops.ts stops only those), and neither are the units bound to it. A unit stopped by two names the one
 * it needs, if it needs one. One that Requires= or BindsTo= a unit that stays starts it again with itself (measured),
 * so it needs the removed unit only through units that cannot start without it. Worked out until nothing changes: a
 * unit found not to need the removed one, then found again through one that does, passes that need on to the units
 * it stops, whichever block or round came first (each round's answer alone left those saying they start again).
 */
export const stoppedByRemovals = (shown: string, removed: readonly string[]): Map<string, StopCause> => {
  const units = shownUnits(shown);
  const roots = new Set(removed);
  const found = new Map<string, StopCause>();
  for (let changed = true, rounds = 0; changed && rounds <= units.size; rounds++) {
    changed = false;
    for (const [id, { running, stops }] of units) {
      const through = roots.has(id) ? undefined : found.get(id);
      if (!running || (through === undefined && !roots.has(id))) continue;
      for (const [property, unit] of stops) {
        const needs = NEEDED_BY.has(property) && (through?.needs ?? true);
        const cause = through === undefined ? { by: id, needs } : { by: through.by, needs, with: id };
        if (found.has(unit) && !(needs && found.get(unit)?.needs === false)) continue;
        found.set(unit, cause);
        changed = true;
      }
    }
  }
  return found;
};

/**
 * The units of `stopped` whose own stop the next round reads: those not shown yet, and whose names are units' (they
 * come from the host, and reach `show` quoted). Empty once the chain ends.
 */
export const nextToShow = (stopped: ReadonlyMap<string, StopCause>, shown: ReadonlySet<string>): string[] =>
  [...stopped.keys()].filter((name) => !shown.has(name) && unitNameProblem(name) === undefined && !isTemplate(name));

/**
 * Whether a unit still needs the removed unit after the apply: as systemd read it when the apply leaves its file
 * (`content` undefined), else as the text the apply leaves names it (its file and the batch's drop-ins of it): a
 * Requires=, Requisite= or BindsTo= of the removed unit, or of the unit it is stopped with where that one cannot start
 * without the removed one (`withNeeds`, from `stopped`). A line the new text adds counts as one systemd read: a unit
 * PartOf= the removed one whose rewrite adds Requires= of it was planned to start again, and its start failed.
 */
export const needsAfter = (
  cause: StopCause,
  content: string | undefined,
  stopped: ReadonlyMap<string, StopCause> = new Map(),
): boolean => {
  if (content === undefined) return cause.needs;
  const withNeeds = cause.with === undefined || (stopped.get(cause.with)?.needs ?? cause.needs);
  const needed = cause.with ?? cause.by;
  return withNeeds && content.split('\n').some((line) => (NEEDS.exec(line)?.[1] ?? '').split(/\s+/).includes(needed));
};

/**
 * What a stopped unit's start does after the removal: it `starts`; it `fails`, needing a unit whose file the destroy
 * removes (`Unit dep.service not found.`, measured, systemd 252); or it `revives` a removed instance, whose template
 * stays, so the start of one that needs it starts it again (measured, systemd 252).
 */
export type AfterStop = 'starts' | 'fails' | 'revives' | 'stranded';

/** And `stranded`: it Requisite= a unit the removal stops that nothing starts again, so its start fails. */
export const afterStop = (
  cause: StopCause,
  content: string | undefined,
  stopped: ReadonlyMap<string, StopCause> = new Map(),
): AfterStop =>
  needsAfter(cause, content, stopped)
    ? instanceOf(cause.by) === undefined
      ? 'fails'
      : 'revives'
    : cause.requisite === undefined
      ? 'starts'
      : 'stranded';

const WANT: Record<AfterStop, (cause: StopCause) => string> = {
  starts: () => 'running',
  fails: ({ by }) => `running, which fails: it does not start without ${by}`,
  revives: ({ by }) => `running, which starts ${by} again with it`,
  stranded: ({ by, requisite }) =>
    `running, which fails: it Requisite= ${requisite}, which nothing starts after the destroy of ${by}`,
};

/**
 * A declared-running unit in sync that the destroy of a removed unit will stop: the plan names it to start again, so
 * the batch apply (which finds it stopped, that destroy having run first) starts it in the same apply, and what that
 * start does (`afterStop`). Without it, an unchanged unit `PartOf=` a removed one was left stopped by that apply,
 * whose plan said nothing of it, and only the next plan showed it; and one that `Requires=` it was planned to start
 * again, which the apply then failed. `running` is the diff's own field (unit-diff.ts); nothing when the diff already
 * names it.
 */
export const startsAgain = (
  cause: StopCause | undefined,
  after: AfterStop,
  running: { readonly declared: boolean; readonly now: boolean; readonly state: string },
  diff: FieldDiff,
): FieldDiff => {
  if (cause === undefined || !running.declared || !running.now || 'running' in diff) return {};
  return {
    running: { live: `${running.state}, then stopped by the destroy of ${cause.by}`, want: WANT[after](cause) },
  };
};

/** What the plan says of a unit the destroy of `cause.by` stops, and of its start after (`afterStop`). */
export const stoppedWords = ({ by, with: through, requisite }: StopCause, after: AfterStop): string => {
  const stops = `the destroy of ${by}, which this plan runs before the apply, stops it too`;
  const chain = through === undefined ? '' : ` (with ${through})`;
  if (after === 'stranded')
    return (
      `${stops}${chain}, and its start after fails: it Requisite= ${requisite}, which that destroy stops and nothing ` +
      `starts again; declare ${requisite} running in the stack, or drop that line`
    );
  const needs = (how: string) =>
    `it BindsTo=, Requires= or Requisite= ${through === undefined ? 'it' : `${through}, ${how}`}`;
  if (after === 'starts') return `${stops}${chain}`;
  if (after === 'fails')
    return (
      `${stops}${chain}, and its start after fails (Unit ${by} not found): ` +
      `${needs(`which does not start without ${by}`)}; keep ${by} in the stack, or drop that line`
    );
  return (
    `${stops}${chain}, and its start after starts ${by} again, whose template stays: ` +
    `${needs(`which needs ${by}`)}; drop that line, or keep ${by} in the stack`
  );
};
