/**
 * One command over a connected client, bounded: a channel a busy sshd refuses is asked for again,
 * the whole command (channel, run, output) has the target's budget on the clock port, and its output
 * is capped, so a host that never finishes a command or floods us cannot hold a plan or the memory.
 */
import type { Client, ClientChannel } from 'ssh2';
import type { Clock } from '../core/clock';
import { HandlerError } from '../core/errors';
import { ConnectionLost, type Cut, cutError, type Effect, MAX_OUTPUT_BYTES, OutcomeUnknown } from './ssh-outcome';
import { commandBudgetMs, describeHost, type SshTarget } from './target';

export interface CommandResult {
  readonly code: number;
  readonly stdout: string;
  readonly stderr: string;
}

/** A connected client and, once it is gone, why. */
export interface Link {
  readonly client: Client;
  readonly target: SshTarget;
  readonly clock: Clock;
  lost: string | undefined;
}

/** One command as `execOnce` runs it; `deadline` is a reading of the link's clock. */
interface Command {
  readonly text: string;
  readonly stdin: string | undefined;
  readonly effect: Effect;
  readonly deadline: number;
}

/**
 * sshd frees a session slot a moment after the client sees its channel close, so a busy
 * connection can be refused a channel it is entitled to (measured: 1 run in 4 with 24 commands at
 * once). A refused open is retried with jittered backoff for a bounded time; nothing was run yet.
 * It can go if a connection ever runs one command at a time (then no open races a closing
 * channel); the channel limit in ssh.ts (MAX_CHANNELS, below MaxSessions' 10) does not remove it.
 */
const OPEN_RETRY_MS = 10_000;

/**
 * Runs `text` on the link. The limiter has given it a channel slot, and its budget counts from here:
 * the wait for a slot is bounded by the commands ahead of it, each bounded the same way.
 */
export const exec = async (link: Link, text: string, stdin: string | undefined, effect: Effect) => {
  const { target, clock } = link;
  const start = clock.now();
  const command: Command = { text, stdin, effect, deadline: start + commandBudgetMs(target) };
  const openUntil = Math.min(start + OPEN_RETRY_MS, command.deadline);
  for (let delay = 20; ; delay = Math.min(delay * 2, 500)) {
    try {
      if (link.lost !== undefined) throw new ConnectionLost(link.lost, target);
      return await execOnce(link, command);
    } catch (error) {
      if (!(error instanceof ChannelRefused) || clock.now() + delay > openUntil) {
        throw error instanceof ChannelRefused
          ? new HandlerError('SSH command failed to start', error.message, { Host: describeHost(target) })
          : error;
      }
      await clock.sleep(delay / 2 + Math.random() * delay);
    }
  }
};

class ChannelRefused extends Error {}

/** How long a failed command waits for the client to report a dropped connection before blaming the command. */
const LOSS_GRACE_MS = 300;

const execOnce = (link: Link, command: Command): Promise<CommandResult> =>
  new Promise((resolve, reject) => {
    const { client, target, clock } = link;
    const timer = new AbortController();
    let channel: ClientChannel | undefined;
    let ended = false;
    const end = (settle: () => void) => {
      if (ended) return;
      ended = true;
      timer.abort();
      settle();
    };
    const fail = (error: Error) => end(() => reject(error));
    const cut = (why: Cut) =>
      end(() => {
        channel?.close();
        const error = cutError(target, command.text, command.effect, why, commandBudgetMs(target));
        if (error instanceof OutcomeUnknown) closeBehind(link, error.reason);
        reject(error);
      });
    // The sleep rejects only when aborted, which `end` does once the command has ended first.
    clock.sleep(Math.max(0, command.deadline - clock.now()), timer.signal).then(
      () => cut('deadline'),
      () => undefined,
    );
    const lostOr = (otherwise: () => Error) =>
      void clock
        .sleep(LOSS_GRACE_MS)
        .then(() => fail(link.lost !== undefined ? new ConnectionLost(link.lost, target) : otherwise()));
    const refused = (error: Error) => {
      if (/Channel open failure/.test(error.message)) return fail(new ChannelRefused(error.message));
      if (/Not connected|No response/.test(error.message))
        return fail(new ConnectionLost(link.lost ?? error.message, target));
      // A dying sshd can refuse the exec ("Unable to exec") just before the connection drops (seen in
      // CI with every sshd killed): the client learns of the drop a moment later.
      lostOr(() => new HandlerError('SSH command failed to start', error.message, { Host: describeHost(target) }));
    };
    const opened = (error: Error | undefined, stream: ClientChannel) => {
      if (error) return refused(error);
      channel = stream;
      if (ended) return void stream.close(); // cut before the server answered the exec
      collect(stream, { isEnded: () => ended, end, cut, lostOr }, command, target, resolve);
    };
    try {
      client.exec(command.text, opened);
    } catch (error) {
      refused(error instanceof Error ? error : new Error(String(error))); // ssh2 throws "Not connected" at once
    }
  });

/** What a started command's stream shares with the command: whether it ended, its end, its cuts. */
interface Running {
  readonly isEnded: () => boolean;
  readonly end: (settle: () => void) => void;
  readonly cut: (why: Cut) => void;
  readonly lostOr: (otherwise: () => Error) => void;
}

/** Collects a started command's output, capped, and settles the command by its exit status. */
const collect = (
  stream: ClientChannel,
  running: Running,
  command: Command,
  target: SshTarget,
  resolve: (result: CommandResult) => void,
): void => {
  const out: Buffer[] = [];
  const err: Buffer[] = [];
  let size = 0;
  let code: number | undefined;
  const take = (into: Buffer[]) => (chunk: Buffer) => {
    if (running.isEnded()) return;
    size += chunk.length;
    if (size > MAX_OUTPUT_BYTES) return running.cut('output');
    into.push(chunk);
  };
  stream.on('data', take(out));
  stream.stderr.on('data', take(err));
  stream.on('exit', (exitCode: number | null) => {
    code = exitCode ?? undefined;
  });
  stream.on('close', () => {
    const stdout = Buffer.concat(out).toString('utf8');
    const stderr = Buffer.concat(err).toString('utf8');
    const exit = code;
    if (exit !== undefined) return running.end(() => resolve({ code: exit, stdout, stderr }));
    // A channel closed without a status by a dropped connection: the client says why a moment later.
    running.lostOr(
      () =>
        new HandlerError('SSH command ended without an exit status', stderr.trim() || command.text, {
          Host: describeHost(target),
        }),
    );
  });
  stream.end(command.stdin ?? '');
};

/**
 * Closes the connection after a cut command that may change the host: it may still be running
 * there, and nothing this handler would run next (the next step, an undo) may run behind it.
 */
const closeBehind = (link: Link, reason: string): void => {
  link.lost ??= reason;
  link.client.end();
};
