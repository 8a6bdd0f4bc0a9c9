/**
 * A Repo's one declaration: every field with its doc, its rule, its default and whether the spec and the identity
 * carry it. The construct's props type, synth's prop table, the spec and identity the construct writes, the handler
 * boundary's schemas and discover's rebuild all come from `REPO_FIELDS`, so a field cannot exist in one of them and
 * not another, nor a rule or default be stated twice (issue 29: the list was written four times, the defaults twice).
 */
import { optional, required, type ValuesOf } from '../core/fields';
import { listOf, recordOf } from '../core/nested-fields';
import type { NestedRule } from '../core/definition';
import { show } from '../core/errors';
import { boolean, type Rule, text } from '../core/rules';
import { cloneUrl, hasQuery, hideQuery, shownUrl } from './clone-url';

/** A Kubernetes object's name (a DNS subdomain): a Repo, a Sandbox, a Secret. */
export const dnsName = (says = 'a DNS name'): Rule<string> => text(says, /^[a-z0-9]([-a-z0-9.]{0,251}[a-z0-9])?$/);

/**
 * A namespace's name: a DNS label (at most 63 characters, no dot), which the API server holds a namespace to;
 * `a.b` passed synth as a subdomain and failed only on the cluster (an audit, 2026-12-05).
 */
export const namespaceName: Rule<string> = text(
  'a namespace name (a DNS label: a-z, 0-9 and -, at most 63 characters)',
  /^[a-z0-9]([-a-z0-9]{0,61}[a-z0-9])?$/,
);
/** Any text of 1 to `max` characters, newlines included. */
export const nonEmpty = (says: string, max: number): Rule<string> => text(says, /^[\s\S]+$/, max);

/**
 * An identity names a repository by host and path: credentials match on its prefix, and the identity annotation
 * carries it onto the Repo. A query or fragment there is a token copied from a url (`...?private_token=TOKEN`),
 * which would reach the state, the annotation and the plan as the url's did (clone-url.ts NO_QUERY_RULE).
 */
export const NO_QUERY_IDENTITY_RULE =
  'free of a query (?) and a fragment (#): an identity is a host and path such as git.example/me/site, and a ' +
  'token there would reach the state, the Repo and the plan';
/** `rule` for a text free of `?` and `#`; one holding either is refused with `says`. Synth and the handler share it. */
const freeOfQuery =
  (says: string, rule: Rule<string>): Rule<string> =>
  (value) =>
    typeof value === 'string' && hasQuery(value) ? says : rule(value);
/** The identity rule. */
export const repoIdentity = freeOfQuery(
  NO_QUERY_IDENTITY_RULE,
  nonEmpty('a non-empty string of at most 1024 characters', 1024),
);
/**
 * A credential's match is a prefix of an identity, which has no query or fragment (repoIdentity): an entry whose match
 * holds one never matches, and the Repo cloned without the Secret it named, with nothing said.
 */
export const NO_QUERY_MATCH_RULE =
  'free of a query (?) and a fragment (#): a match is a prefix of an identity such as git.example/me/, which has ' +
  'neither, so this entry would never match';
/** The match rule. */
export const credentialMatch = freeOfQuery(
  NO_QUERY_MATCH_RULE,
  nonEmpty('a non-empty prefix of at most 1024 characters', 1024),
);
/** An identity or a match as a message shows it, its query hidden whichever rule it broke. */
export const shownIdentity = (value: unknown): string => show(typeof value === 'string' ? hideQuery(value) : value);

/** The custom resources' version, a field of the Repo and of the fetch ask alike. */
export const versionField = () =>
  optional({
    rule: text('a Kubernetes API version such as v1alpha1', /^v[0-9]+((alpha|beta)[0-9]+)?$/),
    default: 'v1alpha1',
    spec: true,
    identity: true,
  });

const SECRET_REF = 'an object naming a Secret: { secret: <name> }';

export const SECRET_REF_FIELDS = {
  /** The Secret's name, in the Repo's namespace. */
  secret: required({ rule: dnsName('a Secret name') }),
};

/** A Secret a credential names, by name only: no secret reaches the stack. */
export interface KubeSecretRef extends ValuesOf<typeof SECRET_REF_FIELDS> {}

const secretRef: NestedRule<KubeSecretRef> = recordOf(SECRET_REF_FIELDS, SECRET_REF, SECRET_REF);

export const CREDENTIAL_FIELDS = {
  /** A prefix of the identity, e.g. `git.example/`, with no query or fragment; the longest matching prefix wins. */
  match: required({ rule: credentialMatch, shown: shownIdentity }),
  /** For an ssh url: the deploy-key Secret. @default - none */
  ssh: optional({ rule: secretRef }),
  /** For an https url: the clone Secret, used only when that Secret exists. @default - none */
  https: optional({ rule: secretRef }),
};

/** Which clone Secret a Repo uses, by the prefix of its identity. */
export interface KubeRepoCredential extends ValuesOf<typeof CREDENTIAL_FIELDS> {}

const credential: NestedRule<KubeRepoCredential> = recordOf(CREDENTIAL_FIELDS, 'a credential');

export const REPO_FIELDS = {
  /** The namespace of the Repo (a DNS name); its Secrets are looked up there. */
  namespace: required({ rule: namespaceName, spec: true, identity: true }),
  /** The cache key: the Repo's name. */
  key: required({ rule: dnsName(), spec: true, identity: true }),
  /** The Repo CRD's version. Changing it leaves the Repo: the cluster serves the same object at either. */
  version: { ...versionField(), setting: true as const },
  /**
   * The clone url: `https://host/path`, `ssh://[user@]host/path` or `user@host:path`, with no credential, query or
   * fragment in it (a token or password belongs in the clone Secret `credentials` names).
   */
  url: required({ rule: cloneUrl, shown: shownUrl, spec: true }),
  /**
   * The repository's identity, its host and path (e.g. `git.example/me/site`): what credentials match on. No query or
   * fragment: a token belongs in the clone Secret `credentials` names.
   */
  identity: required({ rule: repoIdentity, shown: shownIdentity, spec: true }),
  /** The clone Secrets by identity prefix, by name only: no secret reaches the stack; none clones anonymously. */
  credentials: optional({ rule: listOf(credential, 'a list of credentials'), default: [], spec: true }),
  /** spec.refreshInterval, set when the Repo is created. */
  refreshInterval: optional({
    rule: text('a Go duration such as 5m or 1h30m', /^([0-9]+(\.[0-9]+)?(ns|us|µs|ms|s|m|h))+$/),
    default: '5m',
    spec: true,
  }),
  /**
   * Delete the Repo on destroy instead of only unlabelling it. Either way destroy acts only on a Repo
   * carrying the stack's marks: one the apply refused as someone else's is left as it is. Changing it
   * leaves the Repo as it is; a destroy then does what the last apply recorded.
   *
   * Known at synth: a Terraform value is refused, since the stack's record and the destroy hook keep it, both
   * written at synth.
   */
  deleteOnDestroy: optional({
    rule: boolean,
    default: false,
    identity: true,
    setting: true,
    atSynth: "the stack's record and the destroy hook keep it, both written at synth",
  }),
};
