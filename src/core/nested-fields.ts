/**
 * Fields whose value holds fields of its own: a record (a credential's `ssh: { secret }`) or a list of records
 * (a Repo's `credentials`), declared as a kind's fields are (fields.ts), so every broken rule inside one is named
 * at its path (`credentials[0].ssh.secret`) by synth and the handler boundary alike, where a hand-written walk
 * over the value stood beside the table and a zod object restated its fields (issue 29).
 */
import { inside, type Known, type NestedRule, propProblems } from './definition';
import type { Fields, ValuesOf } from './fields';
import { isRecord } from './records';
import { broken, type Problem } from './rules';

/** `an object { match, ssh?, https? }`: the shape of a record of `fields`. */
const shapeOf = (fields: Fields): string =>
  `an object { ${Object.entries(fields)
    .map(([prop, field]) => (field.required ? prop : `${prop}?`))
    .join(', ')} }`;

/**
 * The rule of a field holding a record of fields of its own (`owner`'s), each judged by its rule and named at its
 * path; `says` what the value must be when it is no record. Its type is what both the shape and `within` let through.
 */
export const recordOf = <const F extends Fields>(
  fields: F,
  owner: string,
  says = shapeOf(fields),
): NestedRule<ValuesOf<F>> =>
  Object.assign((value: unknown) => (isRecord(value) ? undefined : says), {
    within: (value: unknown, known: Known) => (isRecord(value) ? propProblems(owner, fields, value, known) : []),
  });

/** The rule of a field holding a list, each entry judged by `item` and named by its index (`[0].match`). */
export const listOf = <T>(item: NestedRule<T>, says: string): NestedRule<readonly T[]> =>
  Object.assign((value: unknown) => (Array.isArray(value) ? undefined : says), {
    within: (value: unknown, known: Known): Problem[] =>
      Array.isArray(value)
        ? value.flatMap((entry: unknown, index) => entryProblems(`[${index}]`, item, entry, known))
        : [],
  });

const entryProblems = (at: string, item: NestedRule, entry: unknown, known: Known): Problem[] => {
  if (!known(entry)) return [];
  const says = item(entry);
  return says === undefined ? inside(at, item.within(entry, known)) : [broken(at, says, entry)];
};
