/**
 * Destroy of one unit, shared by units (which own a file) and template instances (which do not):
 * stop bounded like a start, disable, remove the file, and read back that systemd let it go, so a
 * destroy that leaves the unit loaded fails instead of passing. Apply is `unit-transaction.ts`.
 */
import { HandlerError } from '../../src/core/errors';
import type { KindContext } from '../../src/core/kind';
import { type LiveUnit, restartOnPath, timeoutOf, unitPath, type UnitIdentity } from '../../src/linux/unit';
import * as cmd from '../../src/linux/unit-commands';
import { isAbsent } from '../../src/linux/unit-diff';
import { isTemplate } from '../../src/linux/unit-name';
import { enabledOf, isMasked, isUnitRunning } from '../../src/linux/unit-state';
import type { HostSession } from './domain';
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
    if (this.ownsFile && isAbsent(live)) return this.log(`${this.name} on ${this.host}: already absent`);
    if (isMasked(live.status))
      return this.log(`${this.name} on ${this.host}: masked; destroy leaves the mask in place`);
    if (isUnitRunning(live.status.activeState, live.status.subState, true)) await this.stop();
    // Without a reload a loaded instance keeps reading enabled; a unit's removal reloads anyway.
    if (enabledOf(live.status.unitFileState) === true)
      await this.systemctl('disable', this.name, ...(this.ownsFile ? ['--no-reload'] : []));
    if (!this.ownsFile) {
      await this.must(cmd.forgetRestartOnCommand(this.unit, this.sudo));
      if ((await this.status(this.name)).activeState === 'failed') await this.systemctl('reset-failed', this.name);
      return this.log(`${this.name} on ${this.host}: stopped and disabled; its template stays`);
    }
    await this.removeUnitFile();
    const after = await this.read();
    if (!isAbsent(after)) {
      throw new HandlerError(
        `${this.name} on ${this.host} is still loaded after removal`,
        `systemd reports LoadState=${after.status.loadState}, ActiveState=${after.status.activeState}`,
      );
    }
    this.log(`${this.name} on ${this.host}: stopped, disabled and removed`);
  }

  private async stop(seconds = timeoutOf({})): Promise<void> {
    await this.systemctl('stop', this.name, '--no-block');
    await this.settle(this.name, 'inactive', seconds);
  }

  /** Removes the file, and reloads if systemd still has it loaded. A unit that had failed stays
   * listed as failed (and the host "degraded") after its file is gone, so that record is cleared. */
  private async removeUnitFile(): Promise<void> {
    await this.must(cmd.removeCommand(this.unit, this.sudo));
    if (isTemplate(this.name)) return void (await this.reload()); // show refuses its name
    if ((await this.status(this.name)).activeState === 'failed') await this.systemctl('reset-failed', this.name);
    // A stopped unit nothing refers to is dropped by systemd at once; only one still loaded needs a reload.
    if ((await this.status(this.name)).loadState !== 'not-found') await this.reload();
  }
}
