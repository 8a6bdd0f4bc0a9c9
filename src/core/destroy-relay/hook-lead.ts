/**
 * What a leader of sh destroy hooks does with each request (fifo-lead.ts carries them): the hook's own
 * variables checked as the Node hook checks them (its stack, its kind, destroyInput, and the target's and
 * identity's schemas in the run), then destroyed in the run of its target, one per target for the
 * leader's life. It prevents a hook of another stack or bundle being served here, and one object's
 * failure being another's: each request's outcome is its own.
 */
import { digestOf } from '../canonical';
import type { HandlerDomain, KindContext } from '../kind';
import { destroyInput } from '../lifecycle-input';
import { ENV } from '../protocol';
import { type FifoLead, leadFifo, type Served } from './fifo-lead';
import { REQUEST_FIELDS } from './fifo-protocol';
import { type DestroyOutcome, type DestroyWork, describeError } from './relay';

/**
 * Leads the hooks of `lead`, destroying this process's own object (`kind`, from its environment) first;
 * `work` opens the run of one target (sharedDestroy), closed once the leader ends.
 */
export const leadHooks = async <S, T, C, R>(
  domain: HandlerDomain<S, T, string, C, R>,
  kind: string,
  context: KindContext,
  lead: FifoLead,
  work: (target: unknown) => DestroyWork,
  options: { readonly lingerMs?: number } = {},
): Promise<DestroyOutcome> => {
  const { runOf, close } = targetRuns(work);
  const serve = async (fields: Readonly<Record<string, string>>): Promise<Served> => {
    const named = fields[ENV.kind];
    // Another stack's hook (one data dir shared by two stacks) or another bundle's kind: not this leader's.
    if (fields[ENV.stack] !== context.env[ENV.stack]) return 'declined';
    if (named === undefined || !Object.hasOwn(domain.kinds, named)) return 'declined';
    return destroyFields(named, { ...withoutRequestFields(context.env), ...fields }, runOf);
  };
  const own = async () => {
    const served = await serve({ ...requestFieldsOf(context.env), [ENV.kind]: kind });
    return served === 'declined' ? { code: 1, lines: [`${kind} destroy: not a kind of this bundle`] } : served;
  };
  try {
    return await leadFifo(lead, own, serve, { ...options, clock: context.clock });
  } finally {
    await close();
  }
};

/** One hook's object from its variables, as the Node hook reads its own (run.ts, destroyFromHook). */
export const destroyFields = async (
  kind: string,
  env: NodeJS.ProcessEnv,
  runOf: (target: unknown) => DestroyWork,
): Promise<DestroyOutcome> => {
  try {
    const { target, identity, kept } = destroyInput(env);
    if (kept !== undefined) return { code: 0, lines: [`${kind}: ${kept}`] };
    const adopt = env[ENV.adopt] === 'true' ? { adopt: true as const } : {};
    return await runOf(target).destroy({ kind, target, identity, ...adopt });
  } catch (error) {
    // What the Node hook prints for an input it refuses (handler-cli.ts).
    return { code: 1, lines: [`${kind} destroy: ${describeError(error)}`] };
  }
};

/** One run per target, opened by `work` at its first object; `close` ends every one opened. */
export const targetRuns = (work: (target: unknown) => DestroyWork) => {
  const runs = new Map<string, DestroyWork>();
  const runOf = (target: unknown): DestroyWork => {
    const key = digestOf(target);
    const run = runs.get(key) ?? work(target);
    runs.set(key, run);
    return run;
  };
  const close = async () => void (await Promise.all([...runs.values()].map((run) => run.close())));
  return { runOf, close };
};

/** The variables of `names` that `env` sets. */
export const fieldsIn = (env: NodeJS.ProcessEnv, names: readonly string[]): Record<string, string> =>
  Object.fromEntries(
    names.flatMap((name) => {
      const value = env[name];
      return value === undefined ? [] : [[name, value]];
    }),
  );

const requestFieldsOf = (env: NodeJS.ProcessEnv): Record<string, string> => fieldsIn(env, REQUEST_FIELDS);

export const withoutRequestFields = (env: NodeJS.ProcessEnv): NodeJS.ProcessEnv =>
  Object.fromEntries(Object.entries(env).filter(([name]) => !REQUEST_FIELDS.includes(name)));
