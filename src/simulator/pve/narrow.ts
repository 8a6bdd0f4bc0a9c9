// The simulator's checked readers: regex groups, loose interface values, fresh tables and thrown values, each
// read as what it may really be, so a file line, a request or a thrown value of an unexpected shape takes the
// path PVE takes for it (a skipped line, a 400) instead of crashing the fake through a cast or a `!`.

/**
 * The capture groups of `pattern` on `text` (group 1 first), or none when it does not match. Each may be
 * missing, an optional group that took no part included: read them as `string | undefined`.
 */
export const groupsOf = (pattern: RegExp, text: string): ReadonlyArray<string | undefined> =>
  pattern.exec(text)?.slice(1) ?? [];

/** The strings of a list value (an interface's `families`, `options`); anything else holds none. */
export const strings = (value: unknown): string[] =>
  Array.isArray(value) ? value.filter((item): item is string => typeof item === 'string') : [];

/** A text value (an interface's `comments`), or '' when it is unset. */
export const textOf = (value: unknown): string => (typeof value === 'string' ? value : '');

/**
 * An empty table without a prototype: a key sent as `__proto__` or `constructor` is a plain key there, never
 * the prototype's (a parameter of that name lands in PVE's `errors` as itself).
 */
export const bareTable = <T>(): Record<string, T> => {
  const table: Record<string, T> = {};
  Object.setPrototypeOf(table, null);
  return table;
};

/** What a thrown value says: an Error's message, anything else as text. */
export const messageOf = (error: unknown): string => (error instanceof Error ? error.message : String(error));
