/**
 * What a fetch ask settles as, read off a Sandbox's status: fetched, stale (git's words and the time the cache is as
 * of), or no answer yet. One predicate for apply's wait and for the plan's read, so the two never disagree, and a
 * failed or late fetch is a degraded answer, never an error: the cache still holds what it held.
 */
import * as z from 'zod/mini';
import { HandlerError } from '../core/errors';

/** The operator's standing entry for one key on a Sandbox (seed 004: status.repos[]). */
const entrySchema = z.object({
  key: z.string(),
  asked: z.optional(z.string()),
  fetched: z.optional(z.string()),
  attempted: z.optional(z.string()),
  error: z.optional(z.string()),
});
export type SandboxRepoStatus = z.infer<typeof entrySchema>;

/** The fields of a Sandbox a fetch reads; everything else is dropped at the boundary. */
const sandboxSchema = z.object({
  metadata: z.optional(
    z.object({
      // The version an ask's merge patch is conditioned on, so two asks raised at once cannot both write.
      resourceVersion: z.optional(z.string()),
      annotations: z.optional(z.record(z.string(), z.string())),
    }),
  ),
  spec: z.optional(z.object({ repos: z.optional(z.array(z.object({ key: z.string() }))) })),
  status: z.optional(z.object({ repos: z.optional(z.array(entrySchema)) })),
});
export type Sandbox = z.infer<typeof sandboxSchema>;

/** A Sandbox as the API answered it, or a one-line error naming the field the operator wrote wrong. */
export const parseSandbox = (value: unknown, name: string): Sandbox => {
  const result = z.safeParse(sandboxSchema, value);
  if (result.success) return result.data;
  const issue = result.error.issues[0];
  const field = (issue?.path ?? []).map(String).join('.');
  throw new HandlerError(`Sandbox ${name} unreadable`, `${field || 'the object'}: ${issue?.message ?? 'invalid'}`);
};

/** `fetched` is the landing's time; `stale` is git's words (or ours, when the budget ran out). `asOf` is when the
 * cache's objects are from: null when it never fetched. */
export type FetchVerdict = { readonly fetched: string } | { readonly stale: string; readonly asOf: string | null };

/** The ask's stamp: RFC 3339 to the second, so every stamp that can answer an ask compares at the same grain. */
export const askStamp = (ms: number): string => new Date(secondOf(ms)).toISOString().replace(/\.000Z$/, 'Z');

const secondOf = (ms: number): number => Math.floor(ms / 1000) * 1000;

/** A stamp to its second, or undefined when it is missing or not a time. */
const at = (stamp: string | undefined): number | undefined => {
  const ms = stamp === undefined ? NaN : Date.parse(stamp);
  return Number.isNaN(ms) ? undefined : secondOf(ms);
};

export const entryOf = (sandbox: Sandbox, key: string): SandboxRepoStatus | undefined =>
  (sandbox.status?.repos ?? []).find((entry) => entry.key === key);

/** When the cache's objects are from: the last landing the entry records, whether or not it answered the ask. */
export const fetchedOf = (sandbox: Sandbox, key: string): string | null => entryOf(sandbox, key)?.fetched ?? null;

/**
 * The ask stamped `asked` for `key`, as the Sandbox answers it, or undefined while it does not. Only an entry the
 * operator computed for this ask or a later one counts (an older entry's landing may have begun before the ask);
 * then a landing at or after the ask is `fetched`, and an error of an attempt made for it is `stale`.
 */
export const verdict = (sandbox: Sandbox, key: string, asked: string): FetchVerdict | undefined => {
  const bar = at(asked);
  const entry = entryOf(sandbox, key);
  const entryAsked = at(entry?.asked);
  if (bar === undefined || entry === undefined || entryAsked === undefined || entryAsked < bar) return undefined;
  const fetched = at(entry.fetched);
  if (entry.fetched !== undefined && fetched !== undefined && fetched >= bar) return { fetched: entry.fetched };
  const attempted = at(entry.attempted);
  const forThisAsk = entry.attempted === undefined || (attempted !== undefined && attempted >= bar);
  if (entry.error !== undefined && entry.error !== '' && forThisAsk) {
    return { stale: entry.error, asOf: entry.fetched ?? null };
  }
  return undefined;
};

/** The keys the Sandbox mounts (spec.repos[].key): the only caches an ask may name. */
export const mountedKeys = (sandbox: Sandbox): string[] => (sandbox.spec?.repos ?? []).map((repo) => repo.key);

/** The one line a verdict prints, and the plan's summary of a stale cache. */
export const describeVerdict = (key: string, answer: FetchVerdict): string =>
  'fetched' in answer
    ? `repo "${key}" fetched at ${answer.fetched}`
    : `repo "${key}" is stale as of ${answer.asOf ?? 'an unknown time'}: ${answer.stale.replace(/\s+/g, ' ').trim()}`;
