/**
 * What a destroy hook removes and where, from its lifecycle's stored input and the hook's own target.
 * A lifecycle stores the identity and its target's label, the target's settings sitting once in the
 * hook; one an earlier version made stores identity and target as JSON text. A label the hook does not
 * hold fails, naming both: destroying with another target's settings would leave the object in place.
 */
import * as z from 'zod/mini';
import { HandlerError } from './errors';
import { parseAs, parseJson } from './parse';
import { ENV } from './protocol';

/** `jsonencode(self.input)`: the JSON text of `{identity, target}` now, an object before. */
const stored = z.union([z.string(), z.object({ identity: z.string(), target: z.string() })]);

/** The target is a label, or the settings themselves when they hold a Terraform value. */
const current = z.object({
  identity: z.record(z.string(), z.unknown()),
  target: z.union([z.string(), z.record(z.string(), z.unknown())]),
});

/** The target and identity a destroy hook acts on, before the kind's and domain's schemas judge them. */
export const destroyInput = (env: NodeJS.ProcessEnv): { target: unknown; identity: unknown } => {
  const input = parseAs(stored, parseJson(env[ENV.lifecycle], ENV.lifecycle), ENV.lifecycle);
  if (typeof input !== 'string') {
    return { target: parseJson(input.target, 'target'), identity: parseJson(input.identity, 'identity') };
  }
  const { identity, target } = parseAs(current, parseJson(input, ENV.lifecycle), ENV.lifecycle);
  if (typeof target !== 'string') return { target, identity };
  const label = env[ENV.targetLabel];
  if (target === label) return { target: parseJson(env[ENV.target], ENV.target), identity };
  throw new HandlerError(
    'Target changed',
    `the object was last applied on target "${target}", and this hook holds the settings of ` +
      `${label === undefined ? 'no target' : `target "${label}"`} only; apply the change of target by itself ` +
      'first (that apply records the new target), then destroy or rename the object',
    { 'Stored target': target, 'Hook target': label ?? 'none' },
  );
};
