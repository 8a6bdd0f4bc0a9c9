/**
 * What a command that did not end on its own reports. A read cut at its deadline or output cap
 * fails naming the host and the bound; a command that may change the host is "outcome unknown", a
 * `ConnectionLost`, so apply tries no undo over it and nothing sends it again.
 */
import { HandlerError } from '../core/errors';
import { describeHost, type SshTarget } from './target';

/**
 * Whether a command only reads the host or may change it. Unmarked means `changes`: a command of
 * unknown effect that is cut off must be reported as possibly done, never as simply failed.
 */
export type Effect = 'reads' | 'changes';

/** Why a command was stopped before it ended. */
export type Cut = 'deadline' | 'output';

/**
 * Output (stdout and stderr together) past this is cut off. Our largest answer is the read of every
 * declared unit on a host (measured: 0.25 KiB a unit, 0.7 KiB with 248-character names), so 4 MiB
 * holds over 5,000 units, while a host that floods us costs the handler a few MiB, not gigabytes.
 */
export const MAX_OUTPUT_BYTES = 4 * 1024 * 1024;

/** The connection went away under a command: what the command did on the host is unknown. */
export class ConnectionLost extends HandlerError {
  constructor(
    readonly reason: string,
    target: SshTarget,
    title = 'SSH connection lost',
  ) {
    super(title, reason, { Host: describeHost(target) });
  }
}

/**
 * A command that may change the host was cut off: it may have run, in part or whole. The handler
 * closes the connection behind it, so it is a lost connection to every caller: no undo, no re-send.
 */
export class OutcomeUnknown extends ConnectionLost {
  constructor(reason: string, target: SshTarget) {
    super(reason, target, 'SSH write cut off');
  }
}

/** The error for `command` stopped by `cut`; `budgetMs` is the command's whole budget. */
export const cutError = (
  target: SshTarget,
  command: string,
  effect: Effect,
  cut: Cut,
  budgetMs: number,
): HandlerError => {
  const what = `\`${shortCommand(command)}\` ${boundOf(cut, budgetMs)}`;
  if (effect === 'changes') {
    return new OutcomeUnknown(
      `outcome unknown: ${what} and was cut off; it was not sent again, ` +
        'and the connection was closed so nothing runs after it',
      target,
    );
  }
  const title = cut === 'deadline' ? 'SSH read timed out' : 'SSH read output too large';
  const advice =
    cut === 'deadline'
      ? 'the host is overloaded or the command hangs there (systemd busy, a stuck mount): ' +
        'check the host, or raise commandTimeoutSeconds'
      : 'no read of this library gets that much from a working host: check what the host runs for it';
  return new HandlerError(title, `${what} and was stopped; ${advice}`, { Host: describeHost(target) });
};

const boundOf = (cut: Cut, budgetMs: number): string =>
  cut === 'deadline'
    ? `did not finish within ${budgetMs / 1000} s (commandTimeoutSeconds)`
    : `printed more than ${MAX_OUTPUT_BYTES / 1024 / 1024} MiB (the cap on one command's output)`;

/** The command on one line, bounded: a script is named by its start. */
const shortCommand = (command: string): string => {
  const line = command.replace(/\s+/g, ' ').trim();
  return line.length <= 80 ? line : `${line.slice(0, 80)}…`;
};
