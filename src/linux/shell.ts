/**
 * Quoting for the POSIX shell on the far side of SSH. Every operand that reaches a command line
 * goes through `quote`, so a unit name or path can never become a second command.
 */

/** One single-quoted shell word. */
export const quote = (word: string): string => `'${word.replace(/'/g, `'\\''`)}'`;

/** The command itself, or `sudo -n sh -c '<command>'` (never a password prompt). */
export const privileged = (command: string, sudo: boolean): string =>
  sudo ? `sudo -n sh -c ${quote(command)}` : command;
