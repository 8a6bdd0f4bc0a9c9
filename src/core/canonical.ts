/**
 * Canonical JSON and digests. A spec that serialised differently on two synths would change its
 * digest and replace a converged object for nothing, so keys are sorted at every depth.
 */
import { createHash } from 'node:crypto';
import { isRecord } from './records';

/** JSON with object keys sorted at every depth; `undefined` members are dropped, as JSON does. */
export const canonicalJson = (value: unknown): string => JSON.stringify(sortKeys(value));

const sortKeys = (value: unknown): unknown => {
  if (Array.isArray(value)) return value.map(sortKeys);
  if (!isRecord(value)) return value;
  const sorted: Record<string, unknown> = {};
  for (const key of Object.keys(value).sort()) {
    const member = value[key];
    if (member !== undefined) sorted[key] = sortKeys(member);
  }
  return sorted;
};

/** Hex sha256 of a string. */
export const sha256Hex = (text: string): string => createHash('sha256').update(text).digest('hex');

/** Digest of a value's canonical JSON: equal for equal values whatever their key order. */
export const digestOf = (value: unknown): string => sha256Hex(canonicalJson(value));
