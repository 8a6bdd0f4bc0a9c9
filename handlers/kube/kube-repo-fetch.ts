/**
 * The I/O shell of a fetch ask. A batch lists each namespace's Sandboxes once and reads every ask off them; apply
 * raises the ask and waits for its verdict (fetch-ask.ts), or waits on a pending ask for the same trigger, whichever
 * stack raised it. There is no destroy: an ask leaves nothing to remove.
 */
import { defineKind, type KindContext, type Reading } from '../../src/core/kind';
import type { KubeObject } from '../../src/kube/client';
import { parseSandbox } from '../../src/kube/fetch-verdict';
import {
  askedByFor,
  type LiveSandbox,
  readFetch,
  repoFetchIdentitySchema,
  type RepoFetchSpec,
  repoFetchSpecSchema,
  sandboxesPath,
  sandboxName,
} from '../../src/kube/kube-repo-fetch';
import type { KubeSession } from './session';
import { askForFetch } from './fetch-ask';

/** Per namespace/version: its Sandboxes by name, or `type-missing` when the type is not served there. */
export interface FetchedSandboxes {
  readonly sandboxes: ReadonlyMap<string, ReadonlyMap<string, KubeObject> | 'type-missing'>;
  readonly cluster: string;
}

const where = (spec: Pick<RepoFetchSpec, 'namespace' | 'version'>) => `${spec.namespace}/${spec.version}`;

export const repoFetchKind = defineKind({
  spec: repoFetchSpecSchema,
  identity: repoFetchIdentitySchema,

  async fetch({ client, cluster }: KubeSession, specs: readonly RepoFetchSpec[]): Promise<FetchedSandboxes> {
    const sandboxes = new Map<string, ReadonlyMap<string, KubeObject> | 'type-missing'>();
    for (const spec of specs) {
      if (sandboxes.has(where(spec))) continue;
      sandboxes.set(where(spec), await client.listByName(sandboxesPath(spec.namespace, spec.version)));
    }
    return { sandboxes, cluster };
  },

  read(spec: RepoFetchSpec, fetched: FetchedSandboxes): Reading {
    return readFetch(spec, liveSandbox(spec, fetched), fetched.cluster);
  },

  // The stack whose recorded ask is for another trigger: asking would undo it, so the plan names both stacks and
  // the apply refuses unless takeOver (stack-id.ts). An ask for the same trigger is shared, never another stack's.
  markedBy: (spec: RepoFetchSpec, fetched: FetchedSandboxes): string | undefined =>
    askedByFor(spec, liveSandbox(spec, fetched)),

  apply: async ({ client, cluster }: KubeSession, spec: RepoFetchSpec, context: KindContext) => {
    await askForFetch(client, cluster, spec, context);
  },

  // An ask mostly waits, up to its budget, with one request open at a time: a batch's asks wait side by side.
  applyConcurrency: 16,
});

const liveSandbox = (spec: RepoFetchSpec, fetched: FetchedSandboxes): LiveSandbox => {
  const listed = fetched.sandboxes.get(where(spec));
  if (listed === 'type-missing') return 'type-missing';
  const object = listed?.get(spec.sandbox);
  return object === undefined ? 'absent' : parseSandbox(object, sandboxName(spec));
};
