/**
 * Reading an answer's body without trusting it: JSON or a clear "not JSON" (nesting bounded before
 * parsing, so an answer under the size cap cannot cost a gigabyte to parse), a short printable
 * description for error lines (never the whole body of a hostile server), and the target of a
 * redirect, which is reported and never followed.
 */
import type { HttpAnswer } from './request';
import { isRecord } from '../records';

export type Parsed = { readonly ok: true; readonly value: unknown } | { readonly ok: false; readonly reason: string };

/**
 * Arrays or objects nested deeper than this are refused unparsed. PVE and Kubernetes answers nest
 * a few dozen levels; V8 holds every open level while parsing (measured, Node 20: `[[[…]]]` 8e6
 * deep, 16 MB, took 0.9 GB and 4 to 6 s). 128 is serde_json's default recursion limit.
 */
export const MAX_JSON_DEPTH = 128;

/** The body as JSON, or `ok: false` when it is empty, not JSON, or nested too deep to parse cheaply. */
export const parseJson = (body: Buffer): Parsed => {
  if (nestsDeeperThan(body, MAX_JSON_DEPTH))
    return { ok: false, reason: `nested deeper than ${MAX_JSON_DEPTH} levels` };
  try {
    const value: unknown = JSON.parse(body.toString('utf8'));
    return { ok: true, value };
  } catch {
    return { ok: false, reason: 'not JSON' };
  }
};

const QUOTE = 0x22;
const BACKSLASH = 0x5c;

/**
 * Whether `[` or `{` open more than `max` levels, counted over the bytes (or a text's UTF-16 units:
 * the characters counted are ASCII either way) without parsing; strings are skipped.
 */
export const nestsDeeperThan = (body: Buffer | string, max: number): boolean => {
  let depth = 0;
  let inString = false;
  for (let i = 0; i < body.length; i += 1) {
    const byte = typeof body === 'string' ? body.charCodeAt(i) : body[i];
    if (inString) {
      if (byte === BACKSLASH) i += 1;
      else if (byte === QUOTE) inString = false;
    } else if (byte === QUOTE) inString = true;
    else if (byte === 0x5b || byte === 0x7b) {
      depth += 1;
      if (depth > max) return true;
    } else if (byte === 0x5d || byte === 0x7d) depth -= 1;
  }
  return false;
};

/** A JSON object's own fields, or undefined for anything else (array, null, scalar). */
export const asObject = (value: unknown): Readonly<Record<string, unknown>> | undefined =>
  isRecord(value) ? value : undefined;

/** `text/html, 1234 bytes, starting "<html>..."`: enough to recognise a login page or a proxy. */
export const describeBody = (answer: HttpAnswer): string => {
  const type = answer.headers['content-type'] ?? 'no content type';
  const start = printable(answer.body.subarray(0, 60).toString('utf8'));
  return `${type}, ${answer.body.length} bytes${start === '' ? '' : `, starting "${start}"`}`;
};

/** Whether a status asks the client to go elsewhere. */
export const isRedirect = (status: number): boolean => status >= 300 && status < 400;

/** Where a redirect points, printable and bounded. */
export const redirectTarget = (answer: HttpAnswer): string => {
  const location = answer.headers.location;
  return location === undefined ? 'no Location' : printable(location).slice(0, 200);
};

/** Control characters and quotes out, whitespace runs folded: safe inside a one-line message. */
const printable = (text: string): string =>
  text
    .replace(/[\u0000-\u001f\u007f"\\]/g, ' ')
    .replace(/\s+/g, ' ')
    .trim();
