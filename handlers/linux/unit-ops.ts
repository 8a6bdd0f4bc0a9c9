/**
 * Destroy of units, shared by units (which own a file) and template instances (which do not), many
 * at once as one run's destroys come (src/core/destroy-relay/): one read of them all, their stops queued in
 * one command and waited for together (each bounded like a start), a root helper step each that disables it,
 * removes its file, its restartOn record and every link to the file, then one daemon-reload for all
 * and one read of their load states. Measured before (README, SshHost): 200 destroys each doing all
 * of this alone kept about 22 in flight at 4.1 s apiece, their commands queued for the connection's
 * channels. A link or file a script cannot remove fails that unit naming it, and so does a unit
 * systemd still has loaded; the others go on. A mask someone made stays. A unit with no mark of this stack
 * (record or intent) whose construct does not say adopt is left as it is, and so is one another stack's
 * mark names, adopt or not (issue 27). Apply is `unit-transaction.ts`.
 */
import { HandlerError } from '../../src/core/errors';
import type { KindContext } from '../../src/core/kind';
import type { LiveUnit } from '../../src/linux/unit-control';
import { restartOnPath, START_TIMEOUT_SECONDS, unitPath } from '../../src/linux/unit-file';
import { unitIntentPath } from '../../src/linux/unit-intent';
import { destroyMayAct, leftByDestroy, unitIsForeign } from '../../src/linux/unit-ownership';
import type { UnitIdentity } from '../../src/linux/systemd-unit';
import { isAbsent } from '../../src/linux/unit-diff';
import { isTemplate } from '../../src/linux/unit-name';
import { destroyUnitStep } from '../../src/linux/root-helper';
import { parseRemoval, type RemovalReport } from '../../src/linux/unit-remove';
import { enabledOf, isMasked, isUnitRunning } from '../../src/linux/unit-state';
import type { HostSession } from './session';
import { HostShell } from './host-shell';
import { readUnits } from './read-units';

/** One unit to destroy, with the context its lines go to. */
export interface UnitRemoval {
  readonly unit: UnitIdentity;
  /** Whether the unit's file is ours: false for an instance, whose file is its template's. */
  readonly ownsFile: boolean;
  readonly context: KindContext;
  /** Whether its construct says `adopt: true`: without it, a unit with no mark of this stack is left. */
  readonly adopt?: boolean;
}

/** Destroys one unit; its failure is thrown. */
export const destroyUnit = async (session: HostSession, removal: UnitRemoval): Promise<void> => {
  const [outcome] = await destroyUnits(session, [removal]);
  if (outcome !== undefined) throw outcome;
};

