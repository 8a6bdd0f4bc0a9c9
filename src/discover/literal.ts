/**
 * TypeScript source from untrusted text: string literals, comments, identifiers and construct ids.
 * A value read from a server is only ever written inside a literal this file built, so no value can
 * end a string, open a comment or a template, or hide code behind a bidi or line-separator character.
 */

/** Characters a literal may carry as they are: printable ASCII and letters, marks, digits, punctuation, symbols. */
const PLAIN = /^[\p{L}\p{M}\p{N}\p{P}\p{S} ]$/u;
const ESCAPES: Readonly<Record<string, string>> = { '\\': '\\\\', "'": "\\'", '\n': '\\n', '\t': '\\t', '\r': '\\r' };

const hex4 = (code: number): string => `\\u${code.toString(16).padStart(4, '0')}`;

/** One code point (or a lone surrogate) as it may stand inside a single-quoted literal. */
const escapeChar = (char: string): string => {
  const fixed = ESCAPES[char];
  if (fixed !== undefined) return fixed;
  const code = char.codePointAt(0) ?? 0;
  const lone = char.length === 1 && code >= 0xd800 && code <= 0xdfff;
  if (!lone && PLAIN.test(char)) return char;
  return code > 0xffff ? `\\u{${code.toString(16)}}` : hex4(code);
};

/**
 * A single-quoted literal of `text`: quotes and backslashes escaped, and every control, format
 * (bidi), separator, private-use, unassigned or lone-surrogate character written as `\u` escape.
 */
export const quote = (text: string): string => {
  let out = "'";
  // for..of walks code points; a lone surrogate comes out alone, and is escaped.
  for (const char of text) out += escapeChar(char);
  return `${out}'`;
};

/** Text for a `//` comment: anything outside printable ASCII and plain letters becomes `?`, line ends included. */
export const commentText = (text: string): string =>
  [...text].map((char) => (/[\x20-\x7e]/.test(char) || (char !== ' ' && PLAIN.test(char)) ? char : '?')).join('');

/**
 * Words a variable may not be, and the names node's CommonJS wrapper binds around a module (`require`, `module`,
 * `exports`, `__filename`, `__dirname`): `const require = ...` in main.js, or in what main.ts compiles to, is a
 * SyntaxError, so a unit called require.service gave a stack node refused (an audit, 2026-12-05).
 */
const RESERVED = new Set(
  (
    'break case catch class const continue debugger default delete do else enum export extends false finally for ' +
    'function if import in instanceof new null return super switch this throw true try typeof var void while with ' +
    'yield let static implements interface package private protected public await async of any unknown never ' +
    'undefined NaN Infinity arguments eval require module exports __filename __dirname'
  ).split(' '),
);

/** A camelCase variable name for `hint`, never reserved and never one of `taken` (which it joins). */
export const variableName = (hint: string, taken: Set<string>): string => {
  const words = hint.split(/[^A-Za-z0-9]+/).filter((word) => word !== '');
  const camel = words.map(
    (word, i) => (i === 0 ? word.charAt(0).toLowerCase() : word.charAt(0).toUpperCase()) + word.slice(1),
  );
  const base = camel.join('').slice(0, 60) || 'object';
  const safe = /^[0-9]/.test(base) || RESERVED.has(base) ? `_${base}` : base;
  return claim(safe, taken, (n) => `${safe}${n}`);
};

/**
 * A construct id for `hint`: letters, digits, `_` and `-`, starting with a letter or `_`, as
 * Terraform names take it (object-address.ts), at most 100 characters, never one of `taken`, nor a name
 * every object has (`constructor`, `toString`): the constructs library keeps a scope's children in a plain
 * object, so a metric server a server called `constructor` gave a stack that failed its first synth (an
 * audit, 2026-12-05).
 */
export const constructId = (hint: string, taken: Set<string>): string => {
  const cleaned =
    hint
      .replace(/[^A-Za-z0-9_-]+/g, '-')
      .replace(/^-+|-+$/g, '')
      .slice(0, 100) || 'object';
  const safe = /^[A-Za-z_]/.test(cleaned) ? cleaned : `_${cleaned}`;
  return claim(safe, taken, (n) => `${safe}-${n}`, INHERITED);
};

/** The names every plain object answers to. */
const INHERITED: ReadonlySet<string> = new Set(Object.getOwnPropertyNames(Object.prototype));

const claim = (
  base: string,
  taken: Set<string>,
  numbered: (n: number) => string,
  reserved: ReadonlySet<string> = new Set(),
): string => {
  let name = base;
  for (let n = 2; taken.has(name) || reserved.has(name); n++) name = numbered(n);
  taken.add(name);
  return name;
};

/** An environment variable name from parts: upper case letters, digits and `_`, never one of `taken`. */
export const envVarName = (parts: readonly string[], taken: Set<string>): string => {
  const base = parts
    .join('_')
    .toUpperCase()
    .replace(/[^A-Z0-9]+/g, '_')
    .replace(/^_+|_+$/g, '');
  const safe = /^[A-Z]/.test(base) ? base : `X_${base}`;
  return claim(safe, taken, (n) => `${safe}_${n}`);
};
