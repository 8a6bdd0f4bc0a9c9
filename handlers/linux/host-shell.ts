/**
 * Commands on a connected host as the Linux kinds run them: one that must succeed turns its stderr
 * into the error, a lost connection stays a `ConnectionLost`, and a wait for a unit to settle is
 * polled through the clock port against a deadline, so no start, restart or stop can hang apply.
 */
import type { Clock } from '../../src/core/clock';
import { coalesced } from '../../src/core/destroy-relay';
import { HandlerError } from '../../src/core/errors';
import type { Log } from '../../src/core/kind';
import {
  type HelperStep,
  helperCommand,
  helperRefusal,
  helperRequest,
  journalStep,
  type LinkVerb,
  linkSteps,
  listJobsStep,
  RELOAD,
  systemctlStep,
  type UnitObject,
  writeStep,
} from '../../src/linux/root-helper';
import { ConnectionLost, type Effect } from '../../src/linux/ssh';
import { manyUnitsCommand } from '../../src/linux/unit-commands';
import { describeJob, describeQueue, isStalled, parseUnitJob, type UnitJob } from '../../src/linux/unit-job';
import { parseShow, type Settle, settleOf, type UnitStatus } from '../../src/linux/unit-state';
import type { HostSession } from './session';

/** How many of a unit's last journal lines a failure message shows. */
const JOURNAL_LINES = 20;

/** Each session's shared daemon-reload. */
const reloads = new WeakMap<HostSession, () => Promise<unknown>>();

/** How often a wait asks systemd: often enough that a 0.2 s start does not cost a second. */
export const POLL_MS = 150;

/**
 * A Type=simple (or exec, idle) unit is active as soon as its process is forked, so one that exits
 * at once reads active for a moment: such a start is confirmed by a second look this much later.
 */
export const CONFIRM_MS = 300;

/**
 * The longest pause between two looks of a per-object wait (destroy's stop, one wait per object, as
 * many at once as hooks run: -parallelism): each look waits twice the last, from POLL_MS up to this. Why:
 * pid 1 dispatches its job queue only when it has nothing else to do (the run queue is an
 * SD_EVENT_PRIORITY_IDLE event source, src/core/manager.c), and 30 destroys each asking every
 * POLL_MS kept it busy: in CI (stop 21, and again under load in stop 22's final run) 30 stop jobs
 * sat `waiting` with nothing ahead for 90 s, and daemon-reloads did not move them (each destroy was
 * then a process of its own; one run serves them now, destroy-relay.ts, each wait still its own). The
 * batch apply, asking for all its units at once, keeps POLL_MS.
 */
export const MAX_POLL_MS = 2000;

/** Type=simple, exec and idle units read active as soon as their process is forked (`CONFIRM_MS`). */
const FORKED_IS_ACTIVE = ['simple', 'exec', 'idle'];

/** The properties a wait reads, Type for `CONFIRM_MS`. */
const WAIT_PROPERTIES = 'LoadState,ActiveState,SubState,UnitFileState,NeedDaemonReload,Job,Type';

export type WaitStatus = UnitStatus & { readonly type: string };

/** One unit to wait for: until it is `want`, for at most `seconds`. */
export interface SettleWait {
  readonly name: string;
  readonly want: 'active' | 'inactive';
  readonly seconds: number;
  /** Where its journal lines go when it does not settle. */
  readonly log: Log;
  /** Told the status it settled in, so a caller needs no read of its own after the wait. */
  readonly settled?: (status: WaitStatus) => void;
}

export class HostShell {
  readonly host: string;

  constructor(
    readonly session: HostSession,
    readonly clock: Clock,
    readonly log: Log,
  ) {
    this.host = session.host;
  }

  get sudo(): boolean {
    return this.session.target.sudo;
  }

  /** Runs a command; unjudged. Unmarked, it may change the host. */
  run(command: string, stdin?: string, effect?: Effect) {
    return this.session.remote.run(command, stdin, effect);
  }

  /** Runs a command that must succeed; its stderr becomes the error. Unmarked, it may change the host. */
  async must(command: string, stdin?: string, effect?: Effect) {
    const result = await this.run(command, stdin, effect);
    if (result.code !== 0) {
      throw new HandlerError(`command failed on ${this.host}`, result.stderr.trim() || `exit ${result.code}`, {
        Command: command,
      });
    }
    return result;
  }

