/**
 * A kind's fields, declared once: each field's rule, whether it is required, its default, its doc comment (on
 * the property, where the props type picks it up), where the handler's spec carries it and whether it names the
 * object. From that one declaration come the construct's props type (`PropsOf`, field-types.ts), the prop table
 * synth judges by, the spec and identity a construct synthesizes (`specOf`, `identityOf`, defaults applied), the
 * handler boundary's schemas (`specSchema`, `identitySchema`), and the props discover writes back from a spec
 * (`propsOfSpec`). It prevents what four hand-kept lists allowed (issue 29): a field compared by the diff but
 * missing from the props, a rule or default stated twice that drifted apart.
 */
import * as z from 'zod/mini';
import { canonicalJson } from './canonical';
import type { Later, LaterForm, PropDef } from './definition';
import { propProblems, specCheck, withDefaults } from './definition';
import { isRecord } from './records';
import type { IdentityOf, SpecOf } from './field-types';
import { broken, type Problem, type Rule } from './rules';

export type { IdentityOf, PropsOf, SpecOf, ValuesOf } from './field-types';

/** Where a spec carries a field: at its top level under the prop's name, or in a group under a key of its own. */
export type SpecPlace = true | { readonly group: string; readonly key: string };

/** What a kind's declaration says of one field besides whether it is required. */
export interface FieldInput extends Omit<PropDef, 'required'> {
  readonly rule: Rule;
  /** Where the handler's spec carries the value. @default - nowhere: the construct's alone (a resend counter) */
  readonly spec?: SpecPlace;
  /** The spec's form of a set value when it differs from the prop's (PVE keeps JSON objects as base64). */
  encode?(value: unknown): unknown;
  /** The prop's form of a spec value; the value as it is when it is no such form (the rule then refuses it). */
  decode?(value: unknown): unknown;
  /** How Terraform encodes a value holding a Terraform value (`LaterForm`). @default - the value as it is */
  readonly later?: LaterForm;
  /**
   * What the spec holds when its form's type differs from the prop's (base64 text for an object, VLAN ids as
   * text where the props take numbers too): the boundary requires it of the spec's value, and `SpecOf` types
   * the value by it. @default - the rule's type: the spec holds the value as the props do
   */
  readonly specForm?: Rule;
  /**
   * The spec's value is no prop value the field's rule could judge (a digest of the prop, the text with values a
   * construct ships): the boundary judges it by `specForm` alone. @default false
   */
  readonly formOnly?: boolean;
  /** The field names the environment variable holding a secret: what it holds, said where discover names one. */
  readonly secret?: string;
  /** The field is part of what names the object: its identity, which destroy gets (`identityOf`). @default false */
  readonly identity?: boolean;
  /**
   * With `identity`: the field says how destroy acts on the object, not which object it is (a Repo's
   * deleteOnDestroy). The lifecycle's digest covers it as earlier versions stored it; the hook carries its declared
   * value, so the hook of a lifecycle replaced for a change of it leaves the object (declared-identity.ts).
   * @default false
   */
  readonly setting?: true;
  /**
   * `false`: the spec carries the field but no prop sets it; the construct computes it (a network apply's staged
   * interfaces, from the stack's other constructs). `PropsOf` and `propTableOf` leave it out. @default - a prop
   */
  readonly prop?: false;
  /**
   * `false`: synth leaves the default out of what it writes and the handler boundary alone fills it in, so a target
   * written before the field existed reads the same (target-fields.ts `targetOf`). @default - the default is written
   */
  readonly written?: false;
}

/** One declared field. */
export type Field = FieldInput & { readonly required: boolean };

/** A kind's declaration: its fields by prop name. */
export type Fields = Readonly<Record<string, Field>>;

/** A field the kind cannot do without. */
export const required = <const D extends FieldInput>(def: D): D & { readonly required: true } => ({
  ...def,
  required: true,
});

/** A field that may be left unset. */
export const optional = <const D extends FieldInput>(def: D): D & { readonly required: false } => ({
  ...def,
  required: false,
});

/** The fields a prop sets: the table synth judges a construct's props by. */
export const propTableOf = (fields: Fields): Fields =>
  Object.fromEntries(Object.entries(fields).filter(([, field]) => field.prop !== false));

