/**
 * A namespace's live Repos as declarations. A Repo carrying a stack's mark (the bound label, the
 * identity annotation or the stack annotation) is some stack's and is left out; the summary says which
 * stack's when the stack annotation names one (issue 27), another than the one discover writes or that
 * one. The identity is derived from the url; a secretRef becomes a credential naming the same Secret.
 * The marks are left for the adoption to write; anything else that would differ keeps the Repo out,
 * with the reason.
 */
import * as z from 'zod/mini';
import { propsOfSpec, specOf, withoutDefaults } from '../core/fields';
import { describeDiff } from '../core/protocol';
import { bounded } from '../core/parse';
import { isRecord } from '../core/records';
import { describeProblems } from '../core/rules';
import {
  credentialSecretFor,
  diffRepo,
  matchCredential,
  type RepoSpec,
  repoSpecSchema,
  repoStackOf,
  schemeOf,
  wantedSecretRef,
} from '../kube/kube-repo';
import { ANNOTATION_REPO_IDENTITY, ANNOTATION_REPO_STACK, LABEL_REPO_BOUND } from '../kube/names';
import { REPO_FIELDS } from '../kube/repo-fields';
import {
  ADOPT,
  type Declaration,
  type Discovered,
  isValue,
  markedBy,
  Ref,
  type Skipped,
  type Value,
} from './declaration';

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

/**
 * A Repo as the API lists it, parsed: a listing is a server's answer, so its shape is checked, not assumed. Labels
 * and annotations are text (the API refuses any other); the fields a rule judges stay as read, for it to name.
 */
const texts = z.optional(z.record(z.string(), z.string()));
const listedRepo = z.object({
  metadata: z.optional(z.object({ name: z.optional(z.unknown()), labels: texts, annotations: texts })),
  spec: z.optional(
    z.object({
      url: z.optional(z.unknown()),
      secretRef: z.optional(z.object({ name: z.optional(z.unknown()) })),
      refreshInterval: z.optional(z.unknown()),
    }),
  ),
});
type ListedRepo = z.infer<typeof listedRepo>;

/** The Repos of a listing that parse as one; `repoDeclaration` says why any other is left out. */
const parsedRepos = (repos: readonly unknown[]): ListedRepo[] =>
  repos.flatMap((repo) => {
    const parsed = z.safeParse(listedRepo, repo);
    return parsed.success ? [parsed.data] : [];
  });

/** Which of a stack's marks the Repo carries: every version writes them (the handler's hasMark is the same rule). */
const markOf = (repo: ListedRepo): string | undefined => {
  if (repo.metadata?.labels?.[LABEL_REPO_BOUND] !== undefined) return `it carries the label ${LABEL_REPO_BOUND}`;
  for (const annotation of [ANNOTATION_REPO_IDENTITY, ANNOTATION_REPO_STACK]) {
    if (repo.metadata?.annotations?.[annotation] !== undefined) return `it carries the annotation ${annotation}`;
  }
  return undefined;
};

