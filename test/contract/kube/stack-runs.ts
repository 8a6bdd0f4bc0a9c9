/**
 * Handler runs as two stacks make them (issue 27): the batch read's query carries `.stack` and each object's
 * `adopt`/`takeOver`, the batch apply's hook HOMELAB_STACK, so a contract test can play stack "blue" and stack
 * "green" against one API server. test/support/run-handler.ts passes neither the stack nor takeOver.
 */
import { canonicalJson } from '../../../src/core/canonical';
import { runHandler } from '../../../src/core/handler-cli';
import type { HandlerDomain } from '../../../src/core/kind';
import { APPLY, BATCH, ENV } from '../../../src/core/protocol';
import type { RepoSpec } from '../../../src/kube/kube-repo';
import { CR_VERSION } from '../../support/kube-crds';

/** The Repo the contract tests declare for `key`: an anonymous https clone of git.example/me/<key>. */
export const repoSpecIn = (namespace: string, key: string): RepoSpec => ({
  namespace,
  key,
  version: CR_VERSION,
  url: `https://git.example/me/${key}.git`,
  identity: `git.example/me/${key}`,
  credentials: [],
  refreshInterval: '5m',
});

export interface StackEntry {
  readonly kind: string;
  readonly spec: object;
  readonly adopt?: boolean;
  readonly takeOver?: boolean;
}

/** An entry as the query and the hook carry it: the owner fields only when set, as synth writes them. */
const entryOf = ({ kind, spec, adopt, takeOver }: StackEntry, extra: object = {}) => ({
  kind,
  spec,
  ...extra,
  ...(adopt ? { adopt } : {}),
  ...(takeOver ? { takeOver } : {}),
});

/** One batch read by `stack`: the result fields, the exit code and stderr. */
export const readAs = async <S, T>(
  domain: HandlerDomain<S, T>,
  target: object,
  stack: string,
  objects: Readonly<Record<string, StackEntry>>,
) => {
  const query: Record<string, string> = { [BATCH.target]: canonicalJson(target), [BATCH.stack]: stack };
  for (const [name, entry] of Object.entries(objects)) {
    query[name] = canonicalJson(entryOf(entry));
  }
  const out: string[] = [];
  const log: string[] = [];
  const io = {
    stdin: async () => JSON.stringify(query),
    env: {},
    out: (s: string) => out.push(s),
    log: (l: string) => log.push(l),
  };
  const code = await runHandler(domain, [BATCH.verb, 'read'], io);
  const result = out.length > 0 ? (JSON.parse(out.join('')) as Record<string, string>) : {};
  return { code, result, stderr: log.join('\n') };
};

/** One batch apply by `stack` of `objects`, all drifted, as the target's apply resource runs it. */
export const applyAs = async <S, T>(
  domain: HandlerDomain<S, T>,
  target: object,
  stack: string,
  objects: Readonly<Record<string, StackEntry>>,
) => {
  const entries = Object.entries(objects);
  const env: Record<string, string> = {
    [ENV.target]: canonicalJson(target),
    [ENV.stack]: stack,
    [APPLY.drifted]: entries.map(([name]) => name).join(','),
  };
  entries.forEach(([, entry], index) => {
    env[`${APPLY.objectPrefix}${index}`] = canonicalJson(entryOf(entry, { after: [] }));
  });
  const log: string[] = [];
  const io = { stdin: async () => '', env, out: () => undefined, log: (l: string) => log.push(l) };
  const code = await runHandler(domain, [APPLY.verb, 'apply'], io);
  return { code, stderr: log.join('\n') };
};
