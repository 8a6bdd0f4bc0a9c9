/**
 * Reading an answer's body without trusting it: JSON or a clear "not JSON", a short printable
 * description for error lines (never the whole body of a hostile server), and the target of a
 * redirect, which is reported and never followed.
 */
import type { HttpAnswer } from './request';

export type Parsed = { readonly ok: true; readonly value: unknown } | { readonly ok: false };

/** The body as JSON, or `ok: false` when it is empty or not JSON. */
export const parseJson = (body: Buffer): Parsed => {
  try {
    return { ok: true, value: JSON.parse(body.toString('utf8')) as unknown };
  } catch {
    return { ok: false };
  }
};

/** A JSON object's own fields, or undefined for anything else (array, null, scalar). */
export const asObject = (value: unknown): Readonly<Record<string, unknown>> | undefined =>
  typeof value === 'object' && value !== null && !Array.isArray(value) ? (value as Record<string, unknown>) : undefined;

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
