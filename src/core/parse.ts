/**
 * Parsing at the handler boundary: every input a handler gets (target, spec, identity, the batch
 * query) is parsed by a schema, so a hand-written or tampered input fails with one bounded line
 * naming the field instead of a cast that breaks somewhere later.
 */
import * as z from 'zod/mini';
import { errorMessage, HandlerError } from './errors';
import { MAX_JSON_DEPTH, nestsDeeperThan } from './http/body';

/** Parses `value` as `schema`, or throws naming `what` and each bad field (the first few). */
export const parseAs = <T>(schema: z.ZodMiniType<T>, value: unknown, what: string): T => {
  const result = z.safeParse(schema, value);
  if (result.success) return result.data;
  const issues = result.error.issues.map(
    (issue) => `${[what, ...issue.path.map(String)].join('.')}: ${issue.message || 'invalid'}`,
  );
  throw new HandlerError('Bad input', bounded(issues.length === 0 ? `${what}: invalid` : issues.join('; '), 600));
};

/**
 * Parses JSON text, naming `what` when it is not JSON or nests deeper than any input of ours does
 * (a hostile variable or query nested a million levels costs V8 a gigabyte: http/body.ts).
 */
export const parseJson = (text: unknown, what: string): unknown => {
  if (typeof text !== 'string' || text.trim() === '') throw new HandlerError('Missing input', `${what} is empty`);
  if (nestsDeeperThan(text, MAX_JSON_DEPTH)) {
    throw new HandlerError('Bad input', `${what} is nested deeper than ${MAX_JSON_DEPTH} levels`);
  }
  try {
    return JSON.parse(text);
  } catch (error) {
    throw new HandlerError('Bad input', `${what} is not JSON (${bounded(errorMessage(error))})`);
  }
};

const LIMIT = 200;

/** A message part cut to a length that cannot flood a terminal or a log. */
export const bounded = (text: string, limit = LIMIT): string =>
  text.length <= limit ? text : `${text.slice(0, limit)}… (cut)`;

/** A JSON object of strings, the only shape the external data source passes. */
export const stringMap = z.record(z.string(), z.string());

/** The name of an environment variable, the only form a secret takes in a stack. */
export const ENV_NAME = /^[A-Za-z_][A-Za-z0-9_]*$/;

/** Longer than any name a person gives a variable: a value this long is a secret typed in its place. */
export const MAX_ENV_NAME = 64;

/** Whether `value` may name the environment variable that holds a secret. */
export const isEnvName = (value: unknown): value is string =>
  typeof value === 'string' && value.length <= MAX_ENV_NAME && ENV_NAME.test(value);

/** The rule and the advice of every *Env check; the rejected value is never part of it. */
const NAME_CHARACTERS = `letters, digits and _, at most ${MAX_ENV_NAME} characters`;
export const ENV_NAME_RULE = `the name of an environment variable (${NAME_CHARACTERS})`;
export const ENV_NAME_ADVICE = 'pass the name of the variable that holds the secret, not the secret';

/** What a rejected *Env value is shown as: it may be the secret itself. */
export const hiddenValue = (value: unknown): string =>
  typeof value === 'string' ? `a value of ${value.length} characters (not shown: it may be a secret)` : typeof value;