/** Destroys `removals` together: each one's error, or undefined once it is gone. */
export const destroyUnits = async (
  session: HostSession,
  removals: readonly UnitRemoval[],
): Promise<Array<Error | undefined>> => {
  const [first] = removals;
  if (first === undefined) return [];
  const shell = new HostShell(session, first.context.clock, () => undefined);
  const outcomes: Array<Error | undefined> = removals.map(() => undefined);
  const fail = (index: number, error: unknown) => {
    outcomes[index] ??= error instanceof Error ? error : new Error(String(error));
  };
  const left = new Set<number>();
  const open = () => removals.flatMap((_, index) => (outcomes[index] === undefined && !left.has(index) ? [index] : []));
  const nameOf = (index: number) => (removals[index] as UnitRemoval).unit.name;
  const say = (index: number, line: string) =>
    (removals[index] as UnitRemoval).context.log(`${nameOf(index)} on ${session.host}: ${line}`);

  let lives: LiveUnit[];
  try {
    lives = await readUnits(session, removals.map(readEntry));
  } catch (error) {
    return removals.map(() => (error instanceof Error ? error : new Error(String(error))));
  }
  const live = (index: number) => lives[index] as LiveUnit;
  for (const [index, removal] of removals.entries()) {
    const { stack } = removal.context;
    if (destroyMayAct(live(index), removal.adopt === true, stack)) continue;
    left.add(index);
    say(index, leftByDestroy(live(index), stack, unitIsForeign(live(index), removal.ownsFile)));
  }

  // Destroy gets no spec, so a stop waits the default deadline: a declared one is not known here.
  const running = open().flatMap((index) =>
    isUnitRunning(live(index).status.activeState, live(index).status.subState, true) ? [index] : [],
  );
  if (running.length > 0) {
    try {
      await shell.mustMany('stop', running.map(nameOf), '--no-block');
      const waits = running.map((index) => ({
        name: nameOf(index),
        want: 'inactive' as const,
        seconds: START_TIMEOUT_SECONDS.default,
        log: (line: string) => say(index, line),
      }));
      const settled = await shell.settleAll(waits);
      for (const index of running) {
        const error = settled.get(nameOf(index));
        if (error !== undefined) fail(index, error);
      }
    } catch (error) {
      for (const index of running) fail(index, error);
    }
  }

  const reports = new Map<number, RemovalReport>();
  await Promise.all(
    open().map(async (index) => {
      const removal = removals[index] as UnitRemoval;
      // `systemctl disable` ignores a masked unit: its links go by the script's search alone.
      const disable = !isMasked(live(index).status) && enabledOf(live(index).status.unitFileState) === true;
      try {
        const step = destroyUnitStep(removal.unit, removal.ownsFile, disable);
        reports.set(index, parseRemoval((await shell.mustHelper([step])).stdout));
      } catch (error) {
        fail(index, error);
      }
    }),
  );

  const reloading = open().filter((index) => reports.get(index)?.reload === true);
  if (reloading.length > 0) {
    try {
      await shell.reload();
      // `show` refuses a template's name: a template's load state is not read.
      const named = reloading.filter((index) => !isTemplate(nameOf(index)));
      const states = await shell.statuses(named.map(nameOf));
      for (const [at, index] of named.entries()) {
        const report = reports.get(index) as RemovalReport;
        reports.set(index, { ...report, loadState: states[at]?.loadState });
      }
    } catch (error) {
      for (const index of reloading) fail(index, error);
    }
  }

  for (const index of open()) {
    const removal = removals[index] as UnitRemoval;
    const report = reports.get(index) as RemovalReport;
    try {
      mustBeGone(removal, report, session.host);
      say(index, done(removal, live(index), report, running.includes(index)));
    } catch (error) {
      fail(index, error);
    }
  }
  return outcomes;
};

const readEntry = ({ unit, ownsFile }: UnitRemoval) => ({
  unit: unit.name,
  record: restartOnPath(unit),
  intent: unitIntentPath(unit),
  ...(ownsFile ? { file: unitPath(unit) } : {}),
});

/** Fails naming what is left: a path the script could not remove, or the unit still loaded. */
const mustBeGone = ({ unit, ownsFile }: UnitRemoval, report: RemovalReport, host: string): void => {
  if (report.left.length > 0) {
    throw new HandlerError(
      `${unit.name} on ${host} was not wholly removed`,
      `could not remove ${report.left.join('; ')}; remove it by hand, or fix what refused it, and destroy again`,
    );
  }
  const loaded = report.loadState !== 'not-found' && report.loadState !== 'masked';
  if (ownsFile && !isTemplate(unit.name) && loaded) {
    throw new HandlerError(
      `${unit.name} on ${host} is still loaded after removal`,
      `systemd reports LoadState=${report.loadState ?? '(nothing)'} after a daemon-reload`,
    );
  }
};

/** What the destroy did, in words. */
const done = ({ ownsFile }: UnitRemoval, live: LiveUnit, report: RemovalReport, stopped: boolean): string => {
  const mask = report.masks.length > 0 ? `; the mask ${report.masks.join(', ')} (→ /dev/null) stays` : '';
  const removed = report.removed.length > 0 ? `removed ${report.removed.join(', ')}` : 'nothing of it was left';
  if (isMasked(live.status)) return `masked by hand; ${stopped ? 'stopped it, ' : ''}${removed}${mask}`;
  if (!ownsFile) return `stopped and disabled; its template stays${mask}`;
  if (isAbsent(live))
    return report.removed.length > 0
      ? `already absent; removed what was left: ${report.removed.join(', ')}`
      : 'already absent';
  return `stopped, disabled and removed${mask}`;
};
