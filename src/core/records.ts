/**
 * The one guard for "a JSON object": what a parsed body, a query or a live row is checked with before its keys are
 * read, so no reader casts `unknown` to a record (issue 29 item 2: casts are claims the compiler cannot check).
 */

/** Whether `value` is an object that is neither null nor an array. */
export const isRecord = (value: unknown): value is Readonly<Record<string, unknown>> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);
