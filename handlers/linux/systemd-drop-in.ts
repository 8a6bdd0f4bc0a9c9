/**
 * The systemd-drop-in kind: the drop-in files of a host read in one round trip with their units'
 * state; apply writes one atomically, reloads, and restarts its unit when it runs, so the change
 * takes effect; on failure the previous file is put back. Destroy removes the file and reloads.
 */
import { sha256Hex } from '../../src/core/canonical';
import { HandlerError } from '../../src/core/errors';
import { defineKind, type KindContext, type Reading } from '../../src/core/kind';
import {
  diffDropIn,
  dropInDirectory,
  dropInIdentity,
  type DropInIdentity,
  dropInPath,
  dropInSpec,
  type DropInSpec,
  summarizeDropIn,
} from '../../src/linux/drop-in';
import { ConnectionLost } from '../../src/linux/ssh';
import type { LiveUnit } from '../../src/linux/unit';
import * as cmd from '../../src/linux/unit-commands';
import { isTemplate } from '../../src/linux/unit-name';
import type { HostSession } from './domain';
import { HostShell, messageOf } from './host-shell';
import { readUnits } from './read-units';

export interface LiveDropIns {
  readonly host: string;
  readonly files: ReadonlyMap<string, LiveUnit>;
}

const entryOf = (dropIn: DropInIdentity) => ({ unit: dropIn.unit, file: dropInPath(dropIn) });

export const systemdDropInKind = defineKind({
  spec: dropInSpec,
  identity: dropInIdentity,

  async fetch(session: HostSession, specs: readonly DropInSpec[]): Promise<LiveDropIns> {
    const live = await readUnits(session, specs.map(entryOf));
    return {
      host: session.host,
      files: new Map(specs.map((spec, index) => [dropInPath(spec), live[index] as LiveUnit])),
    };
  },

  read(spec: DropInSpec, { host, files }: LiveDropIns): Reading {
    const live = files.get(dropInPath(spec));
    if (live === undefined) throw new Error(`${dropInPath(spec)} was not read`);
    const diff = diffDropIn(spec, live);
    return { inSync: Object.keys(diff).length === 0, summary: summarizeDropIn(spec, host, live, diff), diff };
  },

  apply: (session: HostSession, spec: DropInSpec, context: KindContext) =>
    new DropInOps(session, spec, context).apply(spec),
  destroy: (session: HostSession, identity: DropInIdentity, context: KindContext) =>
    new DropInOps(session, identity, context).destroy(),
});

class DropInOps extends HostShell {
  private readonly path: string;

  constructor(
    session: HostSession,
    private readonly dropIn: DropInIdentity,
    { clock, log }: KindContext,
  ) {
    super(session, clock, log);
    this.path = dropInPath(dropIn);
  }

  private async read(): Promise<LiveUnit> {
    return (await readUnits(this.session, [entryOf(this.dropIn)]))[0] as LiveUnit;
  }

  async apply(spec: DropInSpec): Promise<void> {
    const before = await this.read();
    const write = before.fileSha256 !== sha256Hex(spec.content);
    const previous =
      write && before.fileSha256 !== undefined ? (await this.must(cmd.catCommand(this.path))).stdout : undefined;
    let wrote = false;
    let restarted = false;
    try {
      if (write) {
        await this.write(dropInDirectory(spec), this.path, spec.content);
        wrote = true;
        this.log(`${spec.unit} on ${this.host}: wrote ${this.path}`);
      }
      if (write || before.status.needDaemonReload) await this.reload();
      // Only a running unit is restarted: a stopped one reads the drop-in when it next starts.
      if (write && !isTemplate(spec.unit) && before.status.activeState === 'active') {
        restarted = true;
        await this.restart(spec.startTimeoutSeconds);
      }
    } catch (error) {
      if (error instanceof ConnectionLost) {
        throw new HandlerError(
          `SSH connection to ${this.host} lost during apply`,
          `${error.reason}; the drop-in may be half-applied: the next apply converges it`,
        );
      }
      const restored = wrote ? await this.undo(previous, restarted, spec.startTimeoutSeconds) : '';
      throw new HandlerError(`drop-in ${this.path} on ${this.host} was not applied`, `${messageOf(error)}${restored}`);
    }
  }

  private async restart(seconds: number): Promise<void> {
    await this.systemctl('restart', this.dropIn.unit, '--no-block');
    await this.settle(this.dropIn.unit, 'active', seconds);
    this.log(`${this.dropIn.unit} on ${this.host}: restarted with the new drop-in`);
  }

  /** Puts the previous file back (or removes the new one), reloads, and restarts a unit it restarted. */
  private async undo(previous: string | undefined, restarted: boolean, seconds: number): Promise<string> {
    try {
      if (previous === undefined) await this.must(cmd.removeFileCommand(this.path, this.sudo));
      else await this.write(dropInDirectory(this.dropIn), this.path, previous);
      await this.reload();
      const what = previous === undefined ? 'removed the new drop-in' : 'restored the previous drop-in';
      if (!restarted) return `; ${what}`;
      await this.restart(seconds);
      return `; ${what} and restarted ${this.dropIn.unit} with it`;
    } catch (error) {
      return `; the undo failed too (${messageOf(error)}): check ${this.path} and ${this.dropIn.unit} by hand`;
    }
  }

  async destroy(): Promise<void> {
    const live = await this.read();
    if (live.fileSha256 === undefined) return this.log(`drop-in ${this.path} on ${this.host}: already absent`);
    await this.must(cmd.removeFileCommand(this.path, this.sudo));
    await this.reload();
    this.log(
      `drop-in ${this.path} on ${this.host}: removed; ${this.dropIn.unit} keeps its current settings until it restarts`,
    );
  }
}
