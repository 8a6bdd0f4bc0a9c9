/**
 * Destroy of one unit, shared by units (which own a file) and template instances (which do not):
 * stop bounded like a start, then one script that disables it, removes its file, its restartOn
 * record and every link to the file, then a daemon-reload shared with the run's other destroys
 * (HostShell.reload); a link or file it cannot remove fails the destroy naming it, and so does a
 * unit systemd still has loaded. A mask someone made stays. Apply is `unit-transaction.ts`.
 */
import { HandlerError } from '../../src/core/errors';
import type { KindContext } from '../../src/core/kind';
import type { LiveUnit } from '../../src/linux/unit-control';
import { restartOnPath, START_TIMEOUT_SECONDS, unitPath } from '../../src/linux/unit-file';
import type { UnitIdentity } from '../../src/linux/systemd-unit';
import { isAbsent } from '../../src/linux/unit-diff';
import { isTemplate } from '../../src/linux/unit-name';
import { destroyScript, parseRemoval, removalOf, type RemovalReport } from '../../src/linux/unit-remove';
import { enabledOf, isMasked, isUnitRunning } from '../../src/linux/unit-state';
import type { HostSession } from './session';
import { HostShell } from './host-shell';
import { readUnits } from './read-units';

export class UnitOps extends HostShell {
  constructor(
    session: HostSession,
    private readonly unit: UnitIdentity,
    /** Whether the unit's file is ours: false for an instance, whose file is its template's. */
    private readonly ownsFile: boolean,
    { clock, log }: KindContext,
  ) {
    super(session, clock, log);
  }

  private get name(): string {
    return this.unit.name;
  }

  private async read(): Promise<LiveUnit> {
    const entry = {
      unit: this.name,
      record: restartOnPath(this.unit),
      ...(this.ownsFile ? { file: unitPath(this.unit) } : {}),
    };
    return (await readUnits(this.session, [entry]))[0] as LiveUnit;
  }

  async destroy(): Promise<void> {
    const live = await this.read();
    const masked = isMasked(live.status);
    const running = isUnitRunning(live.status.activeState, live.status.subState, true);
    if (running) await this.stop();
    // `systemctl disable` ignores a masked unit: its links go by the script's search alone.
    const disable = !masked && enabledOf(live.status.unitFileState) === true;
    const removal = removalOf(this.unit, this.ownsFile);
    const removed = parseRemoval((await this.script(destroyScript(removal, disable))).stdout);
    const report = removed.reload ? { ...removed, loadState: await this.reloadedState() } : removed;
    this.mustBeGone(report);
    this.log(`${this.name} on ${this.host}: ${this.done(live, report, running)}`);
  }

  /** The unit's load state after a daemon-reload; none for a template, whose name `show` refuses. */
  private async reloadedState(): Promise<string | undefined> {
    await this.reload();
    return isTemplate(this.name) ? undefined : (await this.status(this.name)).loadState;
  }

  /** Fails naming what is left: a path the script could not remove, or the unit still loaded. */
  private mustBeGone(report: RemovalReport): void {
    if (report.left.length > 0) {
      throw new HandlerError(
        `${this.name} on ${this.host} was not wholly removed`,
        `could not remove ${report.left.join('; ')}; remove it by hand, or fix what refused it, and destroy again`,
      );
    }
    const loaded = report.loadState !== 'not-found' && report.loadState !== 'masked';
    if (this.ownsFile && !isTemplate(this.name) && loaded) {
      throw new HandlerError(
        `${this.name} on ${this.host} is still loaded after removal`,
        `systemd reports LoadState=${report.loadState ?? '(nothing)'} after a daemon-reload`,
      );
    }
  }

  /** What the destroy did, in words. */
  private done(live: LiveUnit, report: RemovalReport, stopped: boolean): string {
    const mask = report.masks.length > 0 ? `; the mask ${report.masks.join(', ')} (→ /dev/null) stays` : '';
    const removed = report.removed.length > 0 ? `removed ${report.removed.join(', ')}` : 'nothing of it was left';
    if (isMasked(live.status)) return `masked by hand; ${stopped ? 'stopped it, ' : ''}${removed}${mask}`;
    if (!this.ownsFile) return `stopped and disabled; its template stays${mask}`;
    if (isAbsent(live))
      return report.removed.length > 0
        ? `already absent; removed what was left: ${report.removed.join(', ')}`
        : 'already absent';
    return `stopped, disabled and removed${mask}`;
  }

  // Destroy gets no spec, so it waits the default deadline: a declared one is not known here.
  private async stop(): Promise<void> {
    await this.systemctl('stop', this.name, '--no-block');
    await this.settle(this.name, 'inactive', START_TIMEOUT_SECONDS.default);
  }
}
