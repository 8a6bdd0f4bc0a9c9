/**
 * Destroy of units, shared by units (which own a file) and template instances (which do not), many
 * at once as one run's destroys come (src/core/destroy-relay/): one read of them all, their stops queued in
 * one command and waited for together (each bounded like a start), one read of which of those are failed, a
 * root helper step each that disables it, clears its failed record,
 * removes its file, its restartOn record and every link to the file, all in one request (a unit's failed step
 * fails that unit alone; a request each cost 200 destroys 200 SSH execs), then one daemon-reload for all
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
import { destroyUnitStep, type HelperStep, linkSteps } from '../../src/linux/root-helper';
import type { CommandResult } from '../../src/linux/ssh';
import {
  enabledInPid1Only,
  goneButLoaded,
  parseRemovals,
  RELOADED_ABSENT,
  type RemovalReport,
} from '../../src/linux/unit-remove';
import { enablementOf, isMasked, isUnitRunning } from '../../src/linux/unit-state';
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
  const failure = (await destroyUnits(session, [removal])).get(removal);
  if (failure !== undefined) throw failure;
};

/** One unit of a destroy run and what became of it so far. */
interface Doomed {
  readonly removal: UnitRemoval;
  readonly live: LiveUnit;
  readonly host: string;
  /** Why it was not destroyed: the first failure stays. */
  error?: Error;
  /** Not this stack's to destroy: left as it is. */
  left?: boolean;
  /** Left absent, still loaded or enabled in pid1 alone (unit-remove.ts): the run's reload lets go of it. */
  loadedGone?: boolean;
  /** It ran, so the run stopped it. */
  running?: boolean;
  /** Its ActiveState was failed after the stop: its failed record is cleared. */
  failed?: boolean;
  report?: RemovalReport;
}

/** Destroys `removals` together: the error of each one that failed; the others are gone. */
export const destroyUnits = async (
  session: HostSession,
  removals: readonly UnitRemoval[],
): Promise<Map<UnitRemoval, Error>> => {
  const [first] = removals;
  if (first === undefined) return new Map();
  const shell = new HostShell(session, first.context.clock, () => undefined);
  let read;
  try {
    read = await readUnits(
      session,
      removals.map((removal) => ({ ...readEntry(removal), removal })),
    );
  } catch (error) {
    return new Map(removals.map((removal) => [removal, asError(error)]));
  }
  const doomed: Doomed[] = read.map(([{ removal }, live]) => ({ removal, live, host: session.host }));
  for (const unit of doomed) leaveUnlessOurs(unit);
  await stopRunning(shell, doomed);
  await readFailed(shell, doomed);
  await removeAll(shell, open(doomed));
  await reloadAndRead(shell, doomed);
  for (const unit of open(doomed)) finish(unit);
  return new Map(doomed.flatMap(({ removal, error }) => (error === undefined ? [] : [[removal, error] as const])));
};

const asError = (error: unknown): Error => (error instanceof Error ? error : new Error(String(error)));
const nameOf = ({ removal }: Doomed): string => removal.unit.name;
const say = (unit: Doomed, line: string) => unit.removal.context.log(`${nameOf(unit)} on ${unit.host}: ${line}`);
const fail = (unit: Doomed, error: unknown) => {
  unit.error ??= asError(error);
};
/** The units still to destroy: not failed, not left. */
const open = (doomed: readonly Doomed[]) => doomed.filter((unit) => unit.error === undefined && unit.left !== true);

/** Leaves a unit with no mark of this stack, unless adopted, and one another stack's mark names. */
const leaveUnlessOurs = (unit: Doomed): void => {
  const { removal, live } = unit;
  const { stack } = removal.context;
  if (destroyMayAct(live, removal.adopt === true, stack)) return;
  unit.left = true;
  const what = leftByDestroy(live, stack, unitIsForeign(live, removal.ownsFile));
  // Said once the reload has run (reloadAndRead).
  const held = removal.ownsFile ? goneButLoaded(live, unitPath(removal.unit)) : enabledInPid1Only(live);
  if (what === 'already absent' && held) unit.loadedGone = true;
  else say(unit, what);
};

/** Queues the stops of every running unit in one command and waits for them together. */
const stopRunning = async (shell: HostShell, doomed: readonly Doomed[]): Promise<void> => {
  const running = open(doomed).filter(({ live }) => isUnitRunning(live.status.activeState, live.status.subState, true));
  if (running.length === 0) return;
  for (const unit of running) unit.running = true;
  try {
    await shell.mustMany('stop', running.map(nameOf), '--no-block');
    // Destroy gets no spec, so a stop waits the default deadline: a declared one is not known here.
    const waits = running.map((unit) => ({
      name: nameOf(unit),
      want: 'inactive' as const,
      seconds: START_TIMEOUT_SECONDS.default,
      log: (line: string) => say(unit, line),
    }));
    const settled = await shell.settleAll(waits);
    for (const unit of running) {
      const error = settled.get(nameOf(unit));
      if (error !== undefined) fail(unit, error);
    }
  } catch (error) {
    for (const unit of running) fail(unit, error);
  }
};

/**
 * Which units are failed after the stop, so their failed record is cleared: one `systemctl show` for those the
 * run stopped (the read's state is current for the others), where the helper's step read each itself (8-10 ms
 * a unit, measured). A template is never failed (`show` refuses its name).
 */
const readFailed = async (shell: HostShell, doomed: readonly Doomed[]): Promise<void> => {
  for (const unit of open(doomed)) unit.failed = unit.live.status.activeState === 'failed';
  const stopped = open(doomed).filter((unit) => unit.running === true && !isTemplate(nameOf(unit)));
  if (stopped.length === 0) return;
  try {
    for (const [unit, { activeState }] of await shell.statusesOf(stopped, nameOf))
      unit.failed = activeState === 'failed';
  } catch (error) {
    for (const unit of stopped) fail(unit, error);
  }
};