/**
 * The spec `props` make, each unset field with a default set to it (`withDefaults`, the one place defaults are
 * applied): each set field in its place, in its spec form (`later`, at synth: by Terraform for a value holding a
 * Terraform value); every group present, empty or not.
 */
export const specOf = (fields: Fields, props: object, later?: Later): Readonly<Record<string, unknown>> => {
  const given = new Map<string, unknown>(Object.entries(withDefaults(fields, props)));
  const top = new Map<string, unknown>();
  const groups = new Map<string, Map<string, unknown>>();
  for (const [prop, field] of Object.entries(fields)) {
    if (typeof field.spec === 'object' && !groups.has(field.spec.group)) groups.set(field.spec.group, new Map());
    const value = given.get(prop);
    if (value === undefined || field.spec === undefined) continue;
    const byTerraform = field.later === undefined ? undefined : later?.(field.later, value);
    const form = byTerraform ?? (field.encode === undefined ? value : field.encode(value));
    if (field.spec === true) top.set(prop, form);
    else groups.get(field.spec.group)?.set(field.spec.key, form);
  }
  for (const [group, values] of groups) top.set(group, Object.fromEntries(values));
  return Object.fromEntries(top);
};

/**
 * `specOf` typed by the declaration, for a construct whose spec others read (an instance reads its template's).
 * Its type is claimed as the boundary's is: the props passed their rules at synth, save values Terraform fills in
 * at apply, which the boundary judges then.
 */
export const typedSpecOf = <F extends Fields>(fields: F, props: object, later?: Later): SpecOf<F> =>
  z.parse(z.custom<SpecOf<F>>(isRecord), specOf(fields, props, later));

/** The identity fields, each as a top-level spec field: what `identityOf` and `identitySchema` see. */
const identityFields = (fields: Fields): Fields =>
  Object.fromEntries(
    Object.entries(fields).flatMap(([prop, field]) =>
      field.identity === true ? [[prop, { ...field, spec: true }]] : [],
    ),
  );

/** The identity `props` make: each identity field, its default applied, as the props have it. */
export const identityOf = (fields: Fields, props: object): Readonly<Record<string, unknown>> =>
  specOf(identityFields(fields), props);

/** The identity fields that say how destroy acts rather than which object it acts on (`setting`). */
export const settingsOf = (fields: Fields): string[] =>
  Object.entries(fields).flatMap(([prop, field]) => (field.identity === true && field.setting === true ? [prop] : []));

/** `props` without each prop set to its default: what discover writes, leaving the default to the declaration. */
export const withoutDefaults = (fields: Fields, props: Readonly<Record<string, unknown>>): Record<string, unknown> =>
  Object.fromEntries(
    Object.entries(props).filter(([prop, value]) => {
      const field = fields[prop];
      return field?.default === undefined || canonicalJson(value) !== canonicalJson(field.default);
    }),
  );

/** Where a spec path leads: the field's prop and declaration. */
const placesOf = (fields: Fields): Map<string, readonly [string, Field]> =>
  new Map(
    Object.entries(fields).flatMap(([prop, field]): Array<[string, readonly [string, Field]]> => {
      if (field.spec === undefined) return [];
      return [[field.spec === true ? prop : `${field.spec.group}.${field.spec.key}`, [prop, field]]];
    }),
  );

/** Every leaf of `spec` by its path (`options.mtu`), a group being one level of keys. */
const leavesOf = (spec: Readonly<Record<string, unknown>>, groups: ReadonlySet<string>): Array<[string, unknown]> =>
  Object.entries(spec).flatMap(([key, value]): Array<[string, unknown]> => {
    if (!groups.has(key) || !isRecord(value)) return [[key, value]];
    return Object.entries(value).map(([inner, leaf]): [string, unknown] => [`${key}.${inner}`, leaf]);
  });

/**
 * The props a spec says, each value back in its prop's form (discover writes them; the boundary judges them),
 * and the paths of the spec no field declares.
 */
export const propsOfSpec = (
  fields: Fields,
  spec: Readonly<Record<string, unknown>>,
): { readonly props: Readonly<Record<string, unknown>>; readonly unknown: readonly string[] } => {
  const places = placesOf(fields);
  const props = new Map<string, unknown>();
  const unknown: string[] = [];
  for (const [path, value] of leavesOf(spec, groupsOf(fields))) {
    const place = places.get(path);
    if (place === undefined) {
      if (!groupsOf(fields).has(path)) unknown.push(path);
      continue;
    }
    const [prop, field] = place;
    props.set(prop, field.decode === undefined ? value : field.decode(value));
  }
  return { props: Object.fromEntries(props), unknown };
};

