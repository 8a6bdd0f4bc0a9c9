/**
 * The TypeScript types a kind's declaration (fields.ts) derives: the props a construct takes (`PropsOf`, a
 * Terraform value allowed where synth need not know it), the values a record of fields holds (`ValuesOf`), the
 * spec the handler gets (`SpecOf`) and what names an object (`IdentityOf`). Types only, so a props type, a spec and
 * the rules cannot disagree on a field's type (issue 29).
 */
import type { TerraformValue } from './definition';
import type { Rule } from './rules';

/** What a value of the field is: what its rule lets through. */
type ValueOf<F> = F extends { readonly rule: Rule<infer T> } ? T : never;
/** What the spec holds for the field: its spec form's type when it declares one, else the rule's. */
type SpecValueOf<F> = F extends { readonly specForm: Rule<infer S> } ? S : ValueOf<F>;
type RequiredOf<F> = { [K in keyof F]: F[K] extends { readonly required: true } ? K : never }[keyof F];
type DefaultedOf<F> = { [K in keyof F]: F[K] extends { readonly default: unknown } ? K : never }[keyof F];
/** The fields every spec and identity has: the required ones and those with a default (`specOf` applies it). */
type PresentOf<F> = RequiredOf<F> | DefaultedOf<F>;
type TopOf<F> = { [K in keyof F]: F[K] extends { readonly spec: true } ? K : never }[keyof F];
type IdOf<F> = { [K in keyof F]: F[K] extends { readonly identity: true } ? K : never }[keyof F];
type GroupOf<F> = { [K in keyof F]: F[K] extends { readonly spec: { readonly group: infer G } } ? G : never }[keyof F];
/** What a group holds: the spec values of the fields it carries. */
type InGroup<F, G> = {
  [K in keyof F]: F[K] extends { readonly spec: { readonly group: G } } ? SpecValueOf<F[K]> : never;
}[keyof F];

type ComputedOf<F> = { [K in keyof F]: F[K] extends { readonly prop: false } ? K : never }[keyof F];

/** A field synth must know the value of: it names the object (`identity`), or synth decides from it (`atSynth`). */
type AtSynthOf<F> = F extends { readonly identity: true } | { readonly atSynth: string } ? true : false;
/** A prop's value: its rule's type, or a Terraform value given whole where the handler judges it (`TerraformValue`). */
type PropValueOf<F> = AtSynthOf<F> extends true ? ValueOf<F> : ValueOf<F> | TerraformValue;

/** The values a record of the kind's fields holds (an entry of a prop's list), as its rules let them through. */
export type ValuesOf<F> = {
  readonly [K in keyof F as K extends RequiredOf<F> ? (K extends ComputedOf<F> ? never : K) : never]: ValueOf<F[K]>;
} & {
  readonly [K in keyof F as K extends RequiredOf<F> | ComputedOf<F> ? never : K]?: ValueOf<F[K]>;
};

/** The props a construct of the kind takes: each field's doc comment comes along with it. */
export type PropsOf<F> = {
  readonly [K in keyof F as K extends RequiredOf<F> ? (K extends ComputedOf<F> ? never : K) : never]: PropValueOf<F[K]>;
} & {
  readonly [K in keyof F as K extends RequiredOf<F> | ComputedOf<F> ? never : K]?: PropValueOf<F[K]>;
};

/** The fields `In` names as a record, each in its spec form: those of `PresentOf` always there. */
type Carried<F, In> = {
  readonly [K in keyof F as K extends In & PresentOf<F> ? K : never]: SpecValueOf<F[K]>;
} & {
  readonly [K in keyof F as K extends In ? (K extends PresentOf<F> ? never : K) : never]?: SpecValueOf<F[K]>;
};

/** The spec the handler gets: each top-level field in its spec form, each group a record of its fields' forms. */
export type SpecOf<F> = Carried<F, TopOf<F>> & {
  readonly [G in GroupOf<F> & string]: Readonly<Record<string, InGroup<F, G>>>;
};

/** What names an object of the kind: its identity fields, as the props have them. */
export type IdentityOf<F> = Carried<F, IdOf<F>>;
