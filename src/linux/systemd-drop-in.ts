/**
 * A drop-in: `<directory>/<unit>.d/<name>.conf`, the way to change a distribution's unit without
 * replacing its file. Its one declaration (`DROP_IN_FIELDS`), from which its props, spec, identity and
 * the handler boundary's schemas come, and its pure diff.
 */
import * as z from 'zod/mini';
import { sha256Hex } from '../core/canonical';
import { identitySchema, required, type SpecOf, specSchema, typedSpecOf } from '../core/fields';
import { describeDiff, type FieldDiff } from '../core/protocol';
import { isRecord } from '../core/records';
import { broken, type Problem, type Rule, text } from '../core/rules';
import { contentText, type Known } from './render-unit';
import { contentProblems, FILE_FIELDS, START_TIMEOUT_FIELDS } from './unit-file';
import type { LiveUnit } from './unit-control';
import { IN_WORDS, liveFileWords, short } from './unit-diff';
import { overriddenDiff, overriddenPart } from './unit-loaded';
import { pendingDiff, pendingWords } from './unit-stale';
import { unitNameProblem } from './unit-name';
import { unloadedDiff, unloadedWords } from './unloaded-drop-ins';
import { dropInDirectory, dropInPath } from './drop-in-path';
import { templateRunsDiff, templateRunsWords } from './template-runs';

/** A drop-in's name: one path segment that cannot hide (no leading dot) or walk out (no slash). */
const nameRule = text(
  'letters, digits and _ . @ - (no leading dot, at most 100)',
  /^[A-Za-z0-9_@-][A-Za-z0-9_.@-]{0,99}$/,
);

/** The unit a drop-in changes, by its name: what its spec carries. */
const unitNameOf: Rule<string> = (value) => {
  if (typeof value !== 'string') return 'a unit name';
  const problem = unitNameProblem(value);
  return problem === undefined ? undefined : `a unit name (${problem})`;
};

/** A unit or instance of the stack, as a drop-in names it: by its spec's name. */
export interface UnitOfStack {
  readonly spec: { readonly name: string };
}

const isUnitOfStack = (value: unknown): value is UnitOfStack =>
  isRecord(value) && isRecord(value.spec) && typeof value.spec.name === 'string';

/** The unit prop: a unit name, or a unit or instance of the stack (an object with its spec). */
const unitRule: Rule<string | UnitOfStack> = (value) => {
  if (isUnitOfStack(value)) return undefined;
  const byName = unitNameOf(value);
  return byName === undefined ? undefined : `${byName}, or a SystemdUnit or instance of the stack`;
};

/** Every field of `SystemdDropIn` of its own (the host and `retired` are the construct's), in its spec's order. */
export const DROP_IN_FIELDS = {
  /**
   * The unit it changes: a unit name (`ssh.service`, a distribution's), or a `SystemdUnit` or instance of this
   * stack, after whose apply the drop-in is applied. Changing it replaces the drop-in.
   */
  unit: required({
    rule: unitRule,
    spec: true,
    identity: true,
    encode: (value: unknown) => (isUnitOfStack(value) ? value.spec.name : value),
    specForm: unitNameOf,
    formOnly: true,
  }),
  /** The file name without `.conf`, e.g. `10-limits`. Changing it replaces the drop-in. */
  name: required({ rule: nameRule, spec: true, identity: true }),
  ...FILE_FIELDS,
  ...START_TIMEOUT_FIELDS,
};

/** The rules across a drop-in's props: a unit named by its name needs a host; its content's sections. */
export const dropInRules = (props: Readonly<Record<string, unknown>>, known?: Known): Problem[] => [
  ...(typeof props.unit === 'string' && props.host === undefined
    ? [broken('host', 'set when unit is a unit name', undefined)]
    : []),
  ...contentProblems(props.content, known),
];

/** The spec a drop-in's props make: its unit by name, its defaults applied. */
export const dropInSpecOf = (props: object): DeclaredDropInSpec => typedSpecOf(DROP_IN_FIELDS, props);

export const dropInIdentity = identitySchema(DROP_IN_FIELDS, 'a drop-in identity');

/** The spec a drop-in synthesizes, its content made text once the values Terraform filled in are judged. */
export const dropInSpec = z.pipe(
  specSchema(DROP_IN_FIELDS, 'a drop-in spec', (props) => contentProblems(props.content)),
  z.transform((spec) => ({ ...spec, content: contentText(spec.content) })),
);

export type DropInIdentity = z.infer<typeof dropInIdentity>;
export type DropInSpec = z.infer<typeof dropInSpec>;
/** A drop-in's spec as its construct synthesizes it: content may still be sections or text with values. */
export type DeclaredDropInSpec = SpecOf<typeof DROP_IN_FIELDS>;

export { dropInDirectory, dropInPath };

/** Whether the drop-in's unit runs: a drop-in changes a running unit only through its restart. */
export const dropInUnitRuns = (live: LiveUnit): boolean => live.status.activeState === 'active';

/**
 * The file differs, systemd has not loaded it yet, loads another of its name instead (unit-loaded.ts),
 * an apply of it was interrupted, or its unit runs a process older than its content (unit-stale.ts).
 */
export const diffDropIn = (spec: DropInSpec, live: LiveUnit): FieldDiff => {
  const changes: Record<string, { live: unknown; want: unknown }> = overriddenDiff(live.overridden);
  const want = sha256Hex(spec.content);
  if (live.fileSha256 !== want) changes.file = { live: liveFileWords(live), want: short(want) };
  if (live.status.needDaemonReload) changes.NeedDaemonReload = { live: 'yes', want: 'no' };
  const runs = templateRunsDiff(spec.content, live);
  return { ...changes, ...unloadedDiff(live.status), ...pendingDiff(live, dropInUnitRuns(live)), ...runs };
};

export const summarizeDropIn = (spec: DropInSpec, host: string, live: LiveUnit, changes: FieldDiff): string => {
  const name = `drop-in ${dropInPath(spec)} on ${host}`;
  const words = pendingWords(live, dropInUnitRuns(live));
  const pending = words === undefined ? undefined : `${spec.unit}: ${words}`;
  const runs = templateRunsWords(spec.content, live);
  if (live.fileSha256 === undefined) {
    const after = [pending, runs].filter((part) => part !== undefined);
    return `${name} is absent${after.length === 0 ? '' : `: ${after.join('; ')}`}`;
  }
  if (Object.keys(changes).length === 0) return `${name} is in sync`;
  const shadow = overriddenPart(live.overridden);
  const said = [shadow, unloadedWords(live.status), pending, runs].filter((part) => part !== undefined);
  const rest = Object.fromEntries(Object.entries(changes).filter(([field]) => !IN_WORDS.includes(field)));
  const differs = Object.keys(rest).length === 0 ? [] : [`differs: ${describeDiff(rest)}`];
  return said.length === 0 ? `${name} ${differs.join('')}` : `${name}: ${[...said, ...differs].join('; ')}`;
};