const groupsOf = (fields: Fields): Set<string> =>
  new Set(Object.values(fields).flatMap((field) => (typeof field.spec === 'object' ? [field.spec.group] : [])));

/** Each spec value not in its field's spec form (`specForm`), save where its rule refused it already. */
const formProblems = (fields: Fields, spec: Readonly<Record<string, unknown>>, judged: ReadonlySet<string>) => {
  const places = placesOf(fields);
  return leavesOf(spec, groupsOf(fields)).flatMap(([path, value]): Problem[] => {
    const form = places.get(path)?.[1].specForm?.(value);
    return form === undefined || judged.has(path) ? [] : [broken(path, form, value)];
  });
};

type Across = (props: Readonly<Record<string, unknown>>) => readonly Problem[];

/**
 * The handler boundary's schema for a kind's spec: a JSON object whose every field meets its rule (a rule
 * lets through only values of its type, rules.ts) and is in its spec form (`specForm`), with no path the
 * declaration does not know, and the kind's rules across fields (`across`, the same function synth judges the
 * props by) holding.
 */
export const specSchema = <F extends Fields>(fields: F, what: string, across: Across = () => []) =>
  schemaOf<SpecOf<F>>(fields, what, across);

/** The handler boundary's schema for what names an object (what destroy gets), by the same rules as the spec. */
export const identitySchema = <F extends Fields>(fields: F, what: string) =>
  schemaOf<IdentityOf<F>>(identityFields(fields), what, () => []);

/**
 * `spec` with each defaulted field it leaves out set to its default, in its spec form: a spec written by hand (a
 * handler run by hand) or by an older synth means the default, as the props would (`withDefaults` at synth).
 */
const withSpecDefaults = (fields: Fields, spec: Readonly<Record<string, unknown>>): Record<string, unknown> => {
  const filled: Record<string, unknown> = { ...spec };
  for (const [prop, field] of Object.entries(fields)) {
    if (field.default === undefined || field.spec === undefined) continue;
    const form = field.encode === undefined ? field.default : field.encode(field.default);
    if (field.spec === true) filled[prop] ??= form;
    else {
      const group = filled[field.spec.group];
      const values = isRecord(group) ? group : {};
      if (values[field.spec.key] === undefined) filled[field.spec.group] = { ...values, [field.spec.key]: form };
    }
  }
  return filled;
};

/** How the boundary judges a field: by its spec form where that is no prop value (`formOnly`). */
const judgedAs = (field: Field): Field =>
  field.formOnly === true && field.specForm !== undefined ? { ...field, rule: field.specForm } : field;

/** A spec of `T` as `fields` place it, each defaulted field it leaves out filled in (`withSpecDefaults`). */
const schemaOf = <T extends Readonly<Record<string, unknown>>>(fields: Fields, what: string, across: Across) => {
  const inSpec = Object.fromEntries(
    Object.entries(fields).flatMap(([prop, field]) => (field.spec === undefined ? [] : [[prop, judgedAs(field)]])),
  );
  const problems = (spec: Readonly<Record<string, unknown>>): Problem[] => {
    const { props, unknown } = propsOfSpec(fields, spec);
    const stray = unknown.map((path) => ({ prop: path, says: `is not a field of ${what}` }));
    const groups = [...groupsOf(fields)].filter((group) => !isRecord(spec[group]));
    const missing = groups.map((group) => ({ prop: group, says: 'is required: an object' }));
    const pathOf = new Map([...placesOf(fields)].map(([path, [prop]]) => [prop, path]));
    const judged = [...propProblems(what, inSpec, props), ...across(props)].map((problem) => ({
      ...problem,
      prop: pathOf.get(problem.prop) ?? problem.prop,
    }));
    return [...stray, ...missing, ...judged, ...formProblems(fields, spec, new Set(judged.map(({ prop }) => prop)))];
  };
  // The one place a spec's type is claimed: what `problems` let through (defaults filled first) is what T says.
  return z.pipe(
    z.transform((value: unknown) => (isRecord(value) ? withSpecDefaults(fields, value) : value)),
    z.custom<T>((value) => isRecord(value)).check(specCheck(problems)),
  );
};
