/**
 * The apply's write of a Repo, held to what its plan read (repo-basis.ts): a Repo the plan read present is restated
 * only while what the stack owns reads as the plan read it, by a merge patch carrying the resourceVersion of that
 * check, so an edit landing between the check and the patch fails it (409) and is checked again; a Repo the plan
 * read absent is created, never restated over someone's. Without a plan's reading (a run by hand, an apply resource
 * an earlier version made) it creates, or restates what it finds, as before.
 */
import { HandlerError } from '../../src/core/errors';
import type { KindContext } from '../../src/core/kind';
import { type KubeClient, MERGE_PATCH } from '../../src/kube/client';
import {
  CREATE_NAMESPACE,
  createBody,
  INSTALL_CRD,
  intervalLeft,
  type LiveRepo,
  liveRepoOf,
  namespaceMissing,
  reposPath,
  type RepoSpec,
  restatePatch,
  terminating,
  typeMissing,
} from '../../src/kube/kube-repo';
import { REPO_ABSENT, repoMoved } from '../../src/kube/repo-basis';
import { isNamespaceNotFound, isObjectNotFound, statusOf } from '../../src/kube/status';
import type { KubeSession } from './session';

type SecretRef = { name: string } | undefined;

/**
 * Conflicts a restate retries: each is a write to the Repo (the cache agent's status, a field the stack leaves)
 * landing between its check and its patch; one that touched what the stack owns is refused on the next check.
 */
const RESTATES = 5;

/** Writes the Repo as `planned` (the plan's Repo reading, undefined without one) allows; throws a refusal. */
export const writeRepo = async (
  session: KubeSession,
  spec: RepoSpec,
  ref: SecretRef,
  planned: string | undefined,
  context: KindContext,
): Promise<void> => {
  if (planned === undefined || planned === REPO_ABSENT) return create(session, spec, ref, planned, context);
  const name = repoName(spec);
  for (let attempt = 1; attempt <= RESTATES; attempt++) {
    const path = reposPath(spec.namespace, spec.version, spec.key);
    const found = await session.client.getOptional(path, spec.key);
    const live = found === undefined ? undefined : liveRepoOf(found);
    const refusal = (live && terminating(name, live)) ?? repoMoved(name, planned, live);
    if (refusal !== undefined) throw refusal;
    if (await restate(session.client, spec, ref, { checked: live, again: attempt > 1 }, context)) return;
  }
  throw new HandlerError(
    `${name} cannot be applied as planned`,
    `it changed between each of ${RESTATES} reads and the restate after it (409 Conflict each time); nothing was ` +
      'written: apply again',
  );
};

const create = async (
  { client, cluster }: KubeSession,
  spec: RepoSpec,
  ref: SecretRef,
  planned: string | undefined,
  context: KindContext,
) => {
  const name = repoName(spec);
  const collection = reposPath(spec.namespace, spec.version);
  const created = await client.send('POST', collection, createBody(spec, ref, context.stack));
  if (created.status === 201 || created.status === 200) return context.log(`${name}: created`);
  if (created.status === 409 && statusOf(created.raw).reason === 'AlreadyExists') {
    const found = liveRepoOf(await client.get(reposPath(spec.namespace, spec.version, spec.key)));
    const refusal = terminating(name, found) ?? (planned === undefined ? undefined : repoMoved(name, planned, found));
    if (refusal !== undefined) throw refusal;
    return void (await restate(client, spec, ref, { found }, context));
  }
  if (created.status === 404 && isNamespaceNotFound(statusOf(created.raw), spec.namespace)) {
    throw new HandlerError(
      `${name} cannot be written`,
      `${namespaceMissing(spec.namespace, cluster)}; ${CREATE_NAMESPACE}`,
    );
  }
  if (created.status === 404 && !isObjectNotFound(statusOf(created.raw), spec.key)) {
    throw new HandlerError(`${name} cannot be written`, `${typeMissing(cluster)}; ${INSTALL_CRD}`);
  }
  throw client.error(created.raw, `POST ${collection}`);
};

/** What a restate patches against: the Repo it read, and whether an earlier try said its lines. */
interface RestateOf {
  /** The Repo as read, whose resourceVersion the patch is conditional on; none after a create's 409. */
  readonly checked?: LiveRepo;
  /** The Repo as found, for the words on its refresh interval: `checked` unless given. */
  readonly found?: LiveRepo;
  /** A try after a 409 Conflict: the first said what it restates, so the output reads as one restate. */
  readonly again?: boolean;
}

/**
 * The merge patch of what the stack owns, conditional on `checked`'s resourceVersion when given; false when the API
 * answers that the Repo changed since (409 Conflict).
 */
const restate = async (
  client: KubeClient,
  spec: RepoSpec,
  ref: SecretRef,
  { checked, found = checked, again = false }: RestateOf,
  { log, stack }: KindContext,
): Promise<boolean> => {
  const name = repoName(spec);
  const path = reposPath(spec.namespace, spec.version, spec.key);
  const resourceVersion = checked?.metadata?.resourceVersion;
  const patch = restatePatch(spec, ref, stack);
  const body = resourceVersion === undefined ? patch : { ...patch, metadata: { ...patch.metadata, resourceVersion } };
  const left = found && intervalLeft(spec, found);
  if (!again) {
    if (left !== undefined) log(`${name}: ${left}`);
    log(`${name}: exists, restating spec.url, spec.secretRef, the bound label and the identity and stack annotations`);
  }
  const answer = await client.send('PATCH', path, body, MERGE_PATCH);
  if (answer.status === 409 && resourceVersion !== undefined && statusOf(answer.raw).reason === 'Conflict') {
    log(`${name}: changed since its read (409 Conflict): reading it again`);
    return false;
  }
  client.expectObject('PATCH', path, answer);
  return true;
};

const repoName = (spec: RepoSpec) => `Repo ${spec.namespace}/${spec.key}`;
