/**
 * The I/O shell of a Repo. A batch lists each namespace's Repos once and checks the https clone Secrets by their
 * metadata; apply writes as its plan read the Repo (repo-write.ts: create, or restate exactly what the stack owns
 * with a merge patch) and reads back, and refuses a Repo that, or whose clone Secret, changed since the plan;
 * destroy unlabels and leaves the Repo and its cache, or deletes it when asked, and only a Repo that carries the
 * stack's marks: one the apply refused as made by someone else (never adopted) is left as it is whatever happens
 * to its construct (issue 27: removing such a construct, or destroy with
 * deleteOnDestroy, deleted it). The marks name the stack (stack-id.ts): a Repo another stack's annotation names is
 * that stack's, and this one's destroy leaves it too, naming both. The write carries the resourceVersion the check
 * read, so a Repo changed in between fails the destroy (409) rather than being acted on unchecked.
 */
import { HandlerError } from '../../src/core/errors';
import { defineKind, type KindContext, type Reading } from '../../src/core/kind';
import { describeDiff } from '../../src/core/protocol';
import { destroyLeaves, leftByStack } from '../../src/core/stack-id';
import {
  CREATE_NAMESPACE,
  deletionLeft,
  diffRepo,
  INSTALL_CRD,
  intervalLeft,
  type LiveRepo,
  liveRepoOf,
  type RepoIdentity,
  namespaceMissing,
  repoStackOf,
  repoIdentitySchema,
  refusedAbsent,
  reposPath,
  type RepoSpec,
  repoSpecSchema,
  typeMissing,
  unbindPatch,
  wantedSecretRef,
} from '../../src/kube/kube-repo';
import { cloneSecretMissing, cloneSecretMoved, cloneSecretOf } from '../../src/kube/clone-secret';
import { plannedParts, repoBasis } from '../../src/kube/repo-basis';
import { ANNOTATION_REPO_IDENTITY, ANNOTATION_REPO_STACK, LABEL_REPO_BOUND } from '../../src/kube/names';
import { type KubeClient, type KubeObject, METADATA_ONLY } from '../../src/kube/client';
import { isObjectNotFound, statusOf } from '../../src/kube/status';
import { writeRepo } from './repo-write';
import type { KubeSession } from './session';

/** Per namespace/version: its Repos by name, or `missing` when the type is not served there. */
export interface Fetched {
  readonly repos: ReadonlyMap<string, ReadonlyMap<string, KubeObject> | 'type-missing'>;
  readonly secrets: ReadonlySet<string>;
  readonly cluster: string;
  /** The namespaces of absent Repos that the cluster says it lacks (unknown to an identity that may not read them). */
  readonly missingNamespaces?: ReadonlySet<string>;
}

const where = (spec: Pick<RepoSpec, 'namespace' | 'version'>) => `${spec.namespace}/${spec.version}`;
const secretsPath = (namespace: string, name: string) => `/api/v1/namespaces/${namespace}/secrets/${name}`;

export const repoKind = defineKind({
  spec: repoSpecSchema,
  identity: repoIdentitySchema,

  async fetch({ client, cluster }: KubeSession, specs: readonly RepoSpec[]): Promise<Fetched> {
    const repos = new Map<string, ReadonlyMap<string, KubeObject> | 'type-missing'>();
    for (const spec of specs) {
      if (repos.has(where(spec))) continue;
      repos.set(where(spec), await client.listByName(reposPath(spec.namespace, spec.version)));
    }
    const secrets = new Set<string>();
    for (const spec of specs) {
      const secret = cloneSecretOf(spec);
      const key = `${spec.namespace}/${secret}`;
      if (secret === undefined || secrets.has(key)) continue;
      if (await client.exists(secretsPath(spec.namespace, secret), secret)) secrets.add(key);
    }
    return { repos, secrets, cluster, missingNamespaces: await missingNamespaces(client, specs, repos) };
  },

  read(spec: RepoSpec, fetched: Fetched, context: KindContext): Reading {
    const repos = fetched.repos.get(where(spec));
    if (repos === 'type-missing') return refusedAbsent(typeMissing(fetched.cluster), INSTALL_CRD);
    const live = repos?.get(spec.key);
    if (live === undefined && fetched.missingNamespaces?.has(spec.namespace) === true)
      return refusedAbsent(namespaceMissing(spec.namespace, fetched.cluster), CREATE_NAMESPACE);
    const exists = (secret: string) => fetched.secrets.has(`${spec.namespace}/${secret}`);
    const basis = repoBasis(spec, live === undefined ? undefined : liveRepoOf(live), exists);
    const missing = cloneSecretMissing(spec, exists);
    const absent = missing === undefined ? 'absent' : `absent; ${missing}`;
    if (live === undefined) return { inSync: false, summary: absent, diff: {}, basis };
    const repo = liveRepoOf(live);
    const diff = diffRepo(spec, wantedSecretRef(spec, exists), repo, context.stack);
    const inSync = Object.keys(diff).length === 0;
    // The interval, set at create only, and a Repo being deleted: the apply leaves the one and refuses the other.
    const left = [intervalLeft(spec, repo), deletionLeft(repo)].filter((note) => note !== undefined);
    const summary = [
      inSync ? 'in sync' : describeDiff(diff),
      ...left,
      ...(missing === undefined ? [] : [missing]),
    ].join('; ');
    return { inSync, summary, diff, basis, ...(left.length === 0 ? {} : { converges: false }) };
  },

  // A Repo carrying neither of the stack's marks (the bound label, the identity annotation) was not created
  // by a stack: every version sets both on create and restate, and destroy takes both off.
  foreign(spec: RepoSpec, fetched: Fetched): boolean {
    const live = liveRepo(spec, fetched);
    return live !== undefined && !hasMark(live);
  },

  // The stack the Repo's stack annotation names; an earlier version's Repo names none and counts as this stack's.
  markedBy: (spec: RepoSpec, fetched: Fetched): string | undefined => {
    const live = liveRepo(spec, fetched);
    return live === undefined ? undefined : repoStackOf(live);
  },

  apply: (session: KubeSession, spec: RepoSpec, context: KindContext) => apply(session, spec, context),
  destroy: (session: KubeSession, identity: RepoIdentity, context: KindContext) => destroy(session, identity, context),

  // An apply is a create and a read back, mostly waiting on the API server: 300 Repos took 3.5 s eight at a
  // time, 4.0 s one by one (measured, medians of 6, the API server on the same loaded 2-core machine).
  applyConcurrency: 8,
});

