/**
 * A systemd unit's one declaration: its name, its file's fields and the control fields it shares with an
 * instance (unit-control.ts). The construct's props type, synth's prop table, the spec and identity it writes,
 * the handler boundary's schemas and discover's rebuild all come from `UNIT_FIELDS`, so no field exists in one
 * of them and not another, and a template's defaults are stated once (`unitFieldsFor`).
 */
import * as z from 'zod/mini';
import { type Later, withDefaults } from '../core/definition';
import { type Fields, identitySchema, required, type SpecOf, specSchema, typedSpecOf } from '../core/fields';
import { isRecord } from '../core/records';
import { broken, type Problem } from '../core/rules';
import { contentText, type Known } from './render-unit';
import { CONTROL_FIELDS } from './unit-control';
import type { InstallDropIn } from './install-config';
import { enabledByDefault } from './unit-enable';
import { contentProblems, FILE_FIELDS, isUnitContent } from './unit-file';
import { isTemplate, unitNameRule } from './unit-name';

/** Every field of `SystemdUnit` of its own (the host and `retired` are the construct's), in its spec's order. */
export const UNIT_FIELDS = {
  /** The unit name, e.g. `node-check.service`, or a template, `probe@.service`. Changing it replaces the unit. */
  name: required({ rule: unitNameRule, spec: true, identity: true }),
  ...FILE_FIELDS,
  ...CONTROL_FIELDS,
};

/** A template is neither enabled nor started unless said so: its instances are. */
const TEMPLATE_DEFAULTS = {
  enabled: { ...UNIT_FIELDS.enabled, default: false },
  started: { ...UNIT_FIELDS.started, default: false },
};

const TEMPLATE_FIELDS: Fields = { ...UNIT_FIELDS, ...TEMPLATE_DEFAULTS };

const templateName = (props: Readonly<Record<string, unknown>>): string | undefined =>
  typeof props.name === 'string' && isTemplate(props.name) ? props.name : undefined;

/** The declaration a unit named `name` takes its defaults from: discover states a prop only where it differs. */
export const unitFieldsFor = (name: unknown): Fields =>
  templateName({ name }) === undefined ? UNIT_FIELDS : TEMPLATE_FIELDS;

/**
 * The spec a unit's props make, the defaults of its name's declaration applied (its content as it ships), and
 * `enabled` left out false where the content, with `dropIns` (the stack's drop-ins of it), has no [Install] to
 * enable (unit-enable.ts); a construct passes its `later`, for the values Terraform encodes, and its `known`.
 */
export const unitSpecOf = (
  props: Readonly<Record<string, unknown>>,
  later?: Later,
  known?: Known,
  dropIns?: readonly InstallDropIn[],
): DeclaredUnitSpec => {
  const filled = withEnabledDefault(props, known, dropIns);
  return typedSpecOf(UNIT_FIELDS, withDefaults(unitFieldsFor(props.name), filled), later);
};

/**
 * A unit's props with `enabled` left out made false when its content, with its drop-ins', is known to hold no
 * [Install] to enable (unit-enable.ts). The handler's boundary sees one spec, so no drop-in: a spec written by hand
 * whose drop-in brings the [Install] states `enabled: true`. A template's default is its own (TEMPLATE_DEFAULTS).
 */
const withEnabledDefault = (
  props: Readonly<Record<string, unknown>>,
  known?: Known,
  dropIns?: readonly InstallDropIn[],
) =>
  props.enabled !== undefined || templateName(props) !== undefined || !isUnitContent(props.content)
    ? props
    : { ...props, enabled: enabledByDefault(props.content, known, dropIns) };

/**
 * The rules across a unit's props: a template is never started itself, and its content's sections. Whether one
 * declared enabled has an [Install] to enable is judged where its drop-ins are seen (unit-enable.ts): synth
 * (the construct), and the batch's read and apply, not here, where a spec's drop-ins are not.
 */
export const unitRules = (props: Readonly<Record<string, unknown>>, known?: Known): Problem[] => [
  ...(templateName(props) !== undefined && props.started === true
    ? [broken('started', 'false for a template unit (start its instances instead)', true)]
    : []),
  ...contentProblems(props.content, known),
];

/** What names a unit: all that destroy gets. */
export const unitIdentity = identitySchema(UNIT_FIELDS, 'a unit identity');

/** The spec a `SystemdUnit` synthesizes, its content made text once the values Terraform filled in are judged. */
export const unitSpec = z.pipe(
  z.pipe(
    // A spec that leaves enabled or started out means what its props would: a template's defaults, and enabled
    // false for a unit whose content has no [Install] to enable.
    z.transform((value: unknown) =>
      !isRecord(value)
        ? value
        : templateName(value) !== undefined
          ? withDefaults(TEMPLATE_DEFAULTS, value)
          : withEnabledDefault(value),
    ),
    specSchema(UNIT_FIELDS, 'a unit spec', (props) => unitRules(props)),
  ),
  z.transform((spec) => ({ ...spec, content: contentText(spec.content) })),
);

export type UnitSpec = z.infer<typeof unitSpec>;
/** A unit's spec as its construct synthesizes it: content may still be sections or text with values. */
export type DeclaredUnitSpec = SpecOf<typeof UNIT_FIELDS>;
export type UnitIdentity = z.infer<typeof unitIdentity>;
