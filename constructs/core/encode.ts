/**
 * How a stack value becomes the JSON text a handler gets. A plain value is canonical JSON made at
 * synth. A value holding a Terraform token (a variable, another resource's attribute) is encoded by
 * Terraform's own jsonencode: splicing the token into JSON text would let a quote in its value
 * rewrite other fields.
 */
import type { Construct } from 'constructs';
import { canonicalJson, digestOf } from '../../src/core/canonical';
import { Fn, Token } from './cdk';
import { recordProblems } from './problems';

/** Whether any string or number inside `value` is a token cdktf resolves only at synth's end. */
export const hasToken = (value: unknown): boolean => {
  if (typeof value === 'string' || typeof value === 'number') return Token.isUnresolved(value);
  if (Array.isArray(value)) return value.some(hasToken);
  if (value !== null && typeof value === 'object') return Object.values(value).some(hasToken);
  return false;
};

/**
 * JSON text of `value`: canonical at synth, or Terraform's jsonencode when it holds a token.
 * Terraform reads every string in its JSON syntax as a template, so a unit file's `${HOME}` or
 * `%{` would be evaluated; both are escaped (cdktf escapes `${` inside function arguments itself).
 */
export const jsonText = (value: unknown): string =>
  hasToken(value) ? Fn.jsonencode(escapeDirectives(value)) : escapeTemplate(canonicalJson(value));

/** A digest of `value` that moves when its resolved value moves, tokens included. */
export const digestText = (value: unknown): string =>
  hasToken(value) ? Fn.sha256(Fn.jsonencode(escapeDirectives(value))) : digestOf(value);

/** A literal string for Terraform's template syntax: `${` and `%{` stand for themselves. */
export const escapeTemplate = (text: string): string => text.replace(/\$\{/g, () => '$${').replace(/%\{/g, '%%{');

/** `%{` escaped in every string leaf; token markers (`${TfToken[...]}`) never contain it. */
const escapeDirectives = (value: unknown): unknown => {
  if (typeof value === 'string') return value.replace(/%\{/g, '%%{');
  if (Array.isArray(value)) return value.map(escapeDirectives);
  if (value !== null && typeof value === 'object') {
    return Object.fromEntries(Object.entries(value).map(([key, member]) => [key, escapeDirectives(member)]));
  }
  return value;
};

/**
 * Identity fields name the object (and, for a unit, a path on the host), so they must be checked
 * by the kind's rules at synth; a token would skip that check. Each one is among the app's problems.
 */
export const requirePlainIdentity = (scope: Construct, identity: Readonly<Record<string, unknown>>): void => {
  const says =
    'must be a plain value known at synth, got a Terraform reference (it names the object, so its rules are checked ' +
    'at synth)';
  const tokens = Object.entries(identity).filter(([, value]) => hasToken(value));
  recordProblems(
    scope,
    tokens.map(([prop]) => ({ prop, says })),
  );
};
