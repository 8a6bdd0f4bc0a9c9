/**
 * The definitions of a unit and a template's instance: each one props table (rules and defaults)
 * judged at synth, and specs the handler boundary judges by the same rules, so a tampered spec or a
 * value Terraform knew only at apply fails naming the field before it reaches a command line. Also
 * what one read of a host says about a unit.
 */
import * as z from 'zod/mini';
import { type PropTable, propProblems, specCheck, withDefaults } from '../core/definition';
import { boolean, broken, integer, type Problem, type Rule, text } from '../core/rules';
import {
  type Known,
  sectionsOf,
  type UnitContent,
  type UnitSection,
  unitSectionProblems,
  unitText,
} from './render-unit';
import { instanceOf, isTemplate, unitDirectoryRule, unitNameProblem, unitNameRule } from './unit-name';
import type { UnitStatus } from './unit-state';

/** How long start, restart and stop may take before apply fails. */
export const START_TIMEOUT_SECONDS = { default: 90, min: 1, max: 3600 } as const;

const CONTENT_RULE = 'text, or sections of [key, value] lines';

const isSection = (value: unknown): boolean => {
  const { name, lines } = (typeof value === 'object' && value !== null ? value : {}) as Partial<UnitSection>;
  const isLine = (line: unknown) =>
    Array.isArray(line) && line.length === 2 && line.every((s) => typeof s === 'string');
  return typeof name === 'string' && Array.isArray(lines) && lines.every(isLine);
};

const contentRule: Rule = (value) =>
  typeof value === 'string' || (Array.isArray(value) && value.every(isSection)) ? undefined : CONTENT_RULE;

/**
 * Every broken rule of the sections of `content` (sections `renderUnit` rendered included), with
 * `known` standing in for the values Terraform substitutes only at apply. Text written as text is
 * written as is.
 */
export const contentProblems = (content: unknown, known?: Known): Problem[] => {
  if (contentRule(content) !== undefined) return [];
  const sections = typeof content === 'string' ? sectionsOf(content) : (content as readonly UnitSection[]);
  return (sections === undefined ? [] : unitSectionProblems(sections, known)).map((says) => ({
    prop: 'content',
    says,
  }));
};

const strings: Rule = (value) =>
  Array.isArray(value) && value.every((item) => typeof item === 'string') ? undefined : 'a list of strings';

/** The props of a unit file, a unit's or a drop-in's. */
export const FILE_PROPS = {
  content: { rule: contentRule, required: true },
  directory: { rule: unitDirectoryRule, default: '/etc/systemd/system' },
  startTimeoutSeconds: {
    rule: integer(START_TIMEOUT_SECONDS.min, START_TIMEOUT_SECONDS.max),
    default: START_TIMEOUT_SECONDS.default,
  },
} as const satisfies PropTable;

/** What a unit and an instance both declare: whether it is enabled and running, and how apply treats it. */
const CONTROL_PROPS = {
  enabled: { rule: boolean, default: true },
  started: { rule: boolean, default: true },
  restartOn: { rule: strings, default: [] },
  startTimeoutSeconds: FILE_PROPS.startTimeoutSeconds,
  unmask: { rule: boolean, default: false },
} as const satisfies PropTable;

/** Every prop of `SystemdUnit` of its own (the host and `retired` are the construct's). */
export const UNIT_PROPS = {
  name: { rule: unitNameRule, required: true },
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

/** A unit's props with their defaults: the one place they are applied. */
export const unitWithDefaults = <P extends object>(props: P): P =>
  withDefaults(
    templateName(props as Readonly<Record<string, unknown>>) === undefined ? UNIT_PROPS : TEMPLATE_PROPS,
    props,
  );

/** The rules across a unit's props: a template is never started itself, and its content's sections. */
export const unitRules = (props: Readonly<Record<string, unknown>>, known?: Known): Problem[] => [
  ...(templateName(props) !== undefined && props.started === true
    ? [broken('started', 'false for a template unit (start its instances instead)', true)]
    : []),
  ...contentProblems(props.content, known),
];

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
  if (INSTANCE_PROPS.instance.rule(instance) !== undefined) return [];
  const problem = unitNameProblem(instanceName(template, instance as string));
  return problem === undefined ? [] : [broken('instance', `short enough for a unit name (${problem})`, instance)];
};

