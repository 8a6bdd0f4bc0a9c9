/**
 * The systemd-drop-in kind: the drop-in files of a host read in one round trip with their units'
 * state. Apply (`unit-transaction.ts`) writes one atomically, reloads, and restarts its unit when it
 * runs, so the change takes effect; on failure the previous file is put back. Destroy removes the
 * file and reloads, restarting a template's undeclared instances, which a plan removing it names.
 */
import { errorMessage, HandlerError } from '../../src/core/errors';
import { defineKind, type KindContext, type Reading } from '../../src/core/kind';
import {
  diffDropIn,
  dropInIdentity,
  type DropInIdentity,
  dropInPath,
  dropInSpec,
  type DropInSpec,
  summarizeDropIn,
} from '../../src/linux/systemd-drop-in';
import type { LiveUnit } from '../../src/linux/unit-control';
import { destroyMayAct, dropInIsForeign, leftByDestroy, markStackOf } from '../../src/linux/unit-ownership';
import {
  forgetDropInStep,
  type HelperStep,
  RELOAD,
  recordStep,
  removeDropInStep,
  systemctlStep,
} from '../../src/linux/root-helper';
import { traceDropInStep } from '../../src/linux/drop-in-traces';
import { restartOnPath, START_TIMEOUT_SECONDS } from '../../src/linux/unit-file';
import { dropInBasis } from '../../src/linux/unit-basis';
import type { StopCause } from '../../src/linux/unit-stop-propagation';
import type { HostSession } from './session';
import { HostShell } from './host-shell';
import { readUnits } from './read-units';
import { readStoppedBy } from './stopped-by';
import { readRemovalRestarts, undeclaredRuns } from './template-restarts';
import { applyOne } from './unit-transaction';
import { batchFilesOf, dropInEntryOf, type UnitChange } from '../../src/linux/unit-batch';
import { convergesAsRead } from '../../src/linux/unit-refusal';
import { instancesToJudge } from '../../src/linux/template-drop-ins';
import { keptByRemoval } from '../../src/linux/template-runs';
import type { ReadEntry } from '../../src/linux/unit-read';
import { goneButLoaded, RELOADED_ABSENT, runBeforeRemoval } from '../../src/linux/unit-remove';

export interface LiveDropIns {
  readonly host: string;
  readonly files: ReadonlyMap<string, LiveUnit>;
  /** Each unit the destroy of a unit the plan removes stops, with that unit (unit-stop-propagation.ts). */
  readonly stoppedBy?: ReadonlyMap<string, StopCause>;
}

export const systemdDropInKind = defineKind({
  spec: dropInSpec,
  identity: dropInIdentity,

  /** With the batch's instances of the templates among their units, which judge a template's drop-in. */
  async fetch(session: HostSession, specs: readonly DropInSpec[], context, batch?: readonly UnitChange[]) {
    const instances = instancesToJudge(specs, batch ?? []).map((unit): ReadEntry => ({ unit }));
    const live = await readUnits(session, [...specs.map(dropInEntryOf), ...instances]);
    const files = live.flatMap(([{ file }, unit]) => (file === undefined ? [] : [[file, unit] as const]));
    const stopped = await readStoppedBy(session, context);
    return { host: session.host, files: new Map(files), ...stopped } satisfies LiveDropIns;
  },

  read(spec: DropInSpec, { host, files, stoppedBy }: LiveDropIns, { stack }): Reading {
    const live = files.get(dropInPath(spec));
    if (live === undefined) throw new Error(`${dropInPath(spec)} was not read`);
    const diff = diffDropIn(spec, live);
    const summary = summarizeDropIn(spec, host, live, diff);
    // Its refusal is of its own file alone (overridden: unit-refusal.ts), which no file of the batch changes.
    const converges = convergesAsRead({ sort: 'drop-in', spec }, live, batchFilesOf([]))
      ? {}
      : { converges: false as const };
    const basis = dropInBasis(spec, live, stoppedBy?.get(spec.unit)?.by, stack);
    return { inSync: Object.keys(diff).length === 0, summary, diff, basis, ...converges };
  },

  foreign(spec: DropInSpec, { files }: LiveDropIns): boolean {
    const live = files.get(dropInPath(spec));
    return live !== undefined && dropInIsForeign(live);
  },

  markedBy(spec: DropInSpec, { files }: LiveDropIns): string | undefined {
    const live = files.get(dropInPath(spec));
    return live === undefined ? undefined : markStackOf(live);
  },

  change: (spec: DropInSpec): UnitChange => ({ sort: 'drop-in', spec }),
  apply: (session: HostSession, spec: DropInSpec, context: KindContext) =>
    applyOne(session, { sort: 'drop-in', spec }, context),
  destroy: (session: HostSession, identity: DropInIdentity, context: KindContext, adopt?: boolean) =>
    new DropInOps(session, identity, context).destroy(adopt === true),
  /** A template's drop-in the plan removes: the instances its destroy restarts without it (template-restarts.ts). */
  readRemovals: (session: HostSession, removals, { stack }: KindContext) =>
    readRemovalRestarts(session, removals, stack),
});

class DropInOps extends HostShell {
  private readonly path: string;
  /** The stack the destroy works for: a drop-in another stack's mark names is left (issue 27). */
  private readonly stack: string | undefined;