/** The Secrets whose existence decides a declaration: those an unmarked Repo's https url names in its secretRef. */
export const httpsSecretsToCheck = (repos: readonly unknown[]): string[] => {
  const names = parsedRepos(repos).flatMap((repo) => {
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

/**
 * `host/path` of a clone url, without `.git`: what a Repo is usually stated for. Never its query or fragment, where a
 * token rides: the url rule refuses such a url, and a message naming the identity's own rule must not show it.
 */
export const identityOf = (url: string): string => {
  const bare = url.replace(/[?#][\s\S]*$/, '');
  const scp = /^[^@/:]+@([^:/]+):(.+)$/.exec(bare);
  const parsed = scp === null ? /^[a-z]+:\/\/(?:[^@/]*@)?([^/:]+)(?::\d+)?\/(.+)$/i.exec(bare) : scp;
  if (parsed === null) return bare;
  const [, host, path = ''] = parsed;
  return `${host}/${path.replace(/^\/+/, '').replace(/\.git$/, '')}`;
};

/** How the summary names a listed Repo: by its name, or as one without a name (a server's answer may lack it). */
const repoWhat = (namespace: string, name: unknown): string =>
  typeof name === 'string' ? `Repo ${namespace}/${name}` : `a Repo in ${namespace} without a name`;

const NO_NAME = 'its listing holds no name (metadata.name), which a Repo is declared and found by';

/** Why a listed object is not read as a Repo: the fields that did not parse, cut to a line. */
const unparsed = (namespace: string, raw: unknown, error: z.core.$ZodError): Skipped => ({
  what: repoWhat(namespace, isRecord(raw) && isRecord(raw.metadata) ? raw.metadata.name : undefined),
  why: bounded(
    `its listing is not a Repo's: ${error.issues.map((i) => `${i.path.join('.')}: ${i.message}`).join('; ')}`,
  ),
});

/**
 * The props a listed Repo states, as read: its names, url and refresh interval, the identity from the url, and its
 * secretRef as the one credential naming that Secret. The declaration's rules judge them (`specOf` then the spec
 * schema), and its defaults fill what the Repo does not say.
 */
const listedProps = (namespace: string, key: string, repo: ListedRepo, version: string) => {
  const url = repo.spec?.url;
  const identity = identityOf(String(url));
  const secret = repo.spec?.secretRef?.name;
  const scheme = typeof url === 'string' ? schemeOf(url) : undefined;
  const credentials =
    typeof secret !== 'string' || scheme === undefined ? [] : [{ match: identity, [scheme]: { secret } }];
  return { namespace, key, url, identity, credentials, refreshInterval: repo.spec?.refreshInterval, version };
};

/** The spec a listed Repo's props make, or why its props break the declaration's rules. */
const listedSpec = (props: object): RepoSpec | string => {
  const parsed = z.safeParse(repoSpecSchema, specOf(REPO_FIELDS, props));
  if (parsed.success) return parsed.data;
  return describeProblems(parsed.error.issues.map((issue) => ({ prop: issue.path.join('.'), says: issue.message })));
};

/** The props discover writes for `spec`: each field read back from it, those at their default left out. */
const writtenProps = (spec: RepoSpec): Record<string, Value> => {
  const props: Record<string, Value> = {};
  for (const [prop, value] of Object.entries(withoutDefaults(REPO_FIELDS, propsOfSpec(REPO_FIELDS, spec).props))) {
    if (isValue(value)) props[prop] = value;
  }
  return props;
};

const repoDeclaration = (
  namespace: string,
  raw: unknown,
  version: string,
  secretExists: (name: string) => boolean,
  stackId: string | undefined,
): Declaration | Skipped => {
  const parsed = z.safeParse(listedRepo, raw);
  if (!parsed.success) return unparsed(namespace, raw, parsed.error);
  const repo = parsed.data;
  const key = repo.metadata?.name;
  if (typeof key !== 'string') return { what: repoWhat(namespace, key), why: NO_NAME };
  const what = repoWhat(namespace, key);
  const mark = markOf(repo);
  if (mark !== undefined) return { what, why: `${mark}${markedBy(repoStackOf(repo), stackId)}`, group: 'managed' };
  const spec = listedSpec(listedProps(namespace, key, repo, version));
  if (typeof spec === 'string') return { what, why: spec };
  // A stack states an https secretRef only while its Secret exists: without it the first apply would remove it.
  const cred = credentialSecretFor(spec.url, matchCredential(spec.identity, spec.credentials));
  if (cred?.kind === 'https' && !secretExists(cred.secret)) {
    return {
      what,
      why:
        `its secretRef names the Secret ${cred.secret}, which is not in ${namespace}: a stack states an https ` +
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
    props: { cluster: new Ref(CLUSTER), ...writtenProps(spec), ...ADOPT },
    note: `${what} carries no bound label or identity annotation yet: the adoption adds them`,
  };
};
