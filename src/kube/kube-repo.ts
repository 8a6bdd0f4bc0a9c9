/**
 * A Repo custom resource as a stack states it (the stack is its "boot"): its props table, defaults and rules (judged
 * at synth and again at the handler boundary), the credential matched by prefix on the identity, and the pure diff
 * of what the stack owns (spec.url, spec.secretRef, the bound label, the identity annotation, and the stack
 * annotation naming which stack's it is), so a plan says in words what a hand edit changed.
 */
import * as z from 'zod/mini';
import { type PropTable, propProblems, specCheck, withDefaults } from '../core/definition';
import type { FieldChange, FieldDiff } from '../core/protocol';
import { boolean, broken, type Problem, type Rule, text } from '../core/rules';
import { cloneUrl, SCP_LIKE, shownUrl } from './clone-url';
import { ANNOTATION_REPO_IDENTITY, ANNOTATION_REPO_STACK, CR_GROUP, LABEL_REPO_BOUND, REPOS } from './names';
import { isRecord } from '../core/records';

export const REPO_TYPE = `${REPOS}.${CR_GROUP}`;

/** A Kubernetes object's name (a DNS subdomain): a namespace, a Repo, a Sandbox, a Secret. */
export const dnsName = (says = 'a DNS name'): Rule => text(says, /^[a-z0-9]([-a-z0-9.]{0,251}[a-z0-9])?$/);
/** Any text of 1 to `max` characters, newlines included. */
export const nonEmpty = (says: string, max: number): Rule => text(says, /^[\s\S]+$/, max);
/** The custom resources' version, shared with the fetch ask: `v1`, `v1alpha1`, `v2beta3`. */
export const VERSION_PROP = {
  rule: text('a Kubernetes API version such as v1alpha1', /^v[0-9]+((alpha|beta)[0-9]+)?$/),
  default: 'v1alpha1',
};

const SECRET_REF = 'an object naming a Secret: { secret: <name> }';
const secretRef: Rule = (value) => (isRecord(value) ? undefined : SECRET_REF);

/** Every prop of `KubeRepo` of its own (the cluster and `retired` are the construct's). */
export const REPO_PROPS = {
  namespace: { rule: dnsName(), required: true },
  key: { rule: dnsName(), required: true },
  url: { rule: cloneUrl, required: true, shown: shownUrl },
  identity: { rule: nonEmpty('a non-empty string of at most 1024 characters', 1024), required: true },
  credentials: { rule: (value) => (Array.isArray(value) ? undefined : 'a list of credentials'), default: [] },
  refreshInterval: {
    rule: text('a Go duration such as 5m or 1h30m', /^([0-9]+(\.[0-9]+)?(ns|us|µs|ms|s|m|h))+$/),
    default: '5m',
  },
  version: VERSION_PROP,
  deleteOnDestroy: { rule: boolean, default: false },
} as const satisfies PropTable;

/** One entry of `credentials`, and the Secret it names for a scheme. */
const CREDENTIAL_PROPS: PropTable = {
  match: { rule: nonEmpty('a non-empty prefix of at most 1024 characters', 1024), required: true },
  ssh: { rule: secretRef },
  https: { rule: secretRef },
};
const SECRET_REF_PROPS: PropTable = { secret: { rule: dnsName('a Secret name'), required: true } };

const within = (at: string, problems: readonly Problem[]): Problem[] =>
  problems.map((problem) => ({ ...problem, prop: `${at}.${problem.prop}` }));

/**
 * The broken rules inside `credentials`, each named where it is (`credentials[0].ssh.secret`); `known` as in
 * `propProblems`. The table's rule only says that credentials is a list.
 */
export const credentialProblems = (credentials: unknown, known?: (value: unknown) => boolean): Problem[] => {
  if (!Array.isArray(credentials)) return [];
  return credentials.flatMap((entry: unknown, i) => {
    const at = `credentials[${i}]`;
    if (!isRecord(entry)) return [broken(at, 'an object { match, ssh?, https? }', entry)];
    const refs = (['ssh', 'https'] as const).filter((scheme) => isRecord(entry[scheme]));
    return [
      ...within(at, propProblems('a credential', CREDENTIAL_PROPS, entry, known)),
      ...refs.flatMap((scheme) =>
        within(`${at}.${scheme}`, propProblems(SECRET_REF, SECRET_REF_PROPS, entry[scheme], known)),
      ),
    ];
  });
};

const secretName = z.object({ secret: z.string() });
export const credentialSchema = z.object({
  match: z.string(),
  ssh: z.optional(secretName),
  https: z.optional(secretName),
});
export type GitCredential = z.infer<typeof credentialSchema>;

