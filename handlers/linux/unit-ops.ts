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
 * mark names, adopt or not (issue 27). The reload and the check that each is gone: unit-removal-end.ts. Apply is
 * `unit-transaction.ts`.
 */
import { HandlerError } from '../../src/core/errors';
import { restartOnPath, START_TIMEOUT_SECONDS, unitPath } from '../../src/linux/unit-file';
import { unitIntentPath } from '../../src/linux/unit-intent';
import { destroyMayAct, leftByDestroy, unitIsForeign } from '../../src/linux/unit-ownership';
import { destroyUnitStep, type HelperStep, linkSteps } from '../../src/linux/root-helper';
import type { CommandResult } from '../../src/linux/ssh';
import { enabledInPid1Only, goneButLoaded, parseRemovals } from '../../src/linux/unit-remove';
import { enablementOf, isMasked, isUnitRunning } from '../../src/linux/unit-state';
import type { HostSession } from './session';
import { HostShell, type WaitStatus } from './host-shell';
import { readUnits } from './read-units';
import {
  asError,
  type Doomed,
  fail,
  finish,
  nameOf,
  open,
  reloadAndRead,
  say,
  type UnitRemoval,
} from './unit-removal-end';

export type { UnitRemoval } from './unit-removal-end';

/** Destroys one unit; its failure is thrown. */
export const destroyUnit = async (session: HostSession, removal: UnitRemoval): Promise<void> => {
  const failure = (await destroyUnits(session, [removal])).get(removal);
  if (failure !== undefined) throw failure;
};

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
  await removeAll(shell, open(doomed));
  await reloadAndRead(shell, doomed);
  for (const unit of open(doomed)) finish(unit);
  return new Map(doomed.flatMap(({ removal, error }) => (error === undefined ? [] : [[removal, error] as const])));
};

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

/**
 * Queues the stops of every running unit in one command and waits for them together; each one's failed record (to
 * clear) is the state it settled in, where a `systemctl show` after the wait read it again (about 0.2 s of a
 * teardown of 200 units, measured 2026-12-07). The others' is the read's.
 */
const stopRunning = async (shell: HostShell, doomed: readonly Doomed[]): Promise<void> => {
  for (const unit of open(doomed)) unit.failed = unit.live.status.activeState === 'failed';
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
      settled: ({ activeState }: WaitStatus) => void (unit.failed = activeState === 'failed'),
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

const readEntry = ({ unit, ownsFile }: UnitRemoval) => ({
  unit: unit.name,
  record: restartOnPath(unit),
  intent: unitIntentPath(unit),
  ...(ownsFile ? { file: unitPath(unit) } : {}),
});
