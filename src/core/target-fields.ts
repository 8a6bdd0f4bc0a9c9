/**
 * A target (how handlers reach a cluster or host) is declared as a kind's spec is (fields.ts), and written from
 * that declaration by `targetOf`. It keeps what every earlier version wrote, since a target that reads differently
 * shows every object on it as changed: a default the boundary alone fills in stays out (`written: false`), and so
 * does an unset flag set to false.
 */
import * as z from 'zod/mini';
import { type Known, propProblems, specCheck } from './definition';
import type { Fields, SpecOf } from './fields';
import { specOf } from './fields';
import { isRecord } from './records';

type UnwrittenOf<F> = { [K in keyof F]: F[K] extends { readonly written: false } ? K : never }[keyof F];

/**
 * The target a construct writes: the spec of its fields (`SpecOf`), save that a field whose default only the
 * handler boundary fills in (`written: false` on the field) may be unset.
 */
export type WrittenOf<F> = Omit<SpecOf<F>, UnwrittenOf<F>> & Partial<Pick<SpecOf<F>, UnwrittenOf<F> & keyof SpecOf<F>>>;

/** `fields` as synth writes them: no default of a field marked `written: false`. */
const atSynth = (fields: Fields): Fields =>
  Object.fromEntries(
    Object.entries(fields).map(([prop, field]) => {
      if (field.written !== false) return [prop, field];
      const { default: _, ...rest } = field;
      return [prop, rest];
    }),
  );

/**
 * A list or plain record copied, so the target stays as written whatever the app does to its props afterwards. An
 * object of a class of its own (a Terraform value cdktf resolves, `booleanValue`) is kept: a copy is no value.
 */
const copied = (value: unknown): unknown => {
  if (Array.isArray(value)) return [...value];
  const plain = isRecord(value) && [Object.prototype, null].includes(Object.getPrototypeOf(value));
  return plain ? { ...value } : value;
};

/**
 * The target `props` make, in the declaration's order: each written default applied (`specOf`), a prop without a
 * default set to false left out (unset means false, and no earlier target carried it). The value is judged by the
 * declaration's rules once more, a value not `known` yet (a Terraform reference) left to the handler as at synth:
 * what holds them is what `WrittenOf` says.
 */
export const targetOf = <const F extends Fields>(
  fields: F,
  what: string,
  props: object,
  known: Known = () => true,
): WrittenOf<F> => {
  const flags = Object.entries(props).filter(
    ([prop, value]) => value === false && fields[prop]?.default === undefined && fields[prop]?.prop !== false,
  );
  const given = { ...props, ...Object.fromEntries(flags.map(([prop]) => [prop, undefined])) };
  const written = Object.fromEntries(Object.entries(specOf(atSynth(fields), given)).map(([k, v]) => [k, copied(v)]));
  const judged = z
    .custom<WrittenOf<F>>((value) => isRecord(value))
    .check(specCheck((target: Readonly<Record<string, unknown>>) => propProblems(what, fields, target, known)));
  return judged.parse(written);
};
