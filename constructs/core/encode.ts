/**
 * How a stack value becomes the JSON text a handler gets. A plain value is canonical JSON made at
 * synth. A value holding a Terraform token (a variable, another resource's attribute) is encoded by
 * Terraform's own jsonencode: splicing the token into JSON text would let a quote in its value
 * rewrite other fields.
 */
import type { Construct } from 'constructs';
import { canonicalJson, digestOf } from '../../src/core/canonical';
import type { Later } from '../../src/core/definition';
import { Fn, Token } from './cdk';
import { recordProblems } from './problems';

/**
 * Whether `value`, or anything inside it, is a token cdktf resolves only at synth's end: a string or a number, or a
 * value given whole (a variable's `booleanValue`, `listValue`, a map token, `Token.asAny`). An IResolvable is an
 * object of its own, never walked into: its fields are cdktf's (the stack, among them), not the value.
 */
export const hasToken = (value: unknown): boolean => {
  if (Token.isUnresolved(value)) return true;
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

/** An IResolvable, as cdktf tells one: an object with a `resolve` method (a list or map token is plain data). */
const isResolvable = (value: unknown): value is object =>
  typeof value === 'object' && value !== null && 'resolve' in value && typeof value.resolve === 'function';

/**
 * `value` with each token given whole (an IResolvable: a variable's `booleanValue`, `Token.asAny`) as cdktf's text
 * for it, the same for one token each time: a digest taken over it is stable, where walking into an IResolvable
 * walked into cdktf's fields (the stack among them).
 */
export const tokensAsText = (value: unknown): unknown => {
  if (isResolvable(value)) return Token.asString(value);
  if (Array.isArray(value)) return value.map(tokensAsText);
  if (value !== null && typeof value === 'object') {
    return Object.fromEntries(Object.entries(value).map(([key, member]) => [key, tokensAsText(member)]));
  }
  return value;
};

/** A literal string for Terraform's template syntax: `${` and `%{` stand for themselves. */
export const escapeTemplate = (text: string): string => text.replace(/\$\{/g, () => '$${').replace(/%\{/g, '%%{');

/** `%{` escaped in every string leaf; token markers (`${TfToken[...]}`) never contain it, and a token is kept whole. */
const escapeDirectives = (value: unknown): unknown => {
  if (typeof value === 'string') return value.replace(/%\{/g, '%%{');
  if (Token.isUnresolved(value)) return value;
  if (Array.isArray(value)) return value.map(escapeDirectives);
  if (value !== null && typeof value === 'object') {
    return Object.fromEntries(Object.entries(value).map(([key, member]) => [key, escapeDirectives(member)]));
  }
  return value;
};

/**
 * The spec form Terraform makes of a value holding a Terraform value (`LaterForm`), where the field's `encode`
 * would make it of cdktf's placeholder at synth; undefined for a known value, which `encode` takes.
 */
export const terraformForm: Later = (form, value) => {
  if (!hasToken(value)) return undefined;
  const json = Fn.jsonencode(escapeDirectives(value));
  if (form === 'digest') return Fn.sha256(json);
  if (form === 'base64-json') return Fn.base64encode(json);
  // Each item as text, as `encode` makes it of a known list: Terraform's `%s` writes a number as its digits.
  return Fn.formatlist('%s', [escapeDirectives(value)]);
};

/** Why a value that names the object must be known at synth. */
export const NAMES_OBJECT = 'it names the object, so its rules are checked at synth';

/**
 * Identity fields name the object (and, for a unit, a path on the host), so they must be checked
 * by the kind's rules at synth; a token would skip that check. Each one is among the app's problems.
 */
export const requirePlainIdentity = (scope: Construct, identity: Readonly<Record<string, unknown>>): void => {
  const says = `must be a plain value known at synth, got a Terraform reference (${NAMES_OBJECT})`;
  const tokens = Object.entries(identity).filter(([, value]) => hasToken(value));
  recordProblems(
    scope,
    tokens.map(([prop]) => ({ prop, says })),
  );
};
