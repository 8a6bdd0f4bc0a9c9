/**
 * What a destroy hook removes and where, from its lifecycle's stored input and the hook's own target.
 * A lifecycle stores the identity and its target's label, the target's settings sitting once in the
 * hook; one an earlier version made stores identity and target as JSON text. A lifecycle whose kind
 * keeps ownership in the state wraps that text with what it found at its creation, and its hook says
 * whether its construct says `adopt` (ownership.ts). A label the hook does not hold fails, naming both:
 * destroying with another target's settings would leave the object in place.
 *
 * Whether a found object is the stack's to delete is proven by the state or by the code, never by the
 * record file: a tombstone's hook (a construct removed from the code) carries no `adopt`, since its
 * only source would be the record, which anyone can edit (issue 27: an entry given `adopt: true` by hand
 * made the removal delete a server made by hand). What the state proves is the `found` text itself:
 * the read wrote `will be adopted` into it when the construct said adopt as the lifecycle was created.
 */
import * as z from 'zod/mini';
import { declaredIn, withDeclared } from './declared-identity';
import { HandlerError } from './errors';
import { keptOnDestroy } from './ownership';
import { parseAs, parseJson } from './parse';
import { ENV } from './protocol';
import { isRecord } from './records';

/**
 * `jsonencode(self.input)`: the JSON text of `{identity, target}`, alone or after what the lifecycle found
 * and a newline (recordedInput, constructs/core/object-address.ts); 0.2.0's object of that text and what it
 * found; or, before, an object of two texts.
 */
const stored = z.union([
  z.string(),
  z.object({ object: z.string(), found: z.string() }),
  z.object({ identity: z.string(), target: z.string() }),
]);

/** The target is a label, or the settings themselves when they hold a Terraform value. */
const current = z.object({
  identity: z.record(z.string(), z.unknown()),
  target: z.union([z.string(), z.record(z.string(), z.unknown())]),
});

/** What a destroy hook acts on, and why it leaves the object when it must (`kept`). */
export interface DestroyInput {
  /** The target's settings, before the domain's schema judges them. */
  readonly target: unknown;
  /** The object's identity, before its kind's schema judges it. */
  readonly identity: unknown;
  /** Set when the object is not the stack's to delete: found, never adopted. */
  readonly kept?: string;
}

/**
 * The target and identity a destroy hook acts on, before the kind's and domain's schemas judge them: the stored
 * object, or, when the hook carries the configuration's declaration, as it says (declared-identity.ts).
 */
export const destroyInput = (env: NodeJS.ProcessEnv): DestroyInput => {
  const input = storedInput(env);
  const declared = declaredIn(env);
  if (declared === undefined || input.kept !== undefined || !isRecord(input.identity)) return input;
  const destroy = withDeclared(input.identity, declared);
  return 'kept' in destroy ? { target: undefined, identity: undefined, kept: destroy.kept } : { ...input, ...destroy };
};

const storedInput = (env: NodeJS.ProcessEnv): DestroyInput => {
  const input = parseAs(stored, parseJson(env[ENV.lifecycle], ENV.lifecycle), ENV.lifecycle);
  if (typeof input === 'string') {
    // The JSON text holds no newline (a newline inside a JSON string is escaped): the last one starts it.
    const start = input.lastIndexOf('\n');
    return start < 0 ? fromText(input, env) : recorded(input.slice(start + 1), input.slice(0, start), env);
  }
  if ('object' in input) return recorded(input.object, input.found, env);
  return { target: parseJson(input.target, 'target'), identity: parseJson(input.identity, 'identity') };
};

/** An object whose lifecycle recorded what it `found`: left when found and never adopted (ownership.ts). */
const recorded = (object: string, found: string, env: NodeJS.ProcessEnv): DestroyInput => {
  const kept = keptOnDestroy(found, adoptedAtCreation(found) || env[ENV.adopt] === 'true');
  return kept === undefined ? fromText(object, env, true) : { target: undefined, identity: undefined, kept };
};

/**
 * Whether the lifecycle's creation recorded an adoption: the read's `found` text for a construct saying
 * `adopt: true` (ownership.ts, foundReading) ends so, and Terraform stores it only when it creates the lifecycle.
 */
const adoptedAtCreation = (found: string): boolean => found.endsWith(': will be adopted');

/** `asCreated`: the lifecycle keeps the input it was created with, so no apply records a new target in it. */
const fromText = (text: string, env: NodeJS.ProcessEnv, asCreated = false): DestroyInput => {
  const { identity, target } = parseAs(current, parseJson(text, ENV.lifecycle), ENV.lifecycle);
  if (typeof target !== 'string') return { target, identity };
  const label = env[ENV.targetLabel];
  if (target === label) return { target: parseJson(env[ENV.target], ENV.target), identity };
  throw new HandlerError(
    'Target changed',
    `the object was last applied on target "${target}", and this hook holds the settings of ` +
      `${label === undefined ? 'no target' : `target "${label}"`} only; ` +
      (asCreated
        ? 'its lifecycle keeps the target it was created with: set forget: true on it for one apply, then ' +
          'declare it on its new target with adopt: true'
        : 'apply the change of target by itself first (that apply records the new target), then destroy or ' +
          'rename the object'),
    { 'Stored target': target, 'Hook target': label ?? 'none' },
  );
};
