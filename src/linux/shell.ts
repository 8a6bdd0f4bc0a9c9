/**
 * Quoting for the POSIX shell on the far side of SSH, and the one way a privileged step runs. Every
 * operand that reaches a command line goes through `quote`, so a unit name or path can never become
 * a second command; every privileged step is one `sudo -n sh`, so the sudoers line a non-root user
 * needs is the one `sudoersLine` names, and a sudo that refuses is told apart from the step failing.
 */

/** One single-quoted shell word. */
export const quote = (word: string): string => `'${word.replace(/'/g, `'\\''`)}'`;

/** The command itself, or `sudo -n sh -c '<command>'` (never a password prompt). */
export const privileged = (command: string, sudo: boolean): string =>
  sudo ? `sudo -n sh -c ${quote(command)}` : command;

/**
 * What a non-root SSH user needs in sudoers. It is root: writing unit files and starting units is,
 * whichever commands a rule names (`sudo install` writes any file, `sudo systemctl` starts any unit).
 */
export const sudoersLine = (user: string): string => `${user} ALL=(root) NOPASSWD: /bin/sh`;

/**
 * sudo's own refusal in a command's stderr (`sudo: a password is required`, `Sorry, user … is not
 * allowed to execute …`), or undefined when sudo ran the step and the step itself failed.
 */
export const sudoRefusal = (stderr: string): string | undefined =>
  /^(sudo: .*|Sorry, user \S+ is not allowed to execute .*)$/m.exec(stderr)?.[1];
