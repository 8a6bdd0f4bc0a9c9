/**
 * The end of a unit destroy run (unit-ops.ts): what became of each unit so far, the one daemon-reload that lets pid1
 * go of the removed files and of units left absent but still loaded (unit-remove.ts `goneButLoaded`), and the check
 * that each is gone, said in words. Without the reload and that check a destroy said "removed" while systemd still
 * had the unit loaded and startable from a file that was no longer there.
 */
import { HandlerError } from '../../src/core/errors';
import type { LiveUnit } from '../../src/linux/unit-control';
import { isAbsent } from '../../src/linux/unit-diff';
import { isTemplate } from '../../src/linux/unit-name';
import { RELOADED_ABSENT, type RemovalReport } from '../../src/linux/unit-remove';
import { enablementOf, isMasked } from '../../src/linux/unit-state';
import type { HostShell } from './host-shell';
import type { KindContext } from '../../src/core/kind';
import type { UnitIdentity } from '../../src/linux/systemd-unit';

/** One unit to destroy, with the context its lines go to. */
export interface UnitRemoval {
  readonly unit: UnitIdentity;
  /** Whether the unit's file is ours: false for an instance, whose file is its template's. */
  readonly ownsFile: boolean;
  readonly context: KindContext;
  /** Whether its construct says `adopt: true`: without it, a unit with no mark of this stack is left. */
  readonly adopt?: boolean;
}

/** One unit of a destroy run and what became of it so far. */
export interface Doomed {
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

export const asError = (error: unknown): Error => (error instanceof Error ? error : new Error(String(error)));
export const nameOf = ({ removal }: Doomed): string => removal.unit.name;
export const say = (unit: Doomed, line: string) => unit.removal.context.log(`${nameOf(unit)} on ${unit.host}: ${line}`);
export const fail = (unit: Doomed, error: unknown) => {
  unit.error ??= asError(error);
};
/** The units still to destroy: not failed, not left. */
export const open = (doomed: readonly Doomed[]) =>
  doomed.filter((unit) => unit.error === undefined && unit.left !== true);

/** One daemon-reload when any removal asks for it, then the load state of each unit it removed. */
export const reloadAndRead = async (shell: HostShell, doomed: readonly Doomed[]): Promise<void> => {
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
export const finish = (unit: Doomed): void => {
  const { removal, live, report } = unit;
  try {
    if (report === undefined) throw new Error(`${nameOf(unit)} was not removed`);
    mustBeGone(removal, report, unit.host);
    say(unit, done(removal, live, report, unit.running === true));
  } catch (error) {
    fail(unit, error);
  }
};

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
