/**
 * Apply and destroy of one unit, shared by units (which own a file) and template instances (which
 * do not): an atomic write, one reload, enable, a start polled to a deadline, a read-back, and on
 * failure an undo that reports exactly what it put back, or nothing when nothing was changed.
 */
import { HandlerError } from '../../src/core/errors';
import type { KindContext } from '../../src/core/kind';
import { ConnectionLost } from '../../src/linux/ssh';
import {
  type DesiredUnit,
  type LiveUnit,
  restartOnPath,
  timeoutOf,
  unitPath,
  type UnitIdentity,
} from '../../src/linux/unit';
import * as cmd from '../../src/linux/unit-commands';
import {
  diffUnit,
  fileSteps,
  isAbsent,
  reloadNeeded,
  settleSteps,
  settleTarget,
  summarizeUnit,
  unmaskAdvice,
} from '../../src/linux/unit-diff';
import { isTemplate } from '../../src/linux/unit-name';
import { enabledOf, isMasked, isUnitRunning } from '../../src/linux/unit-state';
import type { HostSession } from './domain';
import { HostShell, messageOf } from './host-shell';
import { readUnits } from './read-units';

/** What this apply changed on the host, so the undo reverts that and only that. */
interface Done {
  wrote: boolean;
  started: boolean;
}

const DONE = { stop: 'stopped', start: 'started', restart: 'restarted' } as const;

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

  async read(): Promise<LiveUnit> {
    const entry = {
      unit: this.name,
      record: restartOnPath(this.unit),
      ...(this.ownsFile ? { file: unitPath(this.unit) } : {}),
    };
    return (await readUnits(this.session, [entry]))[0] as LiveUnit;
  }

  async apply(spec: DesiredUnit): Promise<void> {
    const before = await this.read();
    if (isMasked(before.status)) await this.unmask(spec, before);
    const file = fileSteps(spec, before);
    const previous =
      file.write && before.fileSha256 !== undefined
        ? (await this.must(cmd.catCommand(unitPath(spec)))).stdout
        : undefined;
    const done: Done = { wrote: false, started: false };
    try {
      if (file.write) {
        await this.write(spec.directory, unitPath(spec), spec.content ?? '');
        done.wrote = true;
        this.log(`${this.name} on ${this.host}: wrote ${unitPath(spec)}`);
      }
      await this.converge(spec, await this.loaded(before, file.write), file.write, done);
      const after = await this.read();
      const left = diffUnit(spec, after);
      if (Object.keys(left).length > 0) {
        const state = `${after.status.activeState}/${after.status.subState}`;
        throw new Error(
          `systemctl reported success but the unit is ${state}: ${summarizeUnit(spec, this.host, after, left)}`,
        );
      }
    } catch (error) {
      if (error instanceof ConnectionLost) {
        throw new HandlerError(
          `SSH connection to ${this.host} lost during apply`,
          `${error.reason}; the unit may be half-applied: the next apply converges it`,
        );
      }
      const restored = await this.undo(spec, done, previous);
      throw new HandlerError(
        `${this.name} on ${this.host} was not applied`,
        `${messageOf(error)}${restored}${await this.stateNow()}`,
      );
    }
  }

  /** Enable or disable, then start, stop or restart by the shared policy, and wait for it to settle. */
  private async converge(spec: DesiredUnit, live: LiveUnit, written: boolean, done: Done): Promise<void> {
    const steps = settleSteps(spec, live, written);
    // enable/disable reload systemd themselves; the reload before them already loaded the file.
    // Alias= and Also= name units the manager only learns of in a reload, and a loaded instance
    // keeps its old UnitFileState until one (measured, systemd 252), so those keep it.
    const noReload = spec.content !== undefined && !/^\s*(Alias|Also)\s*=/m.test(spec.content) ? ['--no-reload'] : [];
    if (steps.enable) await this.act('enable', noReload, 'enabled');
    if (steps.disable) await this.act('disable', noReload, 'disabled');
    const verb = steps.stop ? 'stop' : steps.start ? 'start' : steps.restart ? 'restart' : undefined;
    if (verb !== undefined) await this.systemctl(verb, this.name, '--no-block');
    done.started = steps.start || steps.restart;
    // A unit already activating counts as running, so it gets no start; it must still get ready.
    const want =
      settleTarget(steps) ?? (spec.started && live.status.activeState === 'activating' ? 'active' : undefined);
    if (want !== undefined) {
      await this.settle(this.name, want, timeoutOf(spec));
      this.log(`${this.name} on ${this.host}: ${verb === undefined ? 'became active' : DONE[verb]}`);
    }
    if (live.restartOn !== spec.restartOn) await this.must(cmd.recordRestartOnCommand(spec, spec.restartOn, this.sudo));
  }

  private async act(verb: string, flags: string[], said: string): Promise<void> {
    await this.systemctl(verb, this.name, ...flags);
    this.log(`${this.name} on ${this.host}: ${said}`);
  }

  /** The unit as systemd has it loaded after the write, reloading only when `reloadNeeded` says. */
  private async loaded(before: LiveUnit, written: boolean): Promise<LiveUnit> {
    const now = written ? await this.read() : before;
    if (!reloadNeeded(before, now, written)) return now;
    await this.reload();
    return this.read();
  }

  /** Removes a /dev/null mask when the spec allows it; otherwise fails before anything is changed. */
  private async unmask(spec: DesiredUnit, live: LiveUnit): Promise<void> {
    if (spec.unmask !== true) {
      throw new HandlerError(
        `${this.name} on ${this.host} is masked`,
        `systemd will not start or enable it; ${unmaskAdvice(spec)}`,
        {
          UnitFileState: live.status.unitFileState,
        },
      );
    }
    const result = await this.session.remote.run(cmd.unmaskCommand(spec, this.sudo));
    if (result.code !== 0) {
      const refused = result.code === cmd.UNMASK_REFUSED;
      throw new HandlerError(
        `${this.name} on ${this.host} is masked and was not unmasked`,
        refused
          ? `${result.stderr.trim()}; unmask removes only /dev/null links: move that file away by hand`
          : result.stderr.trim(),
      );
    }
    this.log(`${this.name} on ${this.host}: unmasked (removed its /dev/null link)`);
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

  /** Reverts what `done` says this apply changed; returns `; restored …` or nothing when nothing was. */
  private async undo(spec: DesiredUnit, done: Done, previous: string | undefined): Promise<string> {
    if (!done.wrote) return '';
    try {
      if (previous !== undefined) {
        await this.write(this.unit.directory, unitPath(this.unit), previous);
        await this.reload();
        return '; restored the previous unit file';
      }
      const stopped =
        done.started &&
        !isTemplate(this.name) &&
        !['inactive', 'failed'].includes((await this.status(this.name)).activeState);
      if (stopped) await this.stop(timeoutOf(spec));
      await this.removeUnitFile();
      return `; restored the host by ${stopped ? 'stopping the unit and ' : ''}removing the new unit file`;
    } catch (error) {
      return `; the undo failed too (${messageOf(error)}): check ${unitPath(this.unit)} by hand`;
    }
  }

  /** What the unit is doing now, for a failure message; never throws over the original error. */
  private async stateNow(): Promise<string> {
    if (isTemplate(this.name)) return '';
    try {
      const status = await this.status(this.name);
      return `; the unit is now ${status.activeState}/${status.subState}`;
    } catch (error) {
      return `; its state could not be read (${messageOf(error)})`;
    }
  }
}