  constructor(
    session: HostSession,
    private readonly dropIn: DropInIdentity,
    { clock, log, stack }: KindContext,
  ) {
    super(session, clock, log);
    this.path = dropInPath(dropIn);
    this.stack = stack;
  }

  /** The drop-in, and its unit with the unit's record (unit-remove.ts `runBeforeRemoval`). */
  private async read(): Promise<[LiveUnit, LiveUnit]> {
    const unit = { unit: this.dropIn.unit, record: restartOnPath({ name: this.dropIn.unit }) };
    const [read, own] = await readUnits(this.session, [dropInEntryOf(this.dropIn), unit]);
    if (read === undefined || own === undefined) throw new Error(`${this.path} was not read`);
    return [read[1], own[1]];
  }

  /**
   * Waits for the restarts the removal's request queued, each to the default deadline. One that does not become active
   * fails the destroy, naming it: the file and the mark are gone, so the next destroy finds nothing to do.
   */
  private async settleRestarts(names: readonly string[]): Promise<void> {
    const seconds = START_TIMEOUT_SECONDS.default;
    const settled = await this.settleAll(names.map((name) => ({ name, want: 'active', seconds, log: this.log })));
    const failed = [...settled.values()].flatMap((error) => (error === undefined ? [] : [errorMessage(error)]));
    if (failed.length > 0)
      throw new HandlerError(
        `drop-in ${this.path} on ${this.host} was removed, but not every instance restarted without it`,
        `${failed.join('; ')}; the file is gone, so destroying it again does nothing: see to those instances by hand`,
      );
  }

  /** Why the removal's request failed, and that the mark stays until it is done. */
  private notRemoved(error: unknown, restarts: readonly string[]): unknown {
    if (!(error instanceof HandlerError)) return error; // a lost connection stays one
    if (restarts.length === 0)
      return new HandlerError(
        `drop-in ${this.path} on ${this.host} was not removed`,
        `${error.oneLine()}; the stack's mark stays until its file is gone: fix what refused it and destroy again`,
      );
    return new HandlerError(
      `drop-in ${this.path} on ${this.host} was not removed and its instances restarted`,
      `${error.oneLine()} (restarting ${restarts.join(', ')} without it); the stack's mark stays until both are ` +
        'done: fix what refused it (or stop those instances) and destroy again',
    );
  }

  /** The trace of the file this destroy removes, by the stamp its read gave it; none where it could not stat it. */
  private trace({ fileStat }: LiveUnit): HelperStep[] {
    return fileStat === undefined ? [] : [traceDropInStep(this.dropIn, fileStat)];
  }

  /** A destroy stopped before its reload left the file gone and pid1 with it loaded (unit-remove.ts): reloads. */
  private async reloadAbsent(): Promise<void> {
    await this.reload();
    this.log(`drop-in ${this.path} on ${this.host}: ${RELOADED_ABSENT}`);
  }

  /**
   * Removes the drop-in when it carries the stack's mark or intent, or `adopt`, unless another stack's
   * mark names it (issue 27); leaves any other.
   */
  async destroy(adopt: boolean): Promise<void> {
    const [live, unit] = await this.read();
    if (!destroyMayAct(live, adopt, this.stack)) {
      const what = leftByDestroy(live, this.stack, live.fileSha256 !== undefined);
      if (what === 'already absent' && goneButLoaded(live, this.path)) return this.reloadAbsent();
      return this.log(`drop-in ${this.path} on ${this.host}: ${what}`);
    }
    // The file, then its mark and intent, in one request: the helper stops at a failed step, so a file it
    // could not remove (or a kill between the steps) keeps the mark, and the next destroy tries again.
    // Its trace after it (drop-in-traces.ts): by it the batch apply after this destroy knows who removed the file.
    const file = live.fileSha256 === undefined ? [] : [removeDropInStep(this.dropIn), ...this.trace(live)];
    // First, so a stop after the removal leaves the unit's read saying its restart is pending.
    const run = runBeforeRemoval(unit, live);
    const record =
      run === undefined
        ? []
        : [recordStep({ sort: 'unit', directory: this.dropIn.directory, name: this.dropIn.unit }, run)];
    // Instances started by hand restart without it before the mark goes: a stop before then keeps the mark, and the
    // next destroy, finding the file gone, restarts them.
    const restarts = await undeclaredRuns(this.session, live);
    const restart = restarts.length === 0 ? [] : [RELOAD, systemctlStep('restart', restarts, '--no-block')];
    await this.mustHelper([...record, ...file, ...restart, forgetDropInStep(this.dropIn)]).catch((error: unknown) => {
      throw this.notRemoved(error, restarts);
    });
    if (restarts.length > 0) {
      await this.settleRestarts(restarts);
      const done = live.fileSha256 === undefined ? 'already absent' : 'removed';
      return this.log(
        `drop-in ${this.path} on ${this.host}: ${done}; ${keptByRemoval(this.dropIn.unit, live, restarts)}`,
      );
    }
    if (goneButLoaded(live, this.path)) return this.reloadAbsent();
    if (live.fileSha256 === undefined) return this.log(`drop-in ${this.path} on ${this.host}: already absent`);
    await this.reload();
    this.log(`drop-in ${this.path} on ${this.host}: removed; ${keptByRemoval(this.dropIn.unit, live, [])}`);
  }
}
