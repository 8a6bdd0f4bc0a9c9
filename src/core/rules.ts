/**
 * Rules over one value, written once and used at synth (a construct's props) and at the handler
 * boundary (the spec a plan or apply gets), so a value only known at apply is judged by the same
 * code as one known at synth. A rule answers what the value must be, or undefined when it holds;
 * it never throws, whatever a plain-JavaScript app or a hand-written spec passes it.
 */
import { show } from './errors';
import { visible } from './printable';
import { ENV_NAME_ADVICE, ENV_NAME_RULE, hiddenValue, isEnvName } from './parse';

/**
 * Undefined when `value` holds, else what it must be: `an integer from 1 to 65536`. `T` is what a value
 * that holds is (never set, read by types alone): a kind's declaration (fields.ts) derives its props and
 * spec types from its rules, so each rule's `T` must be no wider than what the rule lets through.
 */
export type Rule<T = unknown> = ((value: unknown) => string | undefined) & { readonly holds?: T };

/** One broken rule of one prop, in the words a message shows after the prop's name. */
export interface Problem {
  readonly prop: string;
  /** `must be an integer from 1 to 65536, got "x"`, or `is not a prop of …`. */
  readonly says: string;
}

/**
 * `<prop> must be <rule>, got <value>`, the value as `shown` renders it. The value of a `...Env` prop
 * is never shown, whichever rule it broke: a secret is often typed where its variable's name belongs.
 */
export const broken = (prop: string, rule: string, value: unknown, shown?: (value: unknown) => string): Problem => ({
  prop,
  says:
    `must be ${rule}, got ${visible((shown ?? (prop.endsWith('Env') ? hiddenValue : show))(value))}` +
    (rule === ENV_NAME_RULE ? `; ${ENV_NAME_ADVICE}` : ''),
});

/** The problems in one line each, joined: what a ValidationError or a HandlerError says. */
export const describeProblems = (problems: readonly Problem[]): string =>
  problems.length === 1
    ? `${problems[0]?.prop} ${problems[0]?.says}`
    : `${problems.length} problems: ${problems.map((p) => `${p.prop} ${p.says}`).join('; ')}`;

const isInteger = (value: unknown): value is number => typeof value === 'number' && Number.isInteger(value);

/** An integer in [min, max] (max optional). */
export const integer =
  (min: number, max?: number): Rule<number> =>
  (value) =>
    isInteger(value) && value >= min && (max === undefined || value <= max)
      ? undefined
      : max === undefined
        ? `an integer of at least ${min}`
        : `an integer from ${min} to ${max}`;

export const boolean: Rule<boolean> = (value) => (typeof value === 'boolean' ? undefined : 'a boolean');

/** One of `values`. */
export const oneOf =
  <const V extends readonly string[]>(values: V): Rule<V[number]> =>
  (value) =>
    typeof value === 'string' && values.includes(value) ? undefined : `one of ${values.join(', ')}`;

/** A string matching `pattern` (any single-line string by default), at most `maxLength` long. */
export const text =
  (says = 'a single-line string', pattern: RegExp = /^[^\n\r\0]*$/, maxLength = 4096): Rule<string> =>
  (value) =>
    typeof value === 'string' && value.length <= maxLength && pattern.test(value) ? undefined : says;

/**
 * A single-line string that says something: where an empty string means nothing to the remote side (PVE drops an
 * empty option), the read finds it unset and would show drift against "" on every plan.
 */
export const someText = text('a non-empty single-line string', /^[^\n\r\0]+$/);

/** The name of an environment variable: the only form a secret takes in a stack. */
export const envName: Rule<string> = (value) => (isEnvName(value) ? undefined : ENV_NAME_RULE);

/** An object of string values. */
export const stringRecord: Rule<Readonly<Record<string, string>>> = (value) =>
  typeof value === 'object' &&
  value !== null &&
  !Array.isArray(value) &&
  Object.values(value).every((v) => typeof v === 'string')
    ? undefined
    : 'an object of string values';

/** The name closest to `name` among `names`, when it is close enough to be a misspelling. */
export const closest = (name: string, names: readonly string[]): string | undefined => {
  let best: { name: string; distance: number } | undefined;
  for (const candidate of names) {
    const distance = editDistance(name.toLowerCase(), candidate.toLowerCase());
    if (best === undefined || distance < best.distance) best = { name: candidate, distance };
  }
  return best !== undefined && best.distance <= Math.max(2, Math.floor(name.length / 3)) ? best.name : undefined;
};

/** Levenshtein distance, transpositions counted as one edit. */
const editDistance = (a: string, b: string): number => {
  const rows = Array.from({ length: a.length + 1 }, (_, i) =>
    Array.from({ length: b.length + 1 }, (_, j) => (i === 0 ? j : j === 0 ? i : 0)),
  );
  const at = (i: number, j: number): number => rows[i]?.[j] ?? 0;
  for (const [i, row] of rows.entries()) {
    if (i === 0) continue;
    for (let j = 1; j <= b.length; j += 1) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      let distance = Math.min(at(i - 1, j) + 1, at(i, j - 1) + 1, at(i - 1, j - 1) + cost);
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1])
        distance = Math.min(distance, at(i - 2, j - 2) + 1);
      row[j] = distance;
    }
  }
  return at(a.length, b.length);
};
