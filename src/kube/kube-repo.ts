/**
 * A Repo custom resource as a stack states it (the stack is its "boot"): its spec and identity schemas (from its
 * declaration, repo-fields.ts, so synth and the handler boundary judge by the same rules), the credential matched by
 * prefix on the identity, and the pure diff of what the stack owns (spec.url, spec.secretRef, the bound label, the
 * identity annotation, and the stack annotation naming which stack's it is), so a plan says in words what a hand
 * edit changed.
 */
import * as z from 'zod/mini';
import { HandlerError } from '../core/errors';
import type { Reading } from '../core/kind';
import { identitySchema, specSchema } from '../core/fields';
import type { FieldChange, FieldDiff } from '../core/protocol';
import { isRecord } from '../core/records';
import { hideQuery, liveUrlShown, SCP_LIKE } from './clone-url';
import { ANNOTATION_REPO_IDENTITY, ANNOTATION_REPO_STACK, CR_GROUP, LABEL_REPO_BOUND, REPOS } from './names';
import { type KubeRepoCredential, REPO_FIELDS } from './repo-fields';

export const REPO_TYPE = `${REPOS}.${CR_GROUP}`;

/** The spec a `KubeRepo` synthesizes, judged field by field by its declaration (repo-fields.ts). */
export const repoSpecSchema = specSchema(REPO_FIELDS, 'a Repo spec');
export type RepoSpec = z.infer<typeof repoSpecSchema>;

/** What destroy gets: the Repo's names and what to do with it. */
export const repoIdentitySchema = identitySchema(REPO_FIELDS, 'a Repo identity');
export type RepoIdentity = z.infer<typeof repoIdentitySchema>;

/** The entry whose `match` is the longest prefix of the identity (the most specific wins); none when none match. */
export const matchCredential = (
  identity: string,
  credentials: readonly KubeRepoCredential[],
): KubeRepoCredential | undefined =>
  credentials
    .filter((c) => identity.startsWith(c.match))
    .reduce<KubeRepoCredential | undefined>(
      (best, c) => (best && best.match.length >= c.match.length ? best : c),
      none,
    );

const none: KubeRepoCredential | undefined = undefined;

/** Which transport a url clones over: `ssh://` or scp-like `user@host:path`, else `https://`; others need none. */
export const schemeOf = (url: string): 'ssh' | 'https' | undefined => {
  if (/^ssh:\/\//i.test(url) || SCP_LIKE.test(url)) return 'ssh';
  return /^https:\/\//i.test(url) ? 'https' : undefined;
};

/** The Secret the url's scheme needs from the matched entry: ssh names a deploy key, https a clone Secret. */
export const credentialSecretFor = (url: string, credential: KubeRepoCredential | undefined) => {
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
    /** Set once the Repo was deleted and finalizers hold it: it goes when they are done, whatever is declared. */
    readonly deletionTimestamp?: string;
    readonly finalizers?: readonly string[];
  };
  readonly spec?: {
    readonly url?: unknown;
    readonly secretRef?: { readonly name?: unknown };
    readonly refreshInterval?: unknown;
  };
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
      ...(typeof metadata.deletionTimestamp === 'string' && { deletionTimestamp: metadata.deletionTimestamp }),
      ...(Array.isArray(metadata.finalizers) && {
        finalizers: metadata.finalizers.filter((item): item is string => typeof item === 'string'),
      }),
    },
    spec: spec && { url: spec.url, secretRef, refreshInterval: spec.refreshInterval },
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
  const note = (field: string, live: unknown, want: unknown, shown = live) => {
    if (live !== want) diff[field] = { live: shown ?? null, want: want ?? null };
  };
  // Compared as read, shown redacted: a url differing only in its credential still differs.
  note('spec.url', live.spec?.url, spec.url, liveUrlShown(live.spec?.url));
  // One set by hand without a name (`secretRef: {}`) is not the absent one the stack states: what a controller makes
  // of it is unknown, so it is drift, shown as it is.
  const liveRef = live.spec?.secretRef;
  note('spec.secretRef', liveRef === undefined ? undefined : (liveRef.name ?? {}), secretRef?.name);
  note(`label ${LABEL_REPO_BOUND}`, live.metadata?.labels?.[LABEL_REPO_BOUND], 'true');
  // A hand-written identity may hold a token in a query the identity rule refuses: shown hidden, compared as read.
  const liveIdentity = live.metadata?.annotations?.[ANNOTATION_REPO_IDENTITY];
  note(`annotation ${ANNOTATION_REPO_IDENTITY}`, liveIdentity, spec.identity, liveIdentity && hideQuery(liveIdentity));
  if (stack !== undefined) note(`annotation ${ANNOTATION_REPO_STACK}`, repoStackOf(live), stack);
  // Regression: a Repo deleted and held by a finalizer read in sync, and the apply restated it: it went anyway.
  note('metadata.deletionTimestamp', live.metadata?.deletionTimestamp, undefined);
  return diff;
};

