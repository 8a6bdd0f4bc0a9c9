/**
 * Runs a handler in-process exactly as the bundle's `main` would (a batch query on stdin for read,
 * HOMELAB_* env for apply and destroy, and for the batch apply), so contract tests cover the CLI
 * contract, not just the functions. A one-object read goes through the batch read, as Terraform's does.
 */
import { canonicalJson } from '../../src/core/canonical';
import type { Clock } from '../../src/core/clock';
import { runHandler } from '../../src/core/handler-cli';
import type { HandlerDomain } from '../../src/core/kind';
import { APPLY, BATCH, ENV, type ReadResult, type Verb } from '../../src/core/protocol';

export interface HandlerRun {
  readonly code: number;
  readonly result?: ReadResult;
  readonly stderr: string;
}

export interface BatchRun {
  readonly code: number;
  readonly result?: Record<string, string>;
  readonly stderr: string;
}

const NAME = 'object';

export const invoke = async <S, T>(
  domain: HandlerDomain<S, T>,
  kind: string,
  verb: Verb,
  target: object,
  object: object,
  env: NodeJS.ProcessEnv = {},
  clock?: Clock,
): Promise<HandlerRun> => {
  if (verb === 'read') {
    const batch = await invokeBatch(domain, target, { [NAME]: { kind, spec: object } }, env);
    const pick = (field: keyof ReadResult) => batch.result?.[`${NAME}.${field}`] ?? '';
    const result = batch.result && { in_sync: pick('in_sync'), summary: pick('summary'), diff: pick('diff') };
    return { code: batch.code, stderr: batch.stderr, ...(result ? { result } : {}) };
  }
  const hookEnv =
    verb === 'destroy'
      ? destroyEnv(target, object)
      : { [ENV.target]: canonicalJson(target), [ENV.spec]: canonicalJson(object) };
  return runFromHook(domain, [kind, verb], { ...env, ...hookEnv }, clock);
};

/** What a destroy hook sets: its lifecycle's stored input (`jsonencode(self.input)`), its target and label. */
export const destroyEnv = (target: object, identity: object, label = 'target'): NodeJS.ProcessEnv => ({
  [ENV.lifecycle]: JSON.stringify(canonicalJson({ identity, target: label })),
  [ENV.target]: canonicalJson(target),
  [ENV.targetLabel]: label,
});

/** One batch read of `objects` (name → kind and spec), as the synthesized data source runs it. */
export const invokeBatch = async <S, T>(
  domain: HandlerDomain<S, T>,
  target: object,
  objects: Readonly<Record<string, { kind: string; spec: object; adopt?: boolean }>>,
  env: NodeJS.ProcessEnv = {},
  fields: Readonly<Record<string, string>> = {},
): Promise<BatchRun> => {
  const query: Record<string, string> = { [BATCH.target]: canonicalJson(target), ...fields };
  for (const [name, entry] of Object.entries(objects)) query[name] = canonicalJson(entry);
  const out: string[] = [];
  const log: string[] = [];
  const io = {
    stdin: async () => JSON.stringify(query),
    env,
    out: (s: string) => out.push(s),
    log: (l: string) => log.push(l),
  };
  const code = await runHandler(domain, [BATCH.verb, 'read'], io);
  const result = out.length > 0 ? (JSON.parse(out.join('')) as Record<string, string>) : undefined;
  return { code, stderr: log.join('\n'), ...(result ? { result } : {}) };
};

/** One object of a batch apply: its kind, its spec, and the names it is applied after. */
export interface ApplyEntry {
  readonly kind: string;
  readonly spec: object;
  readonly after?: readonly string[];
  /** Whether the construct says `adopt: true`. */
  readonly adopt?: boolean;
}

/**
 * One batch apply of `objects` (name → entry, all drifted), as the target's apply resource runs it:
 * HOMELAB_DRIFTED names them, HOMELAB_OBJECT_<i> holds the i-th one's entry.
 */
export const invokeBatchApply = async <S, T>(
  domain: HandlerDomain<S, T>,
  target: object,
  objects: Readonly<Record<string, ApplyEntry>>,
  env: NodeJS.ProcessEnv = {},
  clock?: Clock,
): Promise<HandlerRun> => {
  const entries = Object.entries(objects);
  const hookEnv: Record<string, string> = {
    [ENV.target]: canonicalJson(target),
    [APPLY.drifted]: entries.map(([name]) => name).join(','),
  };
  entries.forEach(([, { kind, spec, after = [], adopt }], index) => {
    hookEnv[`${APPLY.objectPrefix}${index}`] = canonicalJson({ kind, spec, after, ...(adopt ? { adopt } : {}) });
  });
  return runFromHook(domain, [APPLY.verb, 'apply'], { ...env, ...hookEnv }, clock);
};

/** One run as a local-exec hook makes it: nothing on stdin, everything in `env`, stderr kept. */
const runFromHook = async <S, T>(
  domain: HandlerDomain<S, T>,
  argv: readonly string[],
  env: NodeJS.ProcessEnv,
  clock?: Clock,
): Promise<HandlerRun> => {
  const log: string[] = [];
  const io = { stdin: async () => '', env, out: () => undefined, log: (l: string) => log.push(l), clock };
  const code = await runHandler(domain, argv, io);
  return { code, stderr: log.join('\n') };
};