/**
 * Units a removal request holds at most: each takes the host tens of ms (systemctl show, a find over the
 * admin directory), and a request must end within the command budget (commandTimeoutSeconds, 30 s).
 */
export const REMOVALS_PER_REQUEST = 50;

/** The root helper steps that disable each unit and remove its file, record and links: one request a chunk. */
const removeAll = async (shell: HostShell, units: readonly Doomed[]): Promise<void> => {
  const chunks = Array.from({ length: Math.ceil(units.length / REMOVALS_PER_REQUEST) }, (_, index) =>
    units.slice(index * REMOVALS_PER_REQUEST, (index + 1) * REMOVALS_PER_REQUEST),
  );
  await Promise.all(chunks.map((chunk) => removeChunk(shell, chunk)));
};

const removeChunk = async (shell: HostShell, units: readonly Doomed[]): Promise<void> => {
  try {
    const disabled = await disableAll(shell, units);
    const steps = units.map((unit) => removalStep(unit, disabled));
    judgeRemovals(shell.host, units, steps, await shell.helper(steps));
  } catch (error) {
    for (const unit of units) fail(unit, error);
  }
};

/**
 * One `systemctl disable` for the units of a chunk that are enabled, then one `disable --runtime` (linkSteps):
 * pid1 answers each disable in turn, 11 ms apiece, and 50 at once in 34 ms (measured, systemd 252). When it
 * fails, each unit's step disables it alone, so the failure names its unit.
 */
const disableAll = async (shell: HostShell, units: readonly Doomed[]): Promise<boolean> => {
  const names = units.filter(mustDisable).map(nameOf);
  return names.length > 1 && (await shell.helper(linkSteps('disable', names))).code === 0;
};

/** Each unit's part of the request's output: its report, or its failure as if it had had a request of its own. */
const judgeRemovals = (host: string, units: readonly Doomed[], steps: HelperStep[], result: CommandResult) => {
  const sections = parseRemovals(result.stdout);
  units.forEach((unit, index) => {
    const section = sections[index];
    const failed = (detail: string) =>
      new HandlerError(`command failed on ${host}`, detail || `exit ${result.code}`, {
        Steps: (steps[index] ?? []).slice(0, 3).join(' '),
      });
    if (section?.name !== nameOf(unit) || !section.complete)
      fail(unit, result.code === 0 ? new Error(`${nameOf(unit)} was not removed`) : failed(result.stderr.trim()));
    else if (section.failed !== undefined) fail(unit, failed(section.failed.join('\n').trim() || 'exit 1'));
    else unit.report = section.report;
  });
};

// `systemctl disable` ignores a masked unit: its links go by the script's search alone. One enabled until
// reboot alone (its links under /run) is disabled too: a plain disable left them (measured, systemd 252).
const mustDisable = ({ live }: Doomed): boolean => {
  const enablement = enablementOf(live.status.unitFileState);
  return !isMasked(live.status) && (enablement === 'enabled' || enablement === 'runtime');
};

const removalStep = (unit: Doomed, disabled: boolean) =>
  destroyUnitStep(unit.removal.unit, {
    ownsFile: unit.removal.ownsFile,
    disable: mustDisable(unit),
    disabled,
    failed: unit.failed === true,
  });

/** One daemon-reload when any removal asks for it, then the load state of each unit it removed. */
const reloadAndRead = async (shell: HostShell, doomed: readonly Doomed[]): Promise<void> => {
  const reloading = open(doomed).filter((unit) => unit.report?.reload === true);
  const loadedGone = doomed.filter((unit) => unit.loadedGone === true);
  if (reloading.length + loadedGone.length === 0) return;
  try {
    await shell.reload();
    for (const unit of loadedGone) say(unit, RELOADED_ABSENT);
    // `show` refuses a template's name: a template's load state is not read.
    const named = reloading.filter((unit) => !isTemplate(nameOf(unit)));
    for (const [unit, { loadState }] of await shell.statusesOf(named, nameOf)) {
      if (unit.report !== undefined) unit.report = { ...unit.report, loadState };
    }
  } catch (error) {
    for (const unit of [...reloading, ...loadedGone]) fail(unit, error);
  }
};

/** Fails the unit naming what is left, or says what the destroy did. */
const finish = (unit: Doomed): void => {
  const { removal, live, report } = unit;
  try {
    if (report === undefined) throw new Error(`${nameOf(unit)} was not removed`);
    mustBeGone(removal, report, unit.host);
    say(unit, done(removal, live, report, unit.running === true));
  } catch (error) {
    fail(unit, error);
  }
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
  // Said as it was: a unit that did not run was not stopped, one that was not enabled was not disabled.
  const did = [stopped ? 'stopped' : '', DISABLED[enablementOf(live.status.unitFileState) ?? 'disabled']].filter(
    (word) => word !== '',
  );
  if (!ownsFile) return `${inWords(did) || 'neither running nor enabled'}; its template stays${mask}`;
  if (isAbsent(live))
    return report.removed.length > 0
      ? `already absent; removed what was left: ${report.removed.join(', ')}`
      : 'already absent';
  return `${inWords([...did, 'removed'])}${mask}`;
};

const DISABLED = {
  enabled: 'disabled',
  runtime: 'disabled (its links under /run: enabled until reboot)',
  disabled: '',
};

/** `a`, `a and b`, `a, b and c`. */
const inWords = (words: readonly string[]): string =>
  words.length < 2 ? (words[0] ?? '') : `${words.slice(0, -1).join(', ')} and ${words.at(-1)}`;