/** The fields every unit spec shares, by the rules of the props they come from. */
const CONTROL_FIELDS = {
  name: UNIT_PROPS.name,
  directory: { rule: unitDirectoryRule, required: true },
  enabled: { rule: boolean, required: true },
  started: { rule: boolean, required: true },
  /** Digest of the `restartOn` strings; its move restarts a running unit. */
  restartOn: { rule: text('a sha256 digest', /^[0-9a-f]{64}$/), required: true },
  startTimeoutSeconds: { rule: FILE_PROPS.startTimeoutSeconds.rule, required: true },
  unmask: { rule: boolean, required: true },
} as const satisfies PropTable;

const controlled = {
  name: z.string(),
  directory: z.string(),
  enabled: z.boolean(),
  started: z.boolean(),
  restartOn: z.string(),
  startTimeoutSeconds: z.number(),
  /** Let apply remove a /dev/null mask link instead of failing on a masked unit. */
  unmask: z.boolean(),
};

/**
 * A unit file or drop-in: text, or sections that held Terraform values at synth. Those values are
 * known only now, so the sections are judged again here by `contentProblems`, before the text they
 * render to is compared with the host's file or written to it.
 */
export const unitContent = z.pipe(
  z.union([z.string(), z.array(z.object({ name: z.string(), lines: z.array(z.tuple([z.string(), z.string()])) }))], {
    error: CONTENT_RULE,
  }),
  z.transform((content, ctx) => {
    const problems = contentProblems(content);
    for (const problem of problems) ctx.issues.push({ code: 'custom', message: problem.says, input: content });
    return problems.length === 0 ? (typeof content === 'string' ? content : unitText(content)) : z.NEVER;
  }),
);

/** The identity fields, judged by the props' rules. */
const identityCheck = (what: string) =>
  specCheck((identity: { name: string; directory: string }) =>
    propProblems(what, { name: CONTROL_FIELDS.name, directory: CONTROL_FIELDS.directory }, identity),
  );

/** What names a unit: all that destroy gets. */
export const unitIdentity = z.object({ name: z.string(), directory: z.string() }).check(identityCheck('a unit'));

/** The spec a `SystemdUnit` synthesizes. */
export const unitSpec = z.object({ ...controlled, content: unitContent }).check(
  specCheck((spec) => {
    const { content: _, ...fields } = spec;
    return [...propProblems('a unit spec', CONTROL_FIELDS, fields), ...unitRules(fields)];
  }),
);

/** The spec a template's instance synthesizes: no file of its own, its template's name. */
export const instanceSpec = z.object({ ...controlled, template: z.string() }).check(
  specCheck((spec) => {
    const problems = [
      ...propProblems('an instance spec', { ...CONTROL_FIELDS, template: UNIT_PROPS.name }, spec),
      ...instanceRules(spec.template, undefined),
    ];
    if (problems.length === 0 && instanceOf(spec.name) !== spec.template) {
      problems.push(broken('name', `an instance of ${spec.template}`, spec.name));
    }
    return problems;
  }),
);

/** What names an instance: its name and where a mask link of it would be. */
export const instanceIdentity = z
  .object({ name: z.string(), directory: z.string() })
  .check(identityCheck('an instance'));

export type UnitSpec = z.infer<typeof unitSpec>;
/** A unit's spec as its construct synthesizes it: content may still be sections (`unitContent`). */
export type DeclaredUnitSpec = Omit<UnitSpec, 'content'> & { readonly content: UnitContent };
export type InstanceSpec = z.infer<typeof instanceSpec>;
export type UnitIdentity = z.infer<typeof unitIdentity>;

/** A unit as apply and diff see it: a `SystemdUnit` has `content`, an instance has none of its own. */
export interface DesiredUnit extends Omit<UnitSpec, 'content'> {
  readonly content?: string;
}

/** What one read of the host found. */
export interface LiveUnit {
  readonly status: UnitStatus;
  /** sha256 of the unit file, undefined when there is no file (or none is read, for an instance). */
  readonly fileSha256: string | undefined;
  /** The restartOn digest recorded by the last apply, undefined when none was. */
  readonly restartOn: string | undefined;
  /** Seconds the unit has been in its current state, when systemd said since when. */
  readonly stateSeconds?: number;
}

export const unitPath = (spec: Pick<UnitSpec, 'directory' | 'name'>): string => `${spec.directory}/${spec.name}`;

/** Where apply records the restartOn digest it last acted on. */
export const RESTART_ON_DIR = '/var/lib/cdktf-homelab/restart-on';

export const restartOnPath = (unit: Pick<UnitSpec, 'name'>): string => `${RESTART_ON_DIR}/${unit.name}`;
