/**
 * The I/O shell of a systemd unit: read in one round trip, write atomically, reload, settle by the
 * shared running-policy, read back, and on any failure put the previous file back and say so.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import { HandlerError } from '../../src/core/errors';
import type { HandlerInput, Log, ObjectHandler } from '../../src/core/handler-cli';
import { readResult } from '../../src/core/protocol';
import type { Remote } from '../../src/linux/ssh';
import { describeHost, parseSshTarget, type SshTarget } from '../../src/linux/target';
import { diffUnit, fileSteps, isAbsent, type LiveUnit, settleSteps, summarizeUnit, unitPath, type UnitSpec } from '../../src/linux/unit';
import * as cmd from '../../src/linux/unit-commands';
import { enabledOf, isUnitRunning } from '../../src/linux/unit-state';

/** How long a started unit gets before its state is judged: a Type=simple unit that exits at once
 * still reads active for a few milliseconds after `systemctl start` returns. */
const SETTLE_MS = 1000;

type Connect = (target: SshTarget) => Promise<Remote>;

export const systemdUnitHandler = (connect: Connect): ObjectHandler => {
  const withHost = async <T>(input: HandlerInput, work: (unit: UnitOps) => Promise<T>) => {
    const target = parseSshTarget(input.target);
    const remote = await connect(target);
    try {
      return await work(new UnitOps(remote, target, input.object as unknown as UnitSpec));
    } finally {
      remote.close();
    }
  };
  return {
    read: (input) =>
      withHost(input, async (unit) => {
        const live = await unit.read();
        const changes = diffUnit(unit.spec, live);
        return readResult(summarizeUnit(unit.spec, unit.host, live, changes), changes, Object.keys(changes).length === 0);
      }),
    apply: (input, log) => withHost(input, (unit) => unit.apply(log)),
    destroy: (input, log) => withHost(input, (unit) => unit.destroy(log)),
  };
};

class UnitOps {
  readonly host: string;

  constructor(
    private readonly remote: Remote,
    private readonly target: SshTarget,
    readonly spec: UnitSpec,
  ) {
    this.host = `${target.host}:${target.port}`;
  }

  async read(): Promise<LiveUnit> {
    const result = await this.remote.run(cmd.readCommand(this.spec));
    const live = cmd.parseRead(result.stdout);
    if (live === undefined) {
      throw new HandlerError('systemctl show gave no LoadState', 'the host must run systemd and let this user call systemctl', {
        Host: describeHost(this.target),
        Stderr: result.stderr.trim(),
      });
    }
    return live;
  }

  async apply(log: Log): Promise<void> {
    const { spec, target } = this;
    const before = await this.read();
    const file = fileSteps(spec, before);
    const previous = file.write && before.fileSha256 !== undefined ? (await this.must(cmd.catCommand(spec))).stdout : undefined;
    try {
      if (file.write) {
        log(`${spec.name} on ${this.host}: writing ${unitPath(spec)}`);
        await this.must(cmd.writeCommand(spec, target.sudo), spec.content);
      }
      if (file.daemonReload) await this.systemctl('daemon-reload');
      const reloaded = await this.read();
      const steps = settleSteps(spec, reloaded.status, before.restartOn, file.write);
      if (steps.enable) await this.systemctl('enable', spec.name);
      if (steps.disable) await this.systemctl('disable', spec.name);
      if (steps.stop) await this.systemctl('stop', spec.name);
      if (steps.start) await this.systemctl('start', spec.name);
      if (steps.restart) await this.systemctl('restart', spec.name);
      if (steps.start || steps.restart) await sleep(SETTLE_MS);
      await this.must(cmd.recordRestartOnCommand(spec, spec.restartOn, target.sudo));
      const after = await this.read();
      const left = diffUnit(spec, after);
      if (Object.keys(left).length > 0) {
        const state = `${after.status.activeState}/${after.status.subState}`;
        throw new Error(`systemctl reported success but the unit is ${state}: ${summarizeUnit(spec, this.host, after, left)}`);
      }
    } catch (error) {
      const restored = file.write ? await this.undo(previous) : 'nothing: the unit file was not changed';
      throw new HandlerError(`${spec.name} on ${this.host} was not applied`, `${messageOf(error)}; restored ${restored}; ${await this.stateNow()}`);
    }
  }

  async destroy(log: Log): Promise<void> {
    const { spec } = this;
    const live = await this.read();
    if (isAbsent(live)) return log(`${spec.name} on ${this.host}: already absent`);
    if (isUnitRunning(live.status.activeState, live.status.subState, true)) await this.systemctl('stop', spec.name);
    if (enabledOf(live.status.unitFileState) === true) await this.systemctl('disable', spec.name);
    await this.removeUnitFile();
    const after = await this.read();
    if (!isAbsent(after)) {
      throw new HandlerError(`${spec.name} on ${this.host} is still loaded after removal`, `systemd reports LoadState=${after.status.loadState}, ActiveState=${after.status.activeState}`);
    }
    log(`${spec.name} on ${this.host}: stopped, disabled and removed`);
  }

  /** What the unit is doing now, for a failure message; never throws over the original error. */
  private async stateNow(): Promise<string> {
    try {
      const { status } = await this.read();
      return `the unit is now ${status.activeState}/${status.subState}`;
    } catch (error) {
      return `its state could not be read (${messageOf(error)})`;
    }
  }

  /** Removes the file and reloads. A unit that had failed stays listed as failed (and the host
   * "degraded") after its file is gone, so that record is cleared too. */
  private async removeUnitFile(): Promise<void> {
    await this.must(cmd.removeCommand(this.spec, this.target.sudo));
    await this.systemctl('daemon-reload');
    if ((await this.read()).status.activeState === 'failed') await this.systemctl('reset-failed', this.spec.name);
  }

  /** Puts the previous file back (or removes the new one) and reloads; says what it did. */
  private async undo(previous: string | undefined): Promise<string> {
    try {
      if (previous !== undefined) {
        await this.must(cmd.writeCommand(this.spec, this.target.sudo), previous);
        await this.systemctl('daemon-reload');
        return 'the previous unit file';
      }
      await this.removeUnitFile();
      return 'the host by removing the new unit file';
    } catch (error) {
      return `nothing, the undo failed too (${messageOf(error)}); check ${unitPath(this.spec)} by hand`;
    }
  }

  private systemctl(verb: string, name?: string) {
    return this.must(cmd.systemctl(verb, this.target.sudo, name));
  }

  /** Runs a command that must succeed; its stderr becomes the error. */
  private async must(command: string, stdin?: string) {
    const result = await this.remote.run(command, stdin);
    if (result.code !== 0) {
      throw new HandlerError(`command failed on ${this.host}`, result.stderr.trim() || `exit ${result.code}`, { Command: command });
    }
    return result;
  }
}

const messageOf = (error: unknown): string =>
  error instanceof HandlerError ? error.oneLine() : error instanceof Error ? error.message : String(error);
