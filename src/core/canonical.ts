/**
 * Canonical JSON and digests. A spec that serialised differently on two synths would change its
 * digest and replace a converged object for nothing, so keys are sorted at every depth.
 */
import { createHash } from 'node:crypto';
import { isRecord } from './records';

/** JSON with object keys sorted at every depth; `undefined` members are dropped, as JSON does. */
export const canonicalJson = (value: unknown): string => JSON.stringify(sortKeys(value));

/**
 * The copy is made by Object.fromEntries, which defines each key as the object's own: an assignment
 * (`sorted[key] = …`) to a key `__proto__` set the copy's prototype instead, so the key vanished from the
 * JSON, and a live object a server sent with it (PVE's otel resource attributes, decoded) compared equal
 * to one without it: the plan read in sync what was not.
 */
const sortKeys = (value: unknown): unknown => {
  if (Array.isArray(value)) return value.map(sortKeys);
  if (!isRecord(value)) return value;
  return Object.fromEntries(
    Object.keys(value)
      .sort()
      .flatMap((key) => (value[key] === undefined ? [] : [[key, sortKeys(value[key])]])),
  );
};

/** Hex sha256 of a string. */
export const sha256Hex = (text: string): string => createHash('sha256').update(text).digest('hex');

/** Digest of a value's canonical JSON: equal for equal values whatever their key order. */
export const digestOf = (value: unknown): string => sha256Hex(canonicalJson(value));
