/**
 * Commands on a connected host as the Linux kinds run them: one that must succeed turns its stderr
 * into the error, a lost connection stays a `ConnectionLost`, and a wait for a unit to settle is
 * polled through the clock port against a deadline, so no start, restart or stop can hang apply.
 */
import type { Clock } from '../../src/core/clock';
import { HandlerError } from '../../src/core/errors';
import type { Log } from '../../src/core/kind';
import { quote } from '../../src/linux/shell';
import type { Effect } from '../../src/linux/ssh';
import * as cmd from '../../src/linux/unit-commands';
import {
  describeJob,
  describeQueue,
  isStalled,
  listAllJobsCommand,
  listJobCommand,
  parseUnitJob,
  type UnitJob,
} from '../../src/linux/unit-job';
import { parseShow, type Settle, settleOf, type UnitStatus } from '../../src/linux/unit-state';
import type { HostSession } from './domain';

/** How often a wait asks systemd: often enough that a 0.2 s start does not cost a second. */
export const POLL_MS = 150;

/**
 * A Type=simple (or exec, idle) unit is active as soon as its process is forked, so one that exits
 * at once reads active for a moment: such a start is confirmed by a second look this much later.
 */
export const CONFIRM_MS = 300;

/**
 * How long one job may sit queued before the wait asks systemd what it waits for. A job with nothing
 * ahead of it that is still queued this long has stalled (seen in CI under load); see `unstall`.
 */
export const STALL_MS = 10_000;

/** At most this many moves on one wait: the re-queue and three reloads (a unit waiting out its
 * RestartSec= holdoff reads the same as a stall, and a reload is not free on a large host). */
export const MAX_KICKS = 4;

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

  /** Runs a command that must succeed; its stderr becomes the error. Unmarked, it may change the host. */
  async must(command: string, stdin?: string, effect?: Effect) {
    const result = await this.session.remote.run(command, stdin, effect);
    if (result.code !== 0) {
      throw new HandlerError(`command failed on ${this.host}`, result.stderr.trim() || `exit ${result.code}`, {
        Command: command,
      });
    }
    return result;
  }

  /** Installs `content` at `path` whole or not at all (see `writeFileCommand`). */
  write(directory: string, path: string, content: string) {
    return this.must(cmd.writeFileCommand(directory, path, content, this.sudo), content);
  }

  systemctl(verb: string, name?: string, ...flags: string[]) {
    return this.must(cmd.systemctl(verb, this.sudo, name, ...flags));
  }

  /** Has systemd load the unit files as they are now, sharing a reload other handlers started since. */
  reload() {
    return this.must(cmd.reloadCommand(this.sudo));
  }

  /** The few properties a wait needs, in one short command. */
  async status(name: string): Promise<UnitStatus & { readonly type: string }> {
    const { stdout } = await this.must(
      `systemctl show -p LoadState,ActiveState,SubState,UnitFileState,NeedDaemonReload,Job,Type -- ${quote(name)}`,
      undefined,
      'reads',
    );
    return { ...parseShow(stdout), type: /^Type=(.*)$/m.exec(stdout)?.[1] ?? '' };
  }

  /**
   * Polls `name` until it settles as `want` or `seconds` pass. A unit that will not get there fails
   * with its state and, on stderr above the error, its last journal lines.
   */
  async settle(name: string, want: 'active' | 'inactive', seconds: number): Promise<void> {
    const deadline = this.clock.now() + seconds * 1000;
    let confirmed = want === 'inactive';
    let queued: { job: string; since: number } | undefined;
    let kicks = 0;
    for (;;) {
      const status = await this.status(name);
      const verdict: Settle = settleOf(status, want);
      if (verdict === 'settled' && (confirmed || !['simple', 'exec', 'idle'].includes(status.type))) return;
      if (verdict === 'settled') {
        confirmed = true;
        await this.clock.sleep(CONFIRM_MS);
        continue;
      }
      if (verdict === 'failed' || this.clock.now() >= deadline) {
        const state = `${status.activeState}/${status.subState}`;
        const job = status.job === undefined ? undefined : await this.job(name);
        const queuedJob = job === undefined ? undefined : describeJob(job);
        const queue = job !== undefined && isStalled(job) ? `; ${await this.queue()}` : '';
        const late = `it is still ${state} after ${seconds} s (startTimeoutSeconds)`;
        const why = verdict === 'failed' ? `it is ${state}` : `${late}${queuedJob ? `; ${queuedJob}` : ''}${queue}`;
        const journal = await this.journal(name);
        throw new HandlerError(`${name} did not become ${want}`, `${why}; ${journal}`);
      }
      if (status.job !== undefined && status.job !== queued?.job) queued = { job: status.job, since: this.clock.now() };
      if (queued !== undefined && kicks < MAX_KICKS && this.clock.now() - queued.since >= STALL_MS) {
        kicks = await this.unstall(name, kicks);
        queued.since = this.clock.now();
      }
      await this.clock.sleep(POLL_MS);
    }
  }

  /**
   * Moves on a job systemd leaves queued with nothing ahead of it; returns the kicks given so far.
   * The first cancels it and queues it again with ignore-dependencies: in systemd 252's job engine
   * (read in its source, not reproduced here) an order check is what sends a dispatched start of a
   * stopped unit back to waiting, and that mode skips it. In CI a job queued again in the normal mode
   * stalled like the first. Later kicks, one every STALL_MS up to MAX_KICKS, have systemd reload,
   * after which it dispatches every queued job again.
   */
  private async unstall(name: string, kicks: number): Promise<number> {
    const job = await this.job(name);
    if (job === undefined || !isStalled(job)) return kicks;
    const stalled = `systemd left its ${job.type} job ${job.id} queued for ${STALL_MS / 1000} s with nothing ahead`;
    if (kicks > 0) {
      await this.reload();
      this.log(`${name} on ${this.host}: ${stalled}; had systemd reload, which dispatches every queued job again`);
      return kicks + 1;
    }
    // A job that ran between the list and the cancel is gone, and the cancel fails: a restart must not run twice.
    const cancel = await this.session.remote.run(cmd.systemctl('cancel', this.sudo, undefined, job.id));
    if (cancel.code !== 0) return kicks + 1;
    await this.systemctl(job.type, name, '--no-block', '--job-mode=ignore-dependencies');
    this.log(`${name} on ${this.host}: ${stalled}; cancelled it and queued it again, ignoring its order`);
    return kicks + 1;
  }

  /** What systemd holds in all, for a stalled job's failure message. */
  private async queue(): Promise<string> {
    const { code, stdout } = await this.session.remote.run(listAllJobsCommand(this.sudo), undefined, 'reads');
    return code === 0 ? describeQueue(stdout) : 'the job queue could not be read';
  }

  /** The unit's job as list-jobs has it; undefined when it has none or the list cannot be read. */
  private async job(name: string): Promise<UnitJob | undefined> {
    const { code, stdout } = await this.session.remote.run(listJobCommand(name, this.sudo), undefined, 'reads');
    return code === 0 ? parseUnitJob(stdout, name) : undefined;
  }

  /** Logs the unit's last journal lines and says where they are; never throws over the real error. */
  private async journal(name: string): Promise<string> {
    try {
      const { stdout } = await this.session.remote.run(cmd.journalCommand(name, this.sudo), undefined, 'reads');
      const lines = stdout
        .trim()
        .split('\n')
        .filter((line) => line !== '' && !line.startsWith('-- '));
      for (const line of lines) this.log(`${name} on ${this.host}: journal: ${line}`);
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
