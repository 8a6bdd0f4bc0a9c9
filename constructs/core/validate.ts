/**
 * Synth-time checks shared by every construct: the message says which prop broke which rule and
 * with what value, and a value cdktf has not resolved yet (a token) is never judged.
 */
import type { Construct } from 'constructs';
import { show, ValidationError } from '../../src/core/errors';
import { Token } from './cdk';

/** Throws `<path>: <prop> must be <rule>, got <value>` unless `ok`. */
export const check = (scope: Construct, ok: boolean, prop: string, rule: string, value: unknown): void => {
  if (!ok) throw new ValidationError(scope.node.path, `${prop} must be ${rule}, got ${show(value)}`);
};

/** Whether cdktf will only know the value at deploy time. */
export const unresolved = (value: unknown): boolean =>
  (typeof value === 'string' || typeof value === 'number') && Token.isUnresolved(value);

// cdktf's marker for a string token (BEGIN_STRING_TOKEN_MARKER in its tokens/private/encoding).
const STRING_TOKEN = /\$\{TfToken\[[A-Za-z0-9:._-]+\]\}/g;

/**
 * `text` with each Terraform value in it replaced by a letter, which passes every syntax rule, so
 * only the known parts around it are judged; undefined when a token is left that it cannot tell.
 */
export const knownText = (text: string): string | undefined => {
  const masked = text.replace(STRING_TOKEN, 'x');
  return Token.isUnresolved(masked) ? undefined : masked;
};

/** An integer in [min, max] (max optional), skipped for tokens and undefined. */
export const checkRange = (
  scope: Construct,
  prop: string,
  value: number | undefined,
  min: number,
  max?: number,
): void => {
  if (value === undefined || unresolved(value)) return;
  const rule = max === undefined ? `an integer of at least ${min}` : `an integer from ${min} to ${max}`;
  check(scope, Number.isInteger(value) && value >= min && (max === undefined || value <= max), prop, rule, value);
};

/** A string matching `pattern`, skipped for tokens and undefined. */
export const checkPattern = (
  scope: Construct,
  prop: string,
  value: string | undefined,
  pattern: RegExp,
  rule: string,
): void => {
  if (value === undefined || unresolved(value)) return;
  check(scope, typeof value === 'string' && pattern.test(value), prop, rule, value);
};

/** An environment variable name, the only form a secret may take in a stack. */
export const checkEnvName = (scope: Construct, prop: string, value: string | undefined): void =>
  checkPattern(
    scope,
    prop,
    value,
    /^[A-Za-z_][A-Za-z0-9_]*$/,
    'the name of an environment variable (letters, digits, _)',
  );