/** The spec a `KubeRepo` synthesizes; its values judged by the props' rules. */
export const repoSpecSchema = z
  .object({
    namespace: z.string(),
    key: z.string(),
    version: z.string(),
    url: z.string(),
    identity: z.string(),
    credentials: z.array(credentialSchema),
    refreshInterval: z.string(),
  })
  .check(
    specCheck((spec: Readonly<Record<string, unknown>>) => [
      ...propProblems('a Repo spec', REPO_PROPS, spec),
      ...credentialProblems(spec.credentials),
    ]),
  );
export type RepoSpec = z.infer<typeof repoSpecSchema>;

const { namespace, key, version, deleteOnDestroy } = REPO_PROPS;
const IDENTITY_PROPS: PropTable = { namespace, key, version, deleteOnDestroy };
/** What destroy gets: the Repo's names and what to do with it. */
export const repoIdentitySchema = z
  .object({ namespace: z.string(), key: z.string(), version: z.string(), deleteOnDestroy: z.boolean() })
  .check(specCheck((identity: object) => propProblems('a Repo identity', IDENTITY_PROPS, identity)));
export type RepoIdentity = z.infer<typeof repoIdentitySchema>;

/** What a Repo's spec and identity are made of: `KubeRepoProps` without the cluster. */
export type RepoSettings = Pick<RepoSpec, 'namespace' | 'key' | 'url' | 'identity'> &
  Partial<Pick<RepoSpec, 'refreshInterval' | 'version'>> & {
    readonly credentials?: readonly GitCredential[];
    readonly deleteOnDestroy?: boolean;
  };

/** The props with their defaults applied (the one place they are), as the spec and the identity. */
export const repoOf = (props: RepoSettings): { spec: RepoSpec; identity: RepoIdentity } => {
  const full = withDefaults(REPO_PROPS, props);
  const names = { namespace: full.namespace, key: full.key, version: full.version };
  const credentials = full.credentials.map((c) => ({
    match: c.match,
    ...(c.ssh ? { ssh: { secret: c.ssh.secret } } : {}),
    ...(c.https ? { https: { secret: c.https.secret } } : {}),
  }));
  const { url, identity, refreshInterval } = full;
  return {
    spec: { ...names, url, identity, credentials, refreshInterval },
    identity: { ...names, deleteOnDestroy: full.deleteOnDestroy },
  };
};

/** The entry whose `match` is the longest prefix of the identity (the most specific wins); none when none match. */
export const matchCredential = (identity: string, credentials: readonly GitCredential[]): GitCredential | undefined =>
  credentials
    .filter((c) => identity.startsWith(c.match))
    .reduce<GitCredential | undefined>((best, c) => (best && best.match.length >= c.match.length ? best : c), none);

const none: GitCredential | undefined = undefined;

