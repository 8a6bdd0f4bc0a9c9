/**
 * The batch read's objects known at synth, packed into one query field. The query sits in the read's
 * state, and Terraform rewrites the whole local state after every resource it creates: 300 KubeRepos'
 * entries made 76 kB of it, rewritten 300 times by a first apply; packed they take 4.6 kB (measured).
 */
import { gunzipSync, gzipSync } from 'node:zlib';
import * as z from 'zod/mini';
import { canonicalJson } from './canonical';
import { errorMessage, HandlerError } from './errors';
import { bounded, parseAs, parseJson } from './parse';

/**
 * Far above any stack's specs (1000 metric servers are 150 kB, measured): a larger field is not ours.
 * 64 MiB let 78 KB of gzip grow into a parse that overflowed the stack (issue 27); the nesting is
 * bounded by parseJson.
 */
export const MAX_UNPACKED_BYTES = 16 * 1024 * 1024;

const packed = z.record(z.string(), z.unknown());

/** Base64 of the gzipped canonical JSON of `entries` (name → `{kind, spec}`). */
export const packObjects = (entries: Readonly<Record<string, unknown>>): string =>
  gzipSync(canonicalJson(entries)).toString('base64');

/** Each packed entry as the JSON text an unpacked query field holds, by name. */
export const unpackObjects = (text: string, what: string): Record<string, string> => {
  let json: string;
  try {
    json = gunzipSync(Buffer.from(text, 'base64'), { maxOutputLength: MAX_UNPACKED_BYTES }).toString('utf8');
  } catch (error) {
    throw new HandlerError('Bad input', `${what} is not packed objects (${bounded(errorMessage(error))})`);
  }
  const entries = parseAs(packed, parseJson(json, what), what);
  return Object.fromEntries(Object.entries(entries).map(([name, entry]) => [name, JSON.stringify(entry)]));
};