/** What the cache agent fetches at when a Repo sets no spec.refreshInterval (seed 004: "Default `5m`"). */
const AGENT_REFRESH_INTERVAL = '5m';

/**
 * The live spec.refreshInterval when it is not the declared one: set at create only, the apply never writes it, so a
 * plan reading the Repo in sync (or naming other drift) and an apply restating it say so rather than imply it. An
 * unset one runs at the agent's default: a Repo made elsewhere and adopted with the construct's default read as
 * differing (test/e2e/discover.test.ts).
 */
export const intervalLeft = (spec: RepoSpec, live: LiveRepo): string | undefined => {
  const have = live.spec?.refreshInterval;
  if ((have ?? AGENT_REFRESH_INTERVAL) === spec.refreshInterval) return undefined;
  const shown = have === undefined ? 'unset' : JSON.stringify(have);
  const declared = JSON.stringify(spec.refreshInterval);
  return `spec.refreshInterval is ${shown}, declared ${declared}: set at create only, so the apply leaves it`;
};

/**
 * Why the apply cannot make `live` as declared, if it cannot: deleted and held by its finalizers, it goes once they
 * are done whatever a write says, and no create can come before.
 */
export const terminating = (name: string, live: LiveRepo): HandlerError | undefined => {
  const since = live.metadata?.deletionTimestamp;
  if (since === undefined) return undefined;
  return new HandlerError(
    `${name} is being deleted`,
    `deleted at ${since}, held by ${heldBy(live)}: it goes once they are done, and the next apply creates it ` +
      'again; nothing was written',
  );
};

/** What a plan says of a Repo being deleted besides its diff: the apply refuses it (`terminating`) until it is gone. */
export const deletionLeft = (live: LiveRepo): string | undefined =>
  live.metadata?.deletionTimestamp === undefined
    ? undefined
    : `the apply refuses it while it is being deleted (held by ${heldBy(live)}), and creates it once it is gone`;

const heldBy = (live: LiveRepo): string => {
  const held = (live.metadata?.finalizers ?? []).map((finalizer) => JSON.stringify(finalizer)).join(', ');
  return held === '' ? 'its finalizers' : `the finalizers ${held}`;
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

/** Why no Repo can be created in `namespace`: the cluster lacks it (a stack never creates namespaces). */
export const namespaceMissing = (namespace: string, cluster: string) =>
  `the namespace ${namespace} does not exist on ${cluster}`;

export const typeMissing = (cluster: string) => `the Repo type (${REPO_TYPE}) is not installed on ${cluster}`;

/** What to do about each, as the apply's refusal says it. */
export const CREATE_NAMESPACE = 'create it first';
export const INSTALL_CRD = 'install its CRD first';

/** A plan's reading of a Repo no apply can create, `why` naming the cause: the apply refuses it, as it will. */
export const refusedAbsent = (why: string, fix: string): Reading => ({
  inSync: false,
  summary: `absent: ${why}, so the apply refuses it; ${fix}`,
  diff: {},
  converges: false,
});
