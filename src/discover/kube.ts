/**
 * A namespace's live Repos as declarations. A Repo carrying a stack's mark (the bound label, the
 * identity annotation or the stack annotation) is some stack's and is left out; the summary says which
 * stack's when the stack annotation names one (issue 27), another than the one discover writes or that
 * one. The identity is derived from the url; a secretRef becomes a credential naming the same Secret.
 * The marks are left for the adoption to write; anything else that would differ keeps the Repo out,
 * with the reason.
 */
import { propProblems } from '../core/definition';
import { describeDiff } from '../core/protocol';
import { describeProblems } from '../core/rules';
import {
  credentialProblems,
  diffRepo,
  type LiveRepo,
  REPO_PROPS,
  repoOf,
  repoStackOf,
  schemeOf,
  wantedSecretRef,
} from '../kube/kube-repo';
import { ANNOTATION_REPO_IDENTITY, ANNOTATION_REPO_STACK, LABEL_REPO_BOUND } from '../kube/names';
import { ADOPT, type Declaration, defined, type Discovered, Ref, type Skipped, type Value } from './declaration';

export interface LiveKube {
  /** The `KubeCluster` props discover connected with, and its construct id. */
  readonly cluster: Readonly<Record<string, Value>>;
  readonly clusterId: string;
  readonly version: string;
  /** Each namespace's Repos, as the API listed them. */
  readonly namespaces: ReadonlyArray<{ readonly namespace: string; readonly repos: readonly unknown[] }>;
  /** The Secrets an unmarked https Repo's secretRef names that exist, as `namespace/name` (`httpsSecretsToCheck`). */
  readonly secrets: ReadonlySet<string>;
}

const CLUSTER = 'kube';
const OWNERSHIP = new Set([`label ${LABEL_REPO_BOUND}`, `annotation ${ANNOTATION_REPO_IDENTITY}`]);

type ListedRepo = LiveRepo & {
  metadata?: { name?: unknown };
  spec?: { url?: unknown; secretRef?: { name?: unknown }; refreshInterval?: unknown };
};

/** Which of a stack's marks the Repo carries: every version writes them (the handler's hasMark is the same rule). */
const markOf = (repo: ListedRepo): string | undefined => {
  if (repo.metadata?.labels?.[LABEL_REPO_BOUND] !== undefined) return `it carries the label ${LABEL_REPO_BOUND}`;
  for (const annotation of [ANNOTATION_REPO_IDENTITY, ANNOTATION_REPO_STACK]) {
    if (repo.metadata?.annotations?.[annotation] !== undefined) return `it carries the annotation ${annotation}`;
  }
  return undefined;
};

/**
 * Which stack the Repo's stack annotation names, said after its mark: another than the one discover writes
 * (`stackId`), or that one (its own app declares it already); nothing for a Repo an earlier version marked.
 */
const whose = (repo: ListedRepo, stackId: string | undefined): string => {
  const mark = repoStackOf(repo);
  if (mark === undefined) return '';
  if (mark === stackId) return `: marked by this stack "${mark}" already`;
  return `: marked by stack "${mark}"${stackId === undefined ? '' : `, not this stack "${stackId}"`}`;
};

/** The Secrets whose existence decides a declaration: those an unmarked Repo's https url names in its secretRef. */
export const httpsSecretsToCheck = (repos: readonly unknown[]): string[] => {
  const names = (repos as ListedRepo[]).flatMap((repo) => {
    const secret = repo.spec?.secretRef?.name;
    const https = typeof repo.spec?.url === 'string' && schemeOf(repo.spec.url) === 'https';
    return markOf(repo) === undefined && https && typeof secret === 'string' ? [secret] : [];
  });
  return [...new Set(names)];
};

/** The declarations, given what was read and the identity of the stack discover writes (`--stack-id`). */
export const kubeDeclarations = (live: LiveKube, stackId?: string): Discovered => {
  const found = live.namespaces.flatMap(({ namespace, repos }) =>
    repos.map((repo) =>
      repoDeclaration(namespace, repo, live.version, (name) => live.secrets.has(`${namespace}/${name}`), stackId),
    ),
  );
  const declarations = found.filter((item): item is Declaration => 'construct' in item);
  const cluster: Declaration = { key: CLUSTER, construct: 'KubeCluster', id: live.clusterId, props: live.cluster };
  return {
    declarations: declarations.length === 0 ? [] : [cluster, ...declarations],
    skipped: found.filter((item): item is Skipped => 'why' in item),
  };
};

/** `host/path` of a clone url, without `.git`: what a Repo is usually stated for. */
export const identityOf = (url: string): string => {
  const scp = /^[^@/:]+@([^:/]+):(.+)$/.exec(url);
  const parsed = scp === null ? /^[a-z]+:\/\/(?:[^@/]*@)?([^/:]+)(?::\d+)?\/(.+)$/i.exec(url) : scp;
  return parsed === null ? url : `${parsed[1]}/${parsed[2]!.replace(/^\/+/, '').replace(/\.git$/, '')}`;
};

const repoDeclaration = (
  namespace: string,
  raw: unknown,
  version: string,
  secretExists: (name: string) => boolean,
  stackId: string | undefined,
): Declaration | Skipped => {
  const repo = raw as ListedRepo;
  const key = String(repo.metadata?.name);
  const what = `Repo ${namespace}/${key}`;
  const mark = markOf(repo);
  if (mark !== undefined) return { what, why: `${mark}${whose(repo, stackId)}`, group: 'managed' };
  const url = repo.spec?.url;
  const identity = identityOf(String(url));
  const secret = repo.spec?.secretRef?.name;
  const scheme = typeof url === 'string' ? schemeOf(url) : undefined;
  const credentials =
    typeof secret === 'string' && scheme !== undefined ? [{ match: identity, [scheme]: { secret } }] : undefined;
  const interval = repo.spec?.refreshInterval;
  const props = defined({
    namespace,
    key,
    url: url as Value,
    identity,
    credentials,
    refreshInterval:
      typeof interval === 'string' && interval !== REPO_PROPS.refreshInterval.default ? interval : undefined,
    version: version === REPO_PROPS.version.default ? undefined : version,
  });
  const problems = [...propProblems('KubeRepo', REPO_PROPS, props), ...credentialProblems(props.credentials)];
  if (problems.length > 0) return { what, why: describeProblems(problems) };
  const { spec } = repoOf(props as unknown as Parameters<typeof repoOf>[0]);
  // A stack states an https secretRef only while its Secret exists: without it the first apply would remove it.
  if (scheme === 'https' && typeof secret === 'string' && !secretExists(secret)) {
    return {
      what,
      why:
        `its secretRef names the Secret ${secret}, which is not in ${namespace}: a stack states an https ` +
        'secretRef only while its Secret exists, so the first apply would remove it; ' +
        'create the Secret and run discover again',
    };
  }
  const changes = Object.entries(diffRepo(spec, wantedSecretRef(spec, secretExists), repo)).filter(
    ([field]) => !OWNERSHIP.has(field),
  );
  if (changes.length > 0)
    return { what, why: `it would not read in sync: ${describeDiff(Object.fromEntries(changes))}` };
  return {
    key: `repo:${namespace}/${key}`,
    construct: 'KubeRepo',
    id: key,
    props: { cluster: new Ref(CLUSTER), ...props, ...ADOPT },
    note: `${what} carries no bound label or identity annotation yet: the adoption adds them`,
  };
};