/** Which transport a url clones over: `ssh://` or scp-like `user@host:path`, else `https://`; others need none. */
export const schemeOf = (url: string): 'ssh' | 'https' | undefined => {
  if (/^ssh:\/\//i.test(url) || SCP_LIKE.test(url)) return 'ssh';
  return /^https:\/\//i.test(url) ? 'https' : undefined;
};

/** The Secret the url's scheme needs from the matched entry: ssh names a deploy key, https a clone Secret. */
export const credentialSecretFor = (url: string, credential: GitCredential | undefined) => {
  const scheme = schemeOf(url);
  const secret = scheme === undefined ? undefined : credential?.[scheme]?.secret;
  return scheme === undefined || secret === undefined ? undefined : { kind: scheme, secret };
};

/** The secretRef the stack states, given which clone Secrets exist (an https Secret only when it exists). */
export const wantedSecretRef = (spec: RepoSpec, exists: (secret: string) => boolean) => {
  const cred = credentialSecretFor(spec.url, matchCredential(spec.identity, spec.credentials));
  if (cred === undefined) return undefined;
  return cred.kind === 'ssh' || exists(cred.secret) ? { name: cred.secret } : undefined;
};

/** A Repo as the API answers it: the fields the stack owns. */
export interface LiveRepo {
  readonly metadata?: {
    readonly resourceVersion?: string;
    readonly labels?: Readonly<Record<string, string>>;
    readonly annotations?: Readonly<Record<string, string>>;
  };
  readonly spec?: { readonly url?: unknown; readonly secretRef?: { readonly name?: unknown } };
}

/** A label or annotation map's string entries (the API holds no other). */
const stringEntries = (value: unknown): Readonly<Record<string, string>> | undefined =>
  isRecord(value)
    ? Object.fromEntries(
        Object.entries(value).filter((entry): entry is [string, string] => typeof entry[1] === 'string'),
      )
    : undefined;

/** The owned fields of a Repo as the API answered it, read without trusting the answer's shape. */
export const liveRepoOf = (object: unknown): LiveRepo => {
  const metadata = isRecord(object) && isRecord(object.metadata) ? object.metadata : undefined;
  const spec = isRecord(object) && isRecord(object.spec) ? object.spec : undefined;
  const secretRef = isRecord(spec?.secretRef) ? { name: spec.secretRef.name } : undefined;
  return {
    metadata: metadata && {
      resourceVersion: typeof metadata.resourceVersion === 'string' ? metadata.resourceVersion : undefined,
      labels: stringEntries(metadata.labels),
      annotations: stringEntries(metadata.annotations),
    },
    spec: spec && { url: spec.url, secretRef },
  };
};

/**
 * What differs between the stack's statement and the live Repo, by field, never a secret. `stack`, the run's
 * stack (stack-id.ts), is compared only when known: a by-hand run and discover judge the other fields alone. A
 * Repo an earlier version marked (no stack annotation) reads as drifted once, and that apply writes it.
 */
export const diffRepo = (
  spec: RepoSpec,
  secretRef: { name: string } | undefined,
  live: LiveRepo,
  stack?: string,
): FieldDiff => {
  const diff: Record<string, FieldChange> = {};
  const note = (field: string, live: unknown, want: unknown) => {
    if (live !== want) diff[field] = { live: live ?? null, want: want ?? null };
  };
  note('spec.url', live.spec?.url, spec.url);
  note('spec.secretRef', live.spec?.secretRef?.name, secretRef?.name);
  note(`label ${LABEL_REPO_BOUND}`, live.metadata?.labels?.[LABEL_REPO_BOUND], 'true');
  note(`annotation ${ANNOTATION_REPO_IDENTITY}`, live.metadata?.annotations?.[ANNOTATION_REPO_IDENTITY], spec.identity);
  if (stack !== undefined) note(`annotation ${ANNOTATION_REPO_STACK}`, repoStackOf(live), stack);
  return diff;
};

/** The stack a Repo's stack annotation names, or undefined when it carries none (or an earlier version made it). */
export const repoStackOf = (live: LiveRepo): string | undefined => live.metadata?.annotations?.[ANNOTATION_REPO_STACK];

/** The stack's annotations: the identity, and the stack when the run knows it. */
const marks = (spec: RepoSpec, stack: string | undefined) => ({
  [ANNOTATION_REPO_IDENTITY]: spec.identity,
  ...(stack === undefined ? {} : { [ANNOTATION_REPO_STACK]: stack }),
});

/** The merge patch that restates exactly what the stack owns; nothing else of the Repo is touched. */
export const restatePatch = (spec: RepoSpec, secretRef: { name: string } | undefined, stack?: string) => ({
  metadata: { labels: { [LABEL_REPO_BOUND]: 'true' }, annotations: marks(spec, stack) },
  spec: { url: spec.url, secretRef: secretRef ?? null },
});

/** The whole Repo a create sends: the restated fields and the refresh interval. */
export const createBody = (spec: RepoSpec, secretRef: { name: string } | undefined, stack?: string) => ({
  apiVersion: `${CR_GROUP}/${spec.version}`,
  kind: 'Repo',
  metadata: {
    name: spec.key,
    namespace: spec.namespace,
    labels: { [LABEL_REPO_BOUND]: 'true' },
    annotations: marks(spec, stack),
  },
  spec: { url: spec.url, ...(secretRef ? { secretRef } : {}), refreshInterval: spec.refreshInterval },
});

/**
 * The merge patch destroy sends: the stack's marks removed, the Repo and its cache left; with the
 * resourceVersion the destroy read, so the API refuses it (409) when the Repo changed since.
 */
export const unbindPatch = (resourceVersion?: string) => ({
  metadata: {
    labels: { [LABEL_REPO_BOUND]: null },
    annotations: { [ANNOTATION_REPO_IDENTITY]: null, [ANNOTATION_REPO_STACK]: null },
    ...(resourceVersion === undefined ? {} : { resourceVersion }),
  },
});

export const reposPath = (namespace: string, version: string, name?: string) =>
  `/apis/${CR_GROUP}/${version}/namespaces/${namespace}/${REPOS}${name === undefined ? '' : `/${name}`}`;

export const typeMissing = (cluster: string) => `the Repo type (${REPO_TYPE}) is not installed on ${cluster}`;
