/**
 * The I/O shell of a systemd unit: every unit on a host read in one round trip, then per unit a
 * write that is atomic, a reload, a settle by the shared running-policy and a read-back, and on
 * any failure the previous file put back, saying so.
 */
import type { Clock } from '../../src/core/clock';
import { HandlerError } from '../../src/core/errors';
import { defineKind, type KindContext, type Log, type Reading } from '../../src/core/kind';
import { describeHost } from '../../src/linux/target';
import {
  diffUnit,
  fileSteps,
  isAbsent,
  type LiveUnit,
  settleSteps,
  summarizeUnit,
  unitIdentity,
  unitPath,
  unitSpec,
  type UnitIdentity,
  type UnitSpec,
} from '../../src/linux/unit';
import * as cmd from '../../src/linux/unit-commands';
import { parseReadScript, readScript } from '../../src/linux/unit-read';
import { enabledOf, isUnitRunning } from '../../src/linux/unit-state';
import type { HostSession } from './domain';

/** How long a started unit gets before its state is judged: a Type=simple unit that exits at once
 * still reads active for a few milliseconds after `systemctl start` returns. */
const SETTLE_MS = 1000;

/** Live units by path, from one read of the host. */
export interface LiveUnits {
  readonly host: string;
  readonly units: ReadonlyMap<string, LiveUnit>;
}

export const systemdUnitKind = defineKind({
  spec: unitSpec,
  identity: unitIdentity,

  async fetch(session: HostSession, specs: readonly UnitSpec[]): Promise<LiveUnits> {
    const live = await readUnits(session, specs);
    return { host: session.host, units: new Map(specs.map((spec, index) => [unitPath(spec), live[index] as LiveUnit])) };
  },

  read(spec: UnitSpec, { host, units }: LiveUnits): Reading {
    const live = units.get(unitPath(spec));
    if (live === undefined) throw new Error(`${unitPath(spec)} was not read`);
    const diff = diffUnit(spec, live);
    return { inSync: Object.keys(diff).length === 0, summary: summarizeUnit(spec, host, live, diff), diff };
  },

  apply: (session: HostSession, spec: UnitSpec, { clock, log }: KindContext) => new UnitOps(session, spec, clock).apply(spec, log),
  destroy: (session: HostSession, identity: UnitIdentity, { clock, log }: KindContext) =>
    new UnitOps(session, identity, clock).destroy(log),
});

/** Reads `units` in one round trip; fails naming the host when systemd does not answer. */
const readUnits = async ({ remote, target }: HostSession, units: readonly UnitIdentity[]): Promise<LiveUnit[]> => {
  const result = await remote.run('sh -s', readScript(units));
  const live = parseReadScript(result.stdout, units);
  if (live === undefined) {
    throw new HandlerError('systemctl show gave no unit states', 'the host must run systemd and let this user call systemctl', {
      Host: describeHost(target),
      Stderr: result.stderr.trim(),
    });
  }
  return live;
};

class UnitOps {
  private readonly remote: HostSession['remote'];
  private readonly target: HostSession['target'];
  private readonly host: string;

  constructor(
    session: HostSession,
    private readonly unit: UnitIdentity,
    private readonly clock: Clock,
  ) {
    ({ remote: this.remote, target: this.target, host: this.host } = session);
  }

  async read(): Promise<LiveUnit> {
    const [live] = await readUnits({ remote: this.remote, target: this.target, host: this.host }, [this.unit]);
    return live as LiveUnit;
  }

  async apply(spec: UnitSpec, log: Log): Promise<void> {
    const { target } = this;
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
      if (steps.start || steps.restart) await this.clock.sleep(SETTLE_MS);
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
    const spec = this.unit;
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
    await this.must(cmd.removeCommand(this.unit, this.target.sudo));
    await this.systemctl('daemon-reload');
    if ((await this.read()).status.activeState === 'failed') await this.systemctl('reset-failed', this.unit.name);
  }

  /** Puts the previous file back (or removes the new one) and reloads; says what it did. */
  private async undo(previous: string | undefined): Promise<string> {
    try {
      if (previous !== undefined) {
        await this.must(cmd.writeCommand(this.unit, this.target.sudo), previous);
        await this.systemctl('daemon-reload');
        return 'the previous unit file';
      }
      await this.removeUnitFile();
      return 'the host by removing the new unit file';
    } catch (error) {
      return `nothing, the undo failed too (${messageOf(error)}); check ${unitPath(this.unit)} by hand`;
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
