/**
 * Runs a handler verb in-process exactly as the bundle's `main` would (stdin for read, HOMELAB_*
 * env for apply and destroy), so contract tests cover the CLI contract, not just the functions.
 */
import { canonicalJson } from '../../src/core/canonical';
import { type HandlerTable, runHandler } from '../../src/core/handler-cli';
import { ENV, type ReadResult, type Verb } from '../../src/core/protocol';

export interface HandlerRun {
  readonly code: number;
  readonly result?: ReadResult;
  readonly stderr: string;
}

export const invoke = async (
  table: HandlerTable,
  kind: string,
  verb: Verb,
  target: object,
  object: object,
  env: NodeJS.ProcessEnv = {},
): Promise<HandlerRun> => {
  const out: string[] = [];
  const log: string[] = [];
  const hookEnv =
    verb === 'read'
      ? {}
      : { [ENV.target]: canonicalJson(target), [verb === 'destroy' ? ENV.identity : ENV.spec]: canonicalJson(object) };
  const stdin = async () => (verb === 'read' ? JSON.stringify({ kind, target: canonicalJson(target), spec: canonicalJson(object) }) : '');
  const code = await runHandler(table, [kind, verb], { stdin, env: { ...env, ...hookEnv }, out: (s) => out.push(s), log: (l) => log.push(l) });
  return { code, stderr: log.join('\n'), ...(out.length > 0 ? { result: JSON.parse(out.join('')) as ReadResult } : {}) };
};
