/**
 * Quoting for the POSIX shell on the far side of SSH, and sudo's refusal told apart from a step's own
 * failure. Every operand that reaches a command line goes through `quote`, so a unit name or path can
 * never become a second command. Privileged steps are not shell text at all: root-helper.ts.
 */

/** One single-quoted shell word. */
export const quote = (word: string): string => `'${word.replace(/'/g, `'\\''`)}'`;

/** A word as advice to type (`rm <path>`): bare where the shell reads it as it is, quoted where it would not. */
export const typedWord = (word: string): string => (/^[\w@%+=:,./-]+$/.test(word) ? word : quote(word));

/**
 * sudo's own refusal in a command's stderr (`sudo: a password is required`, `Sorry, user … is not
 * allowed to execute …`, `sudo: /usr/local/sbin/…: command not found`), or undefined when sudo ran
 * the step and the step itself failed.
 */
export const sudoRefusal = (stderr: string): string | undefined =>
  /^(sudo: .*|Sorry, user \S+ is not allowed to execute .*)$/m.exec(stderr)?.[1];
