/**
 * A drop-in: `<directory>/<unit>.d/<name>.conf`, the way to change a distribution's unit without
 * replacing its file. Its props table (rules and defaults) judged at synth, the spec the handler
 * boundary judges by the same rules, and its pure diff.
 */
import * as z from 'zod/mini';
import { sha256Hex } from '../core/canonical';
import { type PropTable, propProblems, specCheck } from '../core/definition';
import { describeDiff, type FieldDiff } from '../core/protocol';
import { isRecord } from '../core/records';
import { broken, type Problem, type Rule, text } from '../core/rules';
import type { Known, UnitContent } from './render-unit';
import { contentProblems, FILE_PROPS, unitContent } from './unit-file';
import type { LiveUnit } from './unit-control';
import { short } from './unit-diff';
import { PENDING_FIELDS, pendingDiff, pendingWords } from './unit-stale';
import { unitNameProblem } from './unit-name';
import { dropInDirectory, dropInPath } from './drop-in-path';

/** A drop-in's name: one path segment that cannot hide (no leading dot) or walk out (no slash). */
const nameRule = text(
  'letters, digits and _ . @ - (no leading dot, at most 100)',
  /^[A-Za-z0-9_@-][A-Za-z0-9_.@-]{0,99}$/,
);

/** The unit a drop-in changes, by its name. */
const unitNameOf: Rule = (value) => {
  if (typeof value !== 'string') return 'a unit name';
  const problem = unitNameProblem(value);
  return problem === undefined ? undefined : `a unit name (${problem})`;
};

/** The unit prop: a unit name, or a unit or instance of the stack (an object with its spec). */
const unitRule: Rule = (value) => {
  if (isRecord(value) && isRecord(value.spec) && typeof value.spec.name === 'string') return undefined;
  const byName = unitNameOf(value);
  return byName === undefined ? undefined : `${byName}, or a SystemdUnit or instance of the stack`;
};

/** Every prop of `SystemdDropIn` of its own (the host and `retired` are the construct's). */
export const DROP_IN_PROPS = {
  unit: { rule: unitRule, required: true },
  name: { rule: nameRule, required: true },
  ...FILE_PROPS,
} as const satisfies PropTable;

/** The rules across a drop-in's props: a unit named by its name needs a host; its content's sections. */
export const dropInRules = (props: Readonly<Record<string, unknown>>, known?: Known): Problem[] => [
  ...(typeof props.unit === 'string' && props.host === undefined
    ? [broken('host', 'set when unit is a unit name', undefined)]
    : []),
  ...contentProblems(props.content, known),
];

/** The identity fields, by the rules of the props they come from. */
const IDENTITY_FIELDS = {
  unit: { rule: unitNameOf, required: true },
  name: DROP_IN_PROPS.name,
  directory: { rule: FILE_PROPS.directory.rule, required: true },
} as const satisfies PropTable;

const identityFields = { unit: z.string(), name: z.string(), directory: z.string() };

export const dropInIdentity = z
  .object(identityFields)
  .check(specCheck((identity) => propProblems('a drop-in identity', IDENTITY_FIELDS, identity)));

export const dropInSpec = z
  .object({ ...identityFields, content: unitContent, startTimeoutSeconds: z.number() })
  .check(
    specCheck(({ content: _, ...fields }) =>
      propProblems(
        'a drop-in spec',
        { ...IDENTITY_FIELDS, startTimeoutSeconds: FILE_PROPS.startTimeoutSeconds },
        fields,
      ),
    ),
  );

export type DropInIdentity = z.infer<typeof dropInIdentity>;
export type DropInSpec = z.infer<typeof dropInSpec>;
/** A drop-in's spec as its construct synthesizes it: content may still be sections (`unitContent`). */
export type DeclaredDropInSpec = Omit<DropInSpec, 'content'> & { readonly content: UnitContent };

export { dropInDirectory, dropInPath };

/** Whether the drop-in's unit runs: a drop-in changes a running unit only through its restart. */
export const dropInUnitRuns = (live: LiveUnit): boolean => live.status.activeState === 'active';

/**
 * The file differs, systemd has not loaded it yet, an apply of it was interrupted, or its unit runs
 * a process older than its content (unit-stale.ts).
 */
export const diffDropIn = (spec: DropInSpec, live: LiveUnit): FieldDiff => {
  const changes: Record<string, { live: unknown; want: unknown }> = {};
  const want = sha256Hex(spec.content);
  if (live.fileSha256 !== want) changes.file = { live: short(live.fileSha256), want: short(want) };
  if (live.status.needDaemonReload) changes.NeedDaemonReload = { live: 'yes', want: 'no' };
  return { ...changes, ...pendingDiff(live, dropInUnitRuns(live)) };
};

export const summarizeDropIn = (spec: DropInSpec, host: string, live: LiveUnit, changes: FieldDiff): string => {
  const name = `drop-in ${dropInPath(spec)} on ${host}`;
  const words = pendingWords(live, dropInUnitRuns(live));
  const pending = words === undefined ? '' : `: ${spec.unit}: ${words}`;
  if (live.fileSha256 === undefined) return `${name} is absent${pending}`;
  if (Object.keys(changes).length === 0) return `${name} is in sync`;
  const rest = Object.fromEntries(Object.entries(changes).filter(([field]) => !PENDING_FIELDS.includes(field)));
  if (Object.keys(rest).length === 0) return `${name}${pending}`;
  return `${name}${pending === '' ? ' ' : `${pending}; `}differs: ${describeDiff(rest)}`;
};
