/**
 * The line formats of the units' read (unit-read.ts) that are not systemd's: sha256sum's digests, the
 * `<index> <rest>` lines of the records and intents, and the host's clock. Apart so the read's file stays about
 * the read.
 */

/**
 * sha256sum's `<hex>  <path>` lines by path. A path holding a backslash or a newline comes back
 * escaped (`\\`, `\n`) behind a leading backslash, as GNU coreutils documents.
 */
export const digestsByPath = (text: string): Map<string, string> => {
  const map = new Map<string, string>();
  for (const line of text.split('\n')) {
    const match = /^(\\?)([0-9a-f]{64}) [ *](.*)$/.exec(line);
    if (match === null) continue;
    const [, escaped, digest = '', path = ''] = match;
    map.set(escaped === '' ? path : path.replace(/\\(.)/g, (_, c: string) => (c === 'n' ? '\n' : c)), digest);
  }
  return map;
};

/** `<index> <rest>` lines into a map; lines that are not that shape are ignored. */
export const byIndex = (text: string, value: (rest: string) => string | undefined): Map<number, string> => {
  const map = new Map<number, string>();
  for (const line of text.split('\n')) {
    const match = /^(\d+) (.*)$/.exec(line);
    const parsed = match?.[2] === undefined ? undefined : value(match[2]);
    if (match !== null && parsed !== undefined && parsed !== '') map.set(Number(match[1]), parsed);
  }
  return map;
};

/**
 * The host's clock from `date -u +%s.%N`, to the nanosecond; whole seconds from a `date` that prints `%N` as it is.
 * A unit's state changes are read to the microsecond, so a clock in whole seconds counted up to a second short: a
 * unit activating 2.5 s past a 1 s deadline read as 1 s, in sync (CI at 21946f7, contract systemd-deadlines.test.ts).
 */
export const hostNow = (text: string): number => {
  const match = /^(\d+)(\.\d+)?/.exec(text.trim());
  return match === null ? Number.NaN : Number(match[0]);
};
