/**
 * The definition of a template's instance (`foo@tty9.service` of `foo@.service`): its props table
 * judged at synth, and the spec and identity the handler boundary judges by the same rules. An
 * instance has no file of its own; a spec that names another template's instance is refused.
 */
import * as z from 'zod/mini';
import { type PropTable, propProblems, specCheck } from '../core/definition';
import { broken, type Problem, text } from '../core/rules';
import { CONTROL_FIELDS, CONTROL_PROPS, controlIdentity, controlled } from './unit-control';
import { instanceOf, isTemplate, unitNameProblem } from './unit-name';

/** The instance string: `tty9` makes `foo@tty9.service` of `foo@.service`. */
const INSTANCE_RULE = 'made of letters, digits and : _ . \\ - @';

/** Every prop of `SystemdUnitInstance` of its own (the template and `retired` are the construct's). */
export const INSTANCE_PROPS = {
  instance: { rule: text(INSTANCE_RULE, /^[A-Za-z0-9:_.\\@-]+$/), required: true },
  ...CONTROL_PROPS,
} as const satisfies PropTable;

/** `foo@tty9.service`, the instance `tty9` of the template `foo@.service`. */
export const instanceName = (template: string, instance: string): string =>
  template.replace('@.', () => `@${instance}.`);

/** The rules across an instance's props: its template is one, and the name they make is a unit name. */
export const instanceRules = (template: unknown, instance: unknown): Problem[] => {
  if (typeof template !== 'string') return [];
  if (!isTemplate(template)) return [broken('template', 'a template unit (foo@.service)', template)];
  if (typeof instance !== 'string' || INSTANCE_PROPS.instance.rule(instance) !== undefined) return [];
  const problem = unitNameProblem(instanceName(template, instance));
  return problem === undefined ? [] : [broken('instance', `short enough for a unit name (${problem})`, instance)];
};

/** The spec a template's instance synthesizes: no file of its own, its template's name. */
export const instanceSpec = z.object({ ...controlled, template: z.string() }).check(
  specCheck((spec) => {
    const problems = [
      ...propProblems('an instance spec', { ...CONTROL_FIELDS, template: CONTROL_FIELDS.name }, spec),
      ...instanceRules(spec.template, undefined),
    ];
    if (problems.length === 0 && instanceOf(spec.name) !== spec.template) {
      problems.push(broken('name', `an instance of ${spec.template}`, spec.name));
    }
    return problems;
  }),
);

/** What names an instance: its name and where a mask link of it would be. */
export const instanceIdentity = controlIdentity('an instance');

export type InstanceSpec = z.infer<typeof instanceSpec>;
