/**
 * A template's instance's one declaration (`foo@tty9.service` of `foo@.service`): its instance string and the
 * control fields it shares with a unit (unit-control.ts), from which its props, its spec and the handler
 * boundary's schemas come. An instance has no file of its own: its spec names it by its template
 * (`INSTANCE_SPEC_FIELDS`), and a spec that names another template's instance is refused.
 */
import * as z from 'zod/mini';
import { sha256Hex } from '../core/canonical';
import { type Later, withDefaults } from '../core/definition';
import { identitySchema, type PropsOf, required, specSchema, typedSpecOf, type ValuesOf } from '../core/fields';
import { broken, type Problem, text } from '../core/rules';
import { contentText, type Known, type UnitContent } from './render-unit';
import { CONTROL_FIELDS } from './unit-control';
import type { InstallDropIn } from './install-config';
import { enabledByDefault } from './unit-enable';
import { instanceOf, isTemplate, unitDirectoryRule, unitNameProblem, unitNameRule } from './unit-name';

/** The instance string: `tty9` makes `foo@tty9.service` of `foo@.service`. */
const INSTANCE_RULE = 'made of letters, digits and : _ . \\ - @';

/** Every field of `SystemdUnitInstance` of its own (the template and `retired` are the construct's). */
export const INSTANCE_FIELDS = {
  /** The instance string: `tty9` makes `foo@tty9.service`. Changing it replaces the instance. */
  instance: required({ rule: text(INSTANCE_RULE, /^[A-Za-z0-9:_.\\@-]+$/), atSynth: 'it names the unit' }),
  ...CONTROL_FIELDS,
};

/**
 * The instance's spec, in its order: what its template names (no prop sets these; `instanceSpecOf` takes them
 * from the template), then its own fields. `instance` has no place in it: the name carries it.
 */
export const INSTANCE_SPEC_FIELDS = {
  /** `foo@tty9.service`: the template's name with the instance string. */
  name: required({ rule: unitNameRule, spec: true, identity: true }),
  /** The template's name, `foo@.service`. */
  template: required({ rule: unitNameRule, spec: true }),
  /** The template's directory, where a mask link of the instance would be. */
  directory: required({ rule: unitDirectoryRule, spec: true, identity: true }),
  ...INSTANCE_FIELDS,
};

/** `foo@tty9.service`, the instance `tty9` of the template `foo@.service`. */
export const instanceName = (template: string, instance: string): string =>
  template.replace('@.', () => `@${instance}.`);

/** What an instance takes of its template's spec. */
export interface TemplateOfInstance {
  readonly name: string;
  readonly directory: string;
  readonly content: UnitContent;
}

/**
 * The spec an instance's props make with its template: its name, its template's name and directory, `enabled` left
 * out false where the template, with `dropIns` (the stack's of it and of its template), has no [Install] to enable
 * (unit-enable.ts), and `restartOn`, the strings it restarts
 * on with its template's (`instanceRestartOn`); a construct passes its own, which Terraform digests where they hold a
 * Terraform value, its `later` and its `known`.
 */
export const instanceSpecWith = (
  props: PropsOf<typeof INSTANCE_FIELDS>,
  template: TemplateOfInstance,
  restartOn: PropsOf<typeof INSTANCE_FIELDS>['restartOn'],
  later?: Later,
  known?: Known,
  dropIns?: readonly InstallDropIn[],
) => {
  const enabled = props.enabled ?? enabledByDefault(template.content, known, dropIns);
  const given = withDefaults(INSTANCE_FIELDS, { ...props, enabled });
  const { name, directory } = template;
  return typedSpecOf(
    INSTANCE_SPEC_FIELDS,
    { ...given, name: instanceName(name, given.instance), template: name, directory, restartOn },
    later,
  );
};

/** The spec of an instance whose props are known (discover's), its template's content among its restartOn. */
export const instanceSpecOf = (props: ValuesOf<typeof INSTANCE_FIELDS>, template: TemplateOfInstance) =>
  instanceSpecWith(props, template, instanceRestartOn(props.restartOn ?? [], template.content));

/** What an instance restarts on for its template's content, so a changed template restarts its running instances. */
export const templateEntry = (content: UnitContent, digest: (text: string) => string = sha256Hex): string =>
  `template ${digest(contentText(content))}`;

/** The strings an instance restarts on: its own, and its template's content (`templateEntry`). */
export const instanceRestartOn = (restartOn: readonly string[], content: UnitContent): string[] => [
  ...restartOn,
  templateEntry(content),
];

/** The rules across an instance's props: its template is one, and the name they make is a unit name. */
export const instanceRules = (template: unknown, instance: unknown): Problem[] => {
  if (typeof template !== 'string') return [];
  if (!isTemplate(template)) return [broken('template', 'a template unit (foo@.service)', template)];
  if (typeof instance !== 'string' || INSTANCE_FIELDS.instance.rule(instance) !== undefined) return [];
  const problem = unitNameProblem(instanceName(template, instance));
  return problem === undefined ? [] : [broken('instance', `short enough for a unit name (${problem})`, instance)];
};

/** The rules across an instance's spec: its template is one, and its name is an instance of it. */
const instanceSpecRules = (spec: Readonly<Record<string, unknown>>): Problem[] => {
  const problems = instanceRules(spec.template, undefined);
  const { name, template } = spec;
  if (problems.length > 0 || typeof name !== 'string' || typeof template !== 'string') return problems;
  if (unitNameRule(name) !== undefined) return [];
  return instanceOf(name) === template ? [] : [broken('name', `an instance of ${template}`, name)];
};

/** The spec a template's instance synthesizes: no file of its own, its template's name. */
export const instanceSpec = specSchema(INSTANCE_SPEC_FIELDS, 'an instance spec', instanceSpecRules);

/** What names an instance: its name and where a mask link of it would be. */
export const instanceIdentity = identitySchema(INSTANCE_SPEC_FIELDS, 'an instance identity');

export type InstanceSpec = z.infer<typeof instanceSpec>;
