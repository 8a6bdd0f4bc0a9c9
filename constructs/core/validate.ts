/**
 * Synth-time checks shared by every construct: the message says which prop broke which rule and
 * with what value, and a value cdktf has not resolved yet (a token) is never judged.
 */
import type { Construct } from 'constructs';
import { type PropTable, propProblems } from '../../src/core/definition';
import { isRecord } from '../../src/core/records';
import { OWNER_FIELDS } from '../../src/core/owner-fields';
import type { Problem, Rule } from '../../src/core/rules';
import { Token } from './cdk';
import { NAMES_OBJECT } from './encode';
import { isRefused, recordProblems, refuse } from './problems';

/**
 * Whether cdktf will only know the value at deploy time: a string or number token, or a value given whole (a
 * variable's `booleanValue` or `listValue`, a map token, `Token.asAny`), which a rule would take for a known one.
 */
export const unresolved = (value: unknown): boolean => Token.isUnresolved(value);

/** Whether cdktf will only know the value, or one item of a list, at deploy time. */
export const unknownYet = (value: unknown): boolean =>
  unresolved(value) || (Array.isArray(value) && value.some(unresolved));

/**
 * A prop synth decides something from (its `atSynth`) given whole as a Terraform value: an IResolvable is truthy,
 * and a list token is one placeholder, so synth would decide from cdktf's placeholder instead of the value. Text
 * holding a value is judged by its prop's own rules (a name: encode.ts requirePlainIdentity; content: unit-content.ts).
 */
const decidedAtSynth = (table: PropTable, props: Readonly<Record<string, unknown>>): Problem[] =>
  Object.entries(table).flatMap(([prop, def]) => {
    const why = def.atSynth ?? ('identity' in def && def.identity === true ? NAMES_OBJECT : undefined);
    return why !== undefined && typeof props[prop] !== 'string' && unresolved(props[prop])
      ? [{ prop, says: `must be a plain value known at synth, got a Terraform reference (${why})` }]
      : [];
  });

/** cdktf's marker for a string token (BEGIN_STRING_TOKEN_MARKER in its tokens/private/encoding). */
export const STRING_TOKEN = /\$\{TfToken\[[A-Za-z0-9:._-]+\]\}/;

/**
 * `text` with each Terraform value in it replaced by a letter, which passes every syntax rule, so
 * only the known parts around it are judged; undefined when a token is left that it cannot tell.
 */
export const knownText = (text: string): string | undefined => {
  const masked = text.replace(new RegExp(STRING_TOKEN.source, 'g'), 'x');
  return Token.isUnresolved(masked) ? undefined : masked;
};

/**
 * Judges `props` by the kind's table and its rules across props, records every broken rule for the
 * app's synth to fail with (problems.ts), and says whether the construct may build: not when a rule
 * broke, nor when a prop names a construct that built nothing (its own problems say why; its props are
 * not judged here). A value cdktf has not resolved (or a list holding one) is left to the handler, which
 * judges it by the same rules; `across` gets the test.
 */
export const validateProps = (
  scope: Construct,
  owner: string,
  table: PropTable,
  props: unknown,
  across: (
    props: Readonly<Record<string, unknown>>,
    known: (value: unknown) => boolean,
  ) => readonly Problem[] = () => [],
): boolean => {
  const known = (value: unknown) => !unknownYet(value);
  const leaning = isRecord(props) ? Object.keys(props).filter((prop) => isRefused(props[prop])) : [];
  const judged = isRecord(props) ? without(props, leaning) : props;
  const problems = propProblems(owner, without(table, leaning), judged, known);
  if (isRecord(judged))
    problems.push(...decidedAtSynth(table, judged), ...removalProblems(judged), ...across(judged, known));
  recordProblems(scope, problems);
  if (problems.length === 0 && leaning.length === 0) return true;
  refuse(scope);
  return false;
};

/**
 * `retired` destroys the object and `forget` leaves it on its target: with both set, forget won in silence (an
 * audit, 2026-12-05), so the object stayed where the code said it would go.
 */
const removalProblems = (props: Readonly<Record<string, unknown>>): Problem[] =>
  props.retired === true && props.forget === true
    ? [
        {
          prop: 'forget',
          says: 'must be left unset with retired: true (retired destroys the object, forget leaves it)',
        },
      ]
    : [];

/** `record` without the entries `names` names. */
const without = <T>(record: Readonly<Record<string, T>>, names: readonly string[]): Record<string, T> =>
  Object.fromEntries(Object.entries(record).filter(([name]) => !names.includes(name)));

/**
 * The prop naming the target construct: one of the class `kind`. An object merely carrying a `target` passed,
 * so another domain's target (an SshHost as a cluster) synthesized and failed only at plan.
 */
export const targetRule =
  (kind: abstract new (...args: never[]) => object, says: string): Rule =>
  (value) =>
    value instanceof kind ? undefined : says;

/** The prop naming the target construct (`targetRule`), which synth declares the object on: never a Terraform value. */
export const targetProp = (kind: abstract new (...args: never[]) => object, says: string, required = true) => ({
  rule: targetRule(kind, says),
  required,
  atSynth: `synth declares the object on ${says}`,
});

/** `adopt`, which every object construct has (README, Adoption). */
export const ADOPT_PROPS: PropTable = { adopt: OWNER_FIELDS.adopt };

/** `takeOver`, which every construct whose kind marks its objects on the target has (README, Adoption: two stacks). */
export const TAKE_OVER_PROPS: PropTable = { takeOver: OWNER_FIELDS.takeOver };

/** `forget`, which every object construct has (README, Removing an object). */
export const FORGET_PROPS: PropTable = { forget: OWNER_FIELDS.forget };

/** The props every managed object has besides its kind's own. */
export const OBJECT_PROPS: PropTable = { retired: OWNER_FIELDS.retired, ...FORGET_PROPS, ...ADOPT_PROPS };