/**
 * The namespaces of the Repos a list did not find that the cluster lacks. A list in a missing namespace answers 200
 * with no items, and a create there 404, so the plan read `absent` of a Repo no apply could make. Read as metadata;
 * an identity the API refuses namespaces to (a Role grants `get` on its own namespace only) learns nothing.
 */
const missingNamespaces = async (
  client: KubeClient,
  specs: readonly RepoSpec[],
  repos: Fetched['repos'],
): Promise<ReadonlySet<string>> => {
  const absent = (spec: RepoSpec) => {
    const found = repos.get(where(spec));
    return found !== 'type-missing' && found?.has(spec.key) !== true;
  };
  const missing = new Set<string>();
  for (const namespace of new Set(specs.filter(absent).map((spec) => spec.namespace))) {
    const answer = await client.send('GET', `/api/v1/namespaces/${namespace}`, undefined, undefined, METADATA_ONLY);
    if (answer.status === 404 && isObjectNotFound(statusOf(answer.raw), namespace)) missing.add(namespace);
  }
  return missing;
};

const liveRepo = (spec: RepoSpec, fetched: Fetched): LiveRepo | undefined => {
  const repos = fetched.repos.get(where(spec));
  const live = repos === 'type-missing' ? undefined : repos?.get(spec.key);
  return live === undefined ? undefined : liveRepoOf(live);
};

const hasMark = (live: LiveRepo): boolean =>
  live.metadata?.labels?.[LABEL_REPO_BOUND] !== undefined ||
  live.metadata?.annotations?.[ANNOTATION_REPO_IDENTITY] !== undefined ||
  live.metadata?.annotations?.[ANNOTATION_REPO_STACK] !== undefined;

const apply = async (session: KubeSession, spec: RepoSpec, context: KindContext) => {
  const { client } = session;
  const name = `Repo ${spec.namespace}/${spec.key}`;
  const httpsSecret = cloneSecretOf(spec);
  const present =
    httpsSecret !== undefined && (await client.exists(secretsPath(spec.namespace, httpsSecret), httpsSecret));
  // The plan's reading of the clone Secret decided the secretRef it showed: one that moved since is refused.
  const planned = plannedParts(context.basis);
  const moved = cloneSecretMoved(name, spec, planned.secret, present);
  if (moved !== undefined) throw moved;
  const ref = wantedSecretRef(spec, () => present);
  await writeRepo(session, spec, ref, planned.repo, context);
  const after = await client.get(reposPath(spec.namespace, spec.version, spec.key));
  const left = diffRepo(spec, ref, liveRepoOf(after), context.stack);
  if (Object.keys(left).length > 0) {
    throw new HandlerError(`${name} did not converge`, `the API accepted the write but ${describeDiff(left)}`);
  }
};

const destroy = async ({ client, cluster }: KubeSession, identity: RepoIdentity, { log, stack }: KindContext) => {
  const name = `Repo ${identity.namespace}/${identity.key}`;
  const path = reposPath(identity.namespace, identity.version, identity.key);
  const found = await client.getOptional(path, identity.key);
  if (found === undefined) return log(`${name}: already absent`);
  const live = liveRepoOf(found);
  if (!hasMark(live)) {
    return log(`${name}: carries no mark of this stack (made by someone else, never adopted): left as it is`);
  }
  const markStack = repoStackOf(live);
  if (destroyLeaves(markStack, stack)) return log(`${name} on ${cluster}: ${leftByStack(markStack, stack)}`);
  const resourceVersion = live.metadata?.resourceVersion;
  const method = identity.deleteOnDestroy ? 'DELETE' : 'PATCH';
  const answer = identity.deleteOnDestroy
    ? await client.send('DELETE', path, { preconditions: { resourceVersion } })
    : await client.send('PATCH', path, unbindPatch(resourceVersion), 'application/merge-patch+json');
  if (answer.status === 404) return log(`${name}: already absent`);
  client.expectObject(method, path, answer);
  log(identity.deleteOnDestroy ? `${name}: deleted` : `${name}: unlabelled, the Repo and its cache left in place`);
};
