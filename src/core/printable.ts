/**
 * Text from servers made safe to print. A Status message, a task log line or a live field value
 * may carry ESC, BEL or a bidi override, which a terminal obeys even under `-no-color`, and may be
 * megabytes long; every summary, diff and line a handler prints passes through here first.
 */
import { canonicalJson } from './canonical';
import type { FieldChange, FieldDiff } from './field-diff';

/** A summary, a diff or a log line is cut beyond this many bytes of UTF-8. */
export const MAX_TEXT_BYTES = 2048;

/** One string inside a diff is cut beyond this many bytes, so a diff keeps several fields. */
export const MAX_VALUE_BYTES = 512;

const CUT = '… (cut)';

// C0 and C1 controls and DEL, and the invisible format characters terminals and editors act on:
// zero-width characters, line and paragraph separators, bidi marks, embeddings and isolates.
const UNPRINTABLE = /[\u0000-\u001f\u007f-\u009f\u061c\u200b-\u200f\u2028-\u202e\u2060-\u2069\ufeff]/g;

/** `\x1b`, `\u202e`: a character shown by its code, so a reader still sees it was there. */
const escaped = (char: string): string => {
  const code = char.charCodeAt(0);
  return code <= 0xff ? `\\x${code.toString(16).padStart(2, '0')}` : `\\u${code.toString(16).padStart(4, '0')}`;
};

/** `text` with every control and invisible format character shown by its code (`\x1b`), line breaks included. */
export const visible = (text: string): string => text.replace(UNPRINTABLE, escaped);

/**
 * `text` as one printable line of at most `maxBytes`: line breaks and tabs become spaces, every
 * other control character a visible escape, and the rest past the cap is replaced by "… (cut)".
 */
export const printableLine = (text: string, maxBytes = MAX_TEXT_BYTES): string => {
  // Escaping only lengthens, so a prefix one character longer than the cap decides the cut alike.
  const head = text.length > maxBytes ? text.slice(0, maxBytes + 1) : text;
  const line = head.replace(/\s*[\r\n]\s*/g, ' ').replace(/[\t\v\f]/g, ' ');
  return capped(visible(line), maxBytes);
};

/** `text` cut to `maxBytes` of UTF-8, never inside a character, marked "… (cut)" when cut. */
export const capped = (text: string, maxBytes: number): string => {
  if (text.length <= maxBytes / 3 || Buffer.byteLength(text) <= maxBytes) return text;
  const room = Math.max(0, maxBytes - Buffer.byteLength(CUT));
  const kept = Buffer.from(text.slice(0, room)).subarray(0, room).toString('utf8');
  return `${kept.replace(/\ufffd$/, '')}${CUT}`;
};

/**
 * A diff that prints safely and fits in `maxBytes` of JSON: strings printable and cut at
 * MAX_VALUE_BYTES; a field that still does not fit keeps its name with both sides "(cut)".
 */
export const boundedDiff = (diff: FieldDiff, maxBytes = MAX_TEXT_BYTES): FieldDiff => {
  const kept: Record<string, FieldChange> = {};
  const fits = (field: string, change: FieldChange) =>
    Buffer.byteLength(canonicalJson({ ...kept, [field]: change })) <= maxBytes;
  for (const [name, change] of Object.entries(diff)) {
    const field = printableLine(name, MAX_VALUE_BYTES / 4);
    const clean = { live: printableValue(change.live), want: printableValue(change.want) };
    const stub = { live: '(cut)', want: '(cut)' };
    if (fits(field, clean)) kept[field] = clean;
    else if (fits(field, stub)) kept[field] = stub;
  }
  return kept;
};

const printableValue = (value: unknown): unknown => {
  if (typeof value === 'string') return printableLine(value, MAX_VALUE_BYTES);
  if (Array.isArray(value)) return value.map(printableValue);
  if (value === null || typeof value !== 'object') return value;
  const entries = Object.entries(value).map(([key, member]) => [
    printableLine(key, MAX_VALUE_BYTES),
    printableValue(member),
  ]);
  return Object.fromEntries(entries);
};
