/**
 * A kind's props as one table: each prop's rule, whether it is required and its default. The
 * construct judges its props by the table at synth and reports every broken rule at once; the
 * handler boundary judges the spec by the same rules (`specCheck`), so a value only known at apply
 * (a Terraform reference) meets the same rule as one known at synth, and no rule is written twice.
 * It prevents what plain JavaScript got before: a TypeError for `name: 42`, a misspelled prop
 * accepted silently, a missing `port` found only at plan.
 */
import * as z from 'zod/mini';
import { broken, closest, type Problem, type Rule } from './rules';
import { isRecord } from './records';

/** One prop of a kind. */
export interface PropDef {
  /** What a set value must be. */
  readonly rule: Rule;
  /** The kind cannot do without it. @default false */
  readonly required?: boolean;
  /** What an unset prop becomes in the spec, applied by `withDefaults` alone. @default - stays unset */
  readonly default?: unknown;
  /** How a message shows a value that broke the rule (a url without its credential). @default - as JSON */
  readonly shown?: (value: unknown) => string;
  /**
   * What synth decides from the value, where it must know it: a Terraform value given whole is refused at synth,
   * naming this (constructs/core/validate.ts). @default - a Terraform value is encoded for the handler to judge
   */
  readonly atSynth?: string;
}

export type PropTable = Readonly<Record<string, PropDef>>;

/**
 * A value Terraform knows only at apply, given whole: cdktf's `IResolvable` (a variable's `booleanValue`,
 * `Token.asAny(...)`). A prop whose type names it takes one: synth encodes it with `jsonencode` and the handler judges
 * it by the prop's rules when it runs. A prop synth decides something from (a name, `retired`) must be known at synth.
 */
export interface TerraformValue {
  /** What cdktf calls at synth to write the value's Terraform expression (`var.enabled`). */
  readonly resolve: (context: never) => unknown;
}

/** Whether a value is known yet: a cdktf token is not, and is left to the handler. */
export type Known = (value: unknown) => boolean;

/**
 * How Terraform makes the spec form of a value holding a Terraform value, where `encode` cannot: `digest`, the
 * sha256 of its JSON; `texts`, each item as text; `base64-json`, the base64 of its JSON.
 */
export type LaterForm = 'digest' | 'texts' | 'base64-json';

/**
 * The spec form Terraform makes of `value` by `form` when the value holds a Terraform value, else undefined (then
 * `encode` makes it at synth): the constructs' (constructs/core/encode.ts `terraformForm`).
 */
export type Later = (form: LaterForm, value: unknown) => unknown;

/**
 * A rule over a value made of fields of its own (a record, a list of records: nested-fields.ts):
 * the rule judges its shape, `within` names each broken rule inside it at its path (`[0].ssh.secret`). `propProblems`
 * runs both, so a value is a `T` only where both hold.
 */
export type NestedRule<T = unknown> = Rule<T> & { readonly within: (value: unknown, known: Known) => Problem[] };

const isNested = (rule: Rule): rule is NestedRule => 'within' in rule && typeof rule.within === 'function';

/** The problems inside a value, named from `prop`: `credentials` + `[0].match`, `ssh` + `secret`. */
export const inside = (prop: string, problems: readonly Problem[]): Problem[] =>
  problems.map((problem) => ({
    ...problem,
    prop: problem.prop.startsWith('[') ? `${prop}${problem.prop}` : `${prop}.${problem.prop}`,
  }));

/**
 * Every broken rule of `props`: a prop the table does not know (with the closest name it knows), a
 * required prop left out, a value against its rule. `known` says whether a value is known yet (a
 * cdktf token is not); a value not known is left to the handler, which judges it by the same rule.
 */
export const propProblems = (owner: string, table: PropTable, props: unknown, known: Known = () => true): Problem[] => {
  if (!isRecord(props)) return [broken('props', `an object of ${owner}'s props`, props)];
  const given = props;
  const names = Object.keys(table);
  const problems: Problem[] = [];
  for (const prop of Object.keys(given)) {
    if (Object.hasOwn(table, prop) || given[prop] === undefined) continue;
    const near = closest(prop, names);
    problems.push({ prop, says: `is not a prop of ${owner}${near === undefined ? '' : `; did you mean ${near}?`}` });
  }
  for (const [prop, def] of Object.entries(table)) {
    const value = given[prop];
    if (value === undefined) {
      // Said as missing, with the rule a value must meet: "must be …, got undefined" read as a bad value (issue 29).
      const rule = def.rule(undefined);
      if (def.required === true) problems.push({ prop, says: `is required${rule === undefined ? '' : `: ${rule}`}` });
      continue;
    }
    if (!known(value)) continue;
    const rule = def.rule(value);
    if (rule !== undefined) problems.push(broken(prop, rule, value, def.shown));
    else if (isNested(def.rule)) problems.push(...inside(prop, def.rule.within(value, known)));
  }
  return problems;
};

/** The props of `T` that have a default. */
type Defaulted<T extends PropTable> = {
  [K in keyof T]: T[K] extends { readonly default: unknown } ? K : never;
}[keyof T];

/** `P` once `withDefaults` has run: every prop of `P` that `T` gives a default is set. */
export type WithDefaults<T extends PropTable, P> = P & {
  readonly [K in Extract<keyof P, Defaulted<T>>]-?: Exclude<P[K], undefined>;
};

/** `props` with each unset prop that has a default set to it: the one place defaults are applied. */
export const withDefaults = <T extends PropTable, P extends object>(table: T, props: P): WithDefaults<T, P> => {
  const filled: Record<string, unknown> = Object.fromEntries(Object.entries(props));
  for (const [prop, def] of Object.entries(table)) {
    if (filled[prop] === undefined && def.default !== undefined) filled[prop] = def.default;
  }
  // What the loop above establishes, which the type system cannot follow through Object.entries.
  return filled as WithDefaults<T, P>;
};

/**
 * The handler boundary's half: a zod check that reports each of `problems(spec)` as an issue at its
 * prop, so `parseAs` names every broken rule of a hand-written or tampered spec.
 */
export const specCheck = <T>(problems: (spec: T) => readonly Problem[]) =>
  z.superRefine<T>((spec, context) => {
    for (const problem of problems(spec)) {
      context.addIssue({ code: 'custom', message: problem.says, path: problem.prop.split('.'), input: spec });
    }
  });
