/**
 * A Repo custom resource as a stack states it (the stack is its "boot"): the spec the handler re-checks, the
 * credential matched by prefix on the identity, and the pure diff of the four things the stack owns (spec.url,
 * spec.secretRef, the bound label, the identity annotation), so a plan says in words what a hand edit changed.
 */
import * as z from 'zod/mini';
import type { FieldChange, FieldDiff } from '../core/protocol';
import { cloneUrlProblem, redactUrl } from './clone-url';
import { ANNOTATION_REPO_IDENTITY, CR_GROUP, LABEL_REPO_BOUND, REPOS } from './names';

export const DEFAULT_REPO_VERSION = 'v1alpha1';
export const DEFAULT_REFRESH_INTERVAL = '5m';
export const REPO_TYPE = `${REPOS}.${CR_GROUP}`;

export const dnsName = z.string().check(z.regex(/^[a-z0-9]([-a-z0-9.]{0,251}[a-z0-9])?$/, 'a DNS subdomain name'));
const secretName = z.object({ secret: dnsName });
/** A custom resource version: `v1`, `v1alpha1`, `v2beta3`. */
export const crVersion = z
  .string()
  .check(z.regex(/^v[0-9]+((alpha|beta)[0-9]+)?$/, 'a Kubernetes API version such as v1alpha1'));

export const credentialSchema = z.object({
  match: z.string().check(z.minLength(1), z.maxLength(1024)),
  ssh: z.optional(secretName),
  https: z.optional(secretName),
});
export type GitCredential = z.infer<typeof credentialSchema>;

export const repoSpecSchema = z.object({
  namespace: dnsName,
  key: dnsName,
  version: crVersion,
  url: z.string().check(
    z.superRefine((url, ctx) => {
      const rule = cloneUrlProblem(url);
      if (rule !== undefined) ctx.addIssue({ code: 'custom', message: `must be ${rule}, got "${redactUrl(url)}"` });
    }),
  ),
  identity: z.string().check(z.minLength(1), z.maxLength(1024)),
  credentials: z.array(credentialSchema),
  refreshInterval: z.string().check(z.regex(/^([0-9]+(\.[0-9]+)?(ns|us|µs|ms|s|m|h))+$/, 'a Go duration')),
});
export type RepoSpec = z.infer<typeof repoSpecSchema>;

export const repoIdentitySchema = z.object({
  namespace: dnsName,
  key: dnsName,
  version: z.string(),
  deleteOnDestroy: z.boolean(),
});
export type RepoIdentity = z.infer<typeof repoIdentitySchema>;

/** The entry whose `match` is the longest prefix of the identity (the most specific wins); none when none match. */
export const matchCredential = (identity: string, credentials: readonly GitCredential[]): GitCredential | undefined =>
  credentials
    .filter((c) => identity.startsWith(c.match))
    .reduce<GitCredential | undefined>((best, c) => (best && best.match.length >= c.match.length ? best : c), none);

const none: GitCredential | undefined = undefined;

/** Which transport a url clones over: `ssh://` or scp-like `user@host:path`, else `https://`; others need none. */
export const schemeOf = (url: string): 'ssh' | 'https' | undefined => {
  if (/^ssh:\/\//i.test(url) || /^[^/:@\s]+@[^/:\s]+:(?!\/\/)/.test(url)) return 'ssh';
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
    readonly labels?: Readonly<Record<string, string>>;
    readonly annotations?: Readonly<Record<string, string>>;
  };
  readonly spec?: { readonly url?: unknown; readonly secretRef?: { readonly name?: unknown } };
}

/** What differs between the stack's statement and the live Repo, by field, never a secret. */
export const diffRepo = (spec: RepoSpec, secretRef: { name: string } | undefined, live: LiveRepo): FieldDiff => {
  const diff: Record<string, FieldChange> = {};
  const note = (field: string, live: unknown, want: unknown) => {
    if (live !== want) diff[field] = { live: live ?? null, want: want ?? null };
  };
  note('spec.url', live.spec?.url, spec.url);
  note('spec.secretRef', live.spec?.secretRef?.name, secretRef?.name);
  note(`label ${LABEL_REPO_BOUND}`, live.metadata?.labels?.[LABEL_REPO_BOUND], 'true');
  note(`annotation ${ANNOTATION_REPO_IDENTITY}`, live.metadata?.annotations?.[ANNOTATION_REPO_IDENTITY], spec.identity);
  return diff;
};

/** The merge patch that restates exactly what the stack owns; nothing else of the Repo is touched. */
export const restatePatch = (spec: RepoSpec, secretRef: { name: string } | undefined) => ({
  metadata: { labels: { [LABEL_REPO_BOUND]: 'true' }, annotations: { [ANNOTATION_REPO_IDENTITY]: spec.identity } },
  spec: { url: spec.url, secretRef: secretRef ?? null },
});

/** The whole Repo a create sends: the restated fields and the refresh interval. */
export const createBody = (spec: RepoSpec, secretRef: { name: string } | undefined) => ({
  apiVersion: `${CR_GROUP}/${spec.version}`,
  kind: 'Repo',
  metadata: {
    name: spec.key,
    namespace: spec.namespace,
    labels: { [LABEL_REPO_BOUND]: 'true' },
    annotations: { [ANNOTATION_REPO_IDENTITY]: spec.identity },
  },
  spec: { url: spec.url, ...(secretRef ? { secretRef } : {}), refreshInterval: spec.refreshInterval },
});

/** The merge patch destroy sends: the stack's marks removed, the Repo and its cache left. */
export const unbindPatch = () => ({
  metadata: { labels: { [LABEL_REPO_BOUND]: null }, annotations: { [ANNOTATION_REPO_IDENTITY]: null } },
});

export const reposPath = (namespace: string, version: string, name?: string) =>
  `/apis/${CR_GROUP}/${version}/namespaces/${namespace}/${REPOS}${name === undefined ? '' : `/${name}`}`;

export const typeMissing = (cluster: string) => `the Repo type (${REPO_TYPE}) is not installed on ${cluster}`;