  /**
   * Asks the root helper for `steps` (root-helper.ts), `contents` the files of its writes; unjudged but for
   * what ran none of them: sudo refusing (naming the sudoers line and the helper's install), the helper
   * refusing a step or being another version. Unmarked, it may change the host.
   */
  async helper(steps: readonly HelperStep[], contents?: readonly string[], effect?: Effect) {
    const result = await this.run(helperCommand(this.sudo), helperRequest(steps, contents), effect);
    const refused = helperRefusal(result, this.session.target, this.host);
    if (refused !== undefined) throw refused;
    return result;
  }

  /** `helper` that must succeed; its stderr becomes the error. */
  async mustHelper(steps: readonly HelperStep[], contents?: readonly string[]) {
    const result = await this.helper(steps, contents);
    if (result.code !== 0) throw this.failed(steps, result);
    return result;
  }

  /** The error of a request that ran and failed at `steps` (all of them, or the one that failed). */
  failed(steps: readonly HelperStep[], { code, stderr }: { code: number; stderr: string }): HandlerError {
    return new HandlerError(`command failed on ${this.host}`, stderr.trim() || `exit ${code}`, {
      Steps: steps.map((step) => step.slice(0, 3).join(' ')).join('; '),
    });
  }

  /** Installs `content` as the object's file whole or not at all, over the one read (`replaces`: `writeStep`). */
  write(object: UnitObject, content: string, replaces: string | undefined) {
    return this.mustHelper([writeStep(object, content, replaces)], [content]);
  }

  /**
   * Has systemd load the unit files as they are now. Calls on one session while a reload runs share
   * the next one (`coalesced`): a run destroying many units reloads a few times, not once per unit.
   */
  reload(): Promise<unknown> {
    let reload = reloads.get(this.session);
    if (reload === undefined) {
      reload = coalesced(() => this.mustHelper([RELOAD]));
      reloads.set(this.session, reload);
    }
    return reload();
  }

  /** `systemctl <verb> [flag] -- <names...>` as one step, unjudged: the caller says which unit failed. */
  many(verb: string, names: readonly string[], flag?: string) {
    return this.helper([systemctlStep(verb, names, flag)]);
  }

  /** `many` that must succeed: its stderr becomes the error. */
  mustMany(verb: string, names: readonly string[], flag?: string) {
    return this.judged(verb, this.many(verb, names, flag));
  }

  /** Links or unlinks `names` (`linkSteps`); its stderr becomes the error. */
  mustLink(verb: LinkVerb, names: readonly string[]) {
    return this.judged(verb, this.helper(linkSteps(verb, names)));
  }

  private async judged(verb: string, run: Promise<{ code: number; stdout: string; stderr: string }>) {
    const result = await run;
    if (result.code !== 0)
      throw new HandlerError(`systemctl ${verb} failed on ${this.host}`, result.stderr.trim() || `exit ${result.code}`);
    return result;
  }

  /** The few properties a wait needs, of each of `names` in order, in one command. */
  async statuses(names: readonly string[]): Promise<WaitStatus[]> {
    if (names.length === 0) return []; // `systemctl show` of no unit shows the manager
    const { command, script } = manyUnitsCommand(`show -p ${WAIT_PROPERTIES}`, names);
    const { stdout } = await this.must(command, script, 'reads');
    const blocks = stdout.split(/\n\s*\n/).filter((block) => block.trim() !== '');
    if (blocks.length !== names.length) {
      throw new HandlerError(
        `systemctl show answered for ${blocks.length} of ${names.length} units`,
        'the host must run systemd',
        { Host: this.host },
      );
    }
    return blocks.map((block) => ({ ...parseShow(block), type: /^Type=(.*)$/m.exec(block)?.[1] ?? '' }));
  }

  /** The statuses of `items`, each with its item: `name` says which unit an item is. */
  async statusesOf<T>(items: readonly T[], name: (item: T) => string): Promise<Array<readonly [T, WaitStatus]>> {
    const statuses = await this.statuses(items.map(name));
    // `statuses` answers every name, in order, or throws.
    return items.flatMap((item, index) => {
      const status = statuses[index];
      return status === undefined ? [] : [[item, status] as const];
    });
  }

  /**
   * Waits for one unit (see `settleAll`) as a per-object destroy does, beside other processes on the
   * same host: it looks less often the longer it waits (`MAX_POLL_MS`). Fails with
   * its state and journal when it does not settle.
   */
  async settle(name: string, want: 'active' | 'inactive', seconds: number): Promise<void> {
    const log = (line: string) => this.log(`${name} on ${this.host}: ${line}`);
    const outcome = (await this.settleAll([{ name, want, seconds, log }], true)).get(name);
    if (outcome !== undefined) throw outcome;
  }

