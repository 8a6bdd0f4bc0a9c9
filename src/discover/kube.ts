/**
 * A namespace's live Repos as declarations. The identity is the Repo's identity annotation, else
 * derived from its url; its secretRef becomes a credential naming the same Secret. What a stack
 * owns of a Repo that nothing marked (the bound label, the identity annotation) is left for the
 * adoption to mark; anything else that would differ keeps the Repo out, with the reason.
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
  schemeOf,
  wantedSecretRef,
} from '../kube/kube-repo';
import { ANNOTATION_REPO_IDENTITY, LABEL_REPO_BOUND } from '../kube/names';
import { ADOPT, type Declaration, defined, type Discovered, Ref, type Skipped, type Value } from './declaration';

export interface LiveKube {
  /** The `KubeCluster` props discover connected with, and its construct id. */
  readonly cluster: Readonly<Record<string, Value>>;
  readonly clusterId: string;
  readonly version: string;
  /** Each namespace's Repos, as the API listed them. */
  readonly namespaces: ReadonlyArray<{ readonly namespace: string; readonly repos: readonly unknown[] }>;
}

const CLUSTER = 'kube';
const OWNERSHIP = new Set([`label ${LABEL_REPO_BOUND}`, `annotation ${ANNOTATION_REPO_IDENTITY}`]);

export const kubeDeclarations = (live: LiveKube): Discovered => {
  const found = live.namespaces.flatMap(({ namespace, repos }) =>
    repos.map((repo) => repoDeclaration(namespace, repo, live.version)),
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

const repoDeclaration = (namespace: string, raw: unknown, version: string): Declaration | Skipped => {
  const repo = raw as LiveRepo & { metadata?: { name?: unknown }; spec?: { refreshInterval?: unknown } };
  const key = String(repo.metadata?.name);
  const what = `Repo ${namespace}/${key}`;
  const url = repo.spec?.url;
  const annotated = repo.metadata?.annotations?.[ANNOTATION_REPO_IDENTITY];
  const identity = typeof annotated === 'string' && annotated !== '' ? annotated : identityOf(String(url));
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
  // The Secret exists or not: the read checks, and an https secretRef without one would differ; said below.
  const changes = Object.entries(
    diffRepo(
      spec,
      wantedSecretRef(spec, () => true),
      repo,
    ),
  ).filter(([field]) => !OWNERSHIP.has(field));
  if (changes.length > 0)
    return { what, why: `it would not read in sync: ${describeDiff(Object.fromEntries(changes))}` };
  const marked = repo.metadata?.labels?.[LABEL_REPO_BOUND] === 'true' && annotated === identity;
  return {
    key: `repo:${namespace}/${key}`,
    construct: 'KubeRepo',
    id: key,
    props: { cluster: new Ref(CLUSTER), ...props, ...ADOPT },
    ...(marked ? {} : { note: `${what} carries no bound label or identity annotation yet: the adoption adds them` }),
  };
};
