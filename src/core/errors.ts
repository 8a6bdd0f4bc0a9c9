/**
 * The two error shapes of the library: a synth-time `ValidationError` that names the construct,
 * and a run-time `HandlerError` whose message is the one line Terraform shows under the failure.
 */
import { randomUUID } from 'node:crypto';
import { capped, MAX_VALUE_BYTES, visible } from './printable';
import { isRecord } from './records';

/** Bad construct input, caught at synth: `<Construct path>: <prop> must be <rule>, got <value>`. */
export class ValidationError extends Error {
  constructor(constructPath: string, message: string) {
    super(`${constructPath}: ${message}`);
    this.name = 'ValidationError';
  }
}

/**
 * A handler failure: `title` says what happened, `detail` what must hold and how to fix it, and
 * `context` labelled facts (Endpoint:, Host:, Status:) printed after it.
 */
export class HandlerError extends Error {
  constructor(
    readonly title: string,
    readonly detail: string,
    readonly context: Readonly<Record<string, string>> = {},
  ) {
    super(`${title}: ${detail}`);
    this.name = 'HandlerError';
  }

  /** One line for Terraform's diagnostic, labelled context appended. */
  oneLine(): string {
    const facts = Object.entries(this.context).map(([label, value]) => `${label}: ${value}`);
    return [this.message, ...facts].join('; ');
  }
}

/**
 * `value` as JSON with NaN and Infinity as themselves, where JSON writes null (`port: NaN` read `got null`): each is
 * written as a string marked by a nonce no string of the value holds, and the quotes and mark are then taken off.
 */
const jsonOf = (value: unknown): string | undefined => {
  const mark = randomUUID();
  const marked = (_key: string, member: unknown): unknown =>
    typeof member === 'number' && !Number.isFinite(member) ? `${mark}${member}` : member;
  return JSON.stringify(value, marked)?.replace(new RegExp(`"${mark}(NaN|-?Infinity)"`, 'g'), '$1');
};

/**
 * Renders a value for an error message: strings quoted, everything else as JSON, cut at MAX_VALUE_BYTES, and
 * every control or invisible character shown by its code: a prop's value reaches the terminal of whoever runs
 * synth, and an escape sequence in it acted there (an audit, 2026-12-05). A value JSON cannot render (a
 * construct passed where a string belongs is circular) is named by its class instead.
 */
export const show = (value: unknown): string => {
  if (typeof value === 'string') return `"${capped(visible(value), MAX_VALUE_BYTES)}"`;
  if (value === undefined) return 'undefined';
  try {
    const json = jsonOf(value);
    return json === undefined ? typeof value : capped(visible(json), MAX_VALUE_BYTES);
  } catch {
    const made = typeof value === 'object' && value !== null ? value.constructor?.name : undefined;
    return `a ${made ?? typeof value}`;
  }
};

/**
 * What a caught value says: its message, anything else (a thrown string) as text. Read by shape, not
 * `instanceof Error`: an error of another realm (a vm context, jest's node:fs) is no instance of this one's.
 */
export const errorMessage = (error: unknown): string =>
  isRecord(error) && typeof error.message === 'string' ? error.message : String(error);

/** The `code` a failed system call carries (`ENOENT`, `EPERM`), or undefined for any other thrown value. */
export const errorCode = (error: unknown): string | undefined =>
  isRecord(error) && typeof error.code === 'string' ? error.code : undefined;

/**
 * Group `index` of a match whose pattern always captures it: once the pattern matched the group is there, so its
 * absence is a bug in the pattern, reported as one instead of an `undefined` read later.
 */
export const groupOf = (match: RegExpExecArray, index: number): string => {
  const group = match[index];
  if (group === undefined) throw new Error(`group ${index} of /${match[0]}/ took no part in the match`);
  return group;
};