  /**
   * Polls the units of `waits` together, one `systemctl show` a round for those due, each until it
   * settles, fails or passes its own deadline: each unit's error, or undefined once it settled. A
   * unit that will not settle gets its state, its job and its last journal lines.
   */
  async settleAll(waits: readonly SettleWait[], backOff = false): Promise<Map<string, Error | undefined>> {
    const outcomes = new Map<string, Error | undefined>();
    const start = this.clock.now();
    const pending = waits.map((wait) => ({
      wait,
      deadline: start + wait.seconds * 1000,
      due: start,
      confirmed: wait.want === 'inactive',
      pause: POLL_MS,
    }));
    while (pending.length > 0) {
      const due = pending.filter((entry) => entry.due <= this.clock.now());
      const statuses = await this.statusesOf(due, (entry) => entry.wait.name);
      const now = this.clock.now();
      for (const [entry, status] of statuses) {
        const verdict = settleOf(status, entry.wait.want);
        const done = verdict === 'settled' && (entry.confirmed || !FORKED_IS_ACTIVE.includes(status.type));
        if (done || verdict === 'failed' || (verdict !== 'settled' && now >= entry.deadline)) {
          if (done) entry.wait.settled?.(status);
          outcomes.set(entry.wait.name, done ? undefined : await this.unsettled(entry.wait, status, verdict));
          pending.splice(pending.indexOf(entry), 1);
        } else {
          entry.confirmed ||= verdict === 'settled';
          entry.due = now + (verdict === 'settled' ? CONFIRM_MS : entry.pause);
          if (backOff) entry.pause = Math.min(MAX_POLL_MS, entry.pause * 2);
        }
      }
      if (pending.length > 0) await this.clock.sleep(Math.max(0, Math.min(...pending.map((e) => e.due)) - now));
    }
    return outcomes;
  }

  /** Why a wait ended unsettled: its state, a queued job and what it waits for, and its journal. */
  private async unsettled(wait: SettleWait, status: WaitStatus, verdict: Settle): Promise<HandlerError> {
    const state = `${status.activeState}/${status.subState}`;
    const job = status.job === undefined ? undefined : await this.job(wait.name);
    const queuedJob = job === undefined ? undefined : describeJob(job);
    const queue = job !== undefined && isStalled(job) ? `; ${await this.queue()}` : '';
    const late = `it is still ${state} after ${wait.seconds} s (startTimeoutSeconds)`;
    const why = verdict === 'failed' ? `it is ${state}` : `${late}${queuedJob ? `; ${queuedJob}` : ''}${queue}`;
    return new HandlerError(`${wait.name} did not become ${wait.want}`, `${why}; ${await this.journal(wait)}`);
  }

  /**
   * A read of the helper's for a failure message: one the helper or sudo refused reads as unread, so it
   * never takes the place of the failure it was to explain; a lost connection is still lost.
   */
  private async readOnFailure(step: HelperStep) {
    try {
      return await this.helper([step], undefined, 'reads');
    } catch (error) {
      if (error instanceof ConnectionLost) throw error;
      return { code: 1, stdout: '', stderr: '' };
    }
  }

  /** What systemd holds in all, for a stalled job's failure message. */
  private async queue(): Promise<string> {
    const { code, stdout } = await this.readOnFailure(listJobsStep());
    return code === 0 ? describeQueue(stdout) : 'the job queue could not be read';
  }

  /** The unit's job as list-jobs has it; undefined when it has none or the list cannot be read. */
  private async job(name: string): Promise<UnitJob | undefined> {
    const { code, stdout } = await this.readOnFailure(listJobsStep(name));
    return code === 0 ? parseUnitJob(stdout, name) : undefined;
  }

  /** Logs the unit's last journal lines and says where they are; never throws over the real error. */
  private async journal({ name, log }: SettleWait): Promise<string> {
    try {
      const { stdout } = await this.helper([journalStep(name, JOURNAL_LINES)], undefined, 'reads');
      const lines = stdout
        .trim()
        .split('\n')
        .filter((line) => line !== '' && !line.startsWith('-- '));
      for (const line of lines) log(`journal: ${line}`);
      return lines.length === 0
        ? 'the journal has no lines for it'
        : `its last ${lines.length} journal lines are above, the last: ${lines.at(-1)}`;
    } catch (error) {
      return `its journal could not be read (${error instanceof Error ? error.message : String(error)})`;
    }
  }
}

export const messageOf = (error: unknown): string =>
  error instanceof HandlerError ? error.oneLine() : error instanceof Error ? error.message : String(error);
