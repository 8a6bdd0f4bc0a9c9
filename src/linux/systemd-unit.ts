/**
 * The definition of a systemd unit: its props table (rules and defaults) judged at synth, and the
 * spec and identity the handler boundary judges by the same rules, so a tampered spec or a value
 * Terraform knew only at apply fails naming the field before it reaches a command line.
 */
import * as z from 'zod/mini';
import { type PropTable, propProblems, specCheck, withDefaults } from '../core/definition';
import { boolean, broken, type Problem } from '../core/rules';
import type { Known, UnitContent } from './render-unit';
import { CONTROL_FIELDS, CONTROL_PROPS, controlIdentity, controlled } from './unit-control';
import { contentProblems, FILE_PROPS, unitContent } from './unit-file';
import { isTemplate } from './unit-name';

/** Every prop of `SystemdUnit` of its own (the host and `retired` are the construct's). */
export const UNIT_PROPS = {
  name: CONTROL_FIELDS.name,
  content: FILE_PROPS.content,
  directory: FILE_PROPS.directory,
  ...CONTROL_PROPS,
} as const satisfies PropTable;

/** A template is neither enabled nor started unless said so: its instances are. */
const TEMPLATE_PROPS = {
  ...UNIT_PROPS,
  enabled: { rule: boolean, default: false },
  started: { rule: boolean, default: false },
} as const satisfies PropTable;

const templateName = (props: Readonly<Record<string, unknown>>): string | undefined =>
  typeof props.name === 'string' && isTemplate(props.name) ? props.name : undefined;

/** The table a unit named `name` takes its defaults from: discover states a prop only where it differs. */
export const unitDefaultsFor = (name: unknown) => (templateName({ name }) === undefined ? UNIT_PROPS : TEMPLATE_PROPS);

/** A unit's props with their defaults: the one place they are applied. */
export const unitWithDefaults = <P extends object>(props: P): P =>
  withDefaults(unitDefaultsFor('name' in props ? props.name : undefined), props);

/** The rules across a unit's props: a template is never started itself, and its content's sections. */
export const unitRules = (props: Readonly<Record<string, unknown>>, known?: Known): Problem[] => [
  ...(templateName(props) !== undefined && props.started === true
    ? [broken('started', 'false for a template unit (start its instances instead)', true)]
    : []),
  ...contentProblems(props.content, known),
];

/** What names a unit: all that destroy gets. */
export const unitIdentity = controlIdentity('a unit');

/** The spec a `SystemdUnit` synthesizes. */
export const unitSpec = z.object({ ...controlled, content: unitContent }).check(
  specCheck((spec) => {
    const { content: _, ...fields } = spec;
    return [...propProblems('a unit spec', CONTROL_FIELDS, fields), ...unitRules(fields)];
  }),
);

export type UnitSpec = z.infer<typeof unitSpec>;
/** A unit's spec as its construct synthesizes it: content may still be sections (`unitContent`). */
export type DeclaredUnitSpec = Omit<UnitSpec, 'content'> & { readonly content: UnitContent };
export type UnitIdentity = z.infer<typeof unitIdentity>;
