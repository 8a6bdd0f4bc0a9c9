/**
 * A Repo custom resource (core.jr2.dev) the stack states: created if missing and never overwritten, then its
 * spec.url and spec.secretRef restated, the bound label and identity annotation set. Destroy unlabels and leaves
 * the Repo and its cache unless deleteOnDestroy. Credentials are Secret names, never their contents.
 */
import { Construct } from 'constructs';
import { DEFAULT_REFRESH_INTERVAL, DEFAULT_REPO_VERSION, type GitCredential, type RepoSpec } from '../../src/kube/repo';
import { declareObject } from '../core/declare-object';
import type { ManagedObject } from '../core/managed-object';
import type { RetiredObject } from '../core/retired-object';
import { check, checkPattern } from '../core/validate';
import type { KubeCluster } from './cluster';
import { checkCloneUrl, checkCluster, checkRequired } from './validate';

export interface KubeRepoCredential {
  /** A prefix of the identity, e.g. `git.example/`; the longest matching prefix wins. */
  readonly match: string;
  /** For an ssh url: the deploy-key Secret's name. @default - none */
  readonly ssh?: { readonly secret: string };
  /** For an https url: the clone Secret's name, used only when that Secret exists. @default - none */
  readonly https?: { readonly secret: string };
}

export interface KubeRepoProps {
  readonly cluster: KubeCluster;
  readonly namespace: string;
  /** The cache key: the Repo's name. */
  readonly key: string;
  /**
   * The clone url: `https://host/path`, `ssh://[user@]host/path` or `user@host:path`, with no credential in it
   * (a token or password belongs in the clone Secret `credentials` names).
   */
  readonly url: string;
  /** The repository's identity, e.g. `git.example/me/site`: what credentials match on. */
  readonly identity: string;
  /** @default - none: the clone is anonymous */
  readonly credentials?: KubeRepoCredential[];
  /** spec.refreshInterval, set when the Repo is created. @default "5m" */
  readonly refreshInterval?: string;
  /** The Repo CRD's version. @default "v1alpha1" */
  readonly version?: string;
  /** Delete the Repo on destroy instead of only unlabelling it. @default false */
  readonly deleteOnDestroy?: boolean;
  /** Retire it: the next apply runs destroy and drops it from the state. @default false */
  readonly retired?: boolean;
}

const DNS = /^[a-z0-9]([-a-z0-9.]{0,251}[a-z0-9])?$/;

export class KubeRepo extends Construct {
  readonly object: ManagedObject | RetiredObject;

  constructor(scope: Construct, id: string, props: KubeRepoProps) {
    super(scope, id);
    checkCluster(this, props.cluster);
    checkRequired(this, 'namespace', props.namespace, DNS, 'a DNS name');
    checkRequired(this, 'key', props.key, DNS, 'a DNS name');
    checkCloneUrl(this, props.url);
    check(this, typeof props.identity === 'string' && props.identity !== '', 'identity', 'non-empty', props.identity);
    for (const cred of props.credentials ?? []) {
      check(this, cred.match !== '', 'credentials[].match', 'a non-empty prefix', cred.match);
      for (const secret of [cred.ssh?.secret, cred.https?.secret]) {
        checkPattern(this, 'credentials[].secret', secret, DNS, 'a Secret name');
      }
    }
    const version = props.version ?? DEFAULT_REPO_VERSION;
    const credentials: GitCredential[] = (props.credentials ?? []).map((c) => ({
      match: c.match,
      ...(c.ssh ? { ssh: { secret: c.ssh.secret } } : {}),
      ...(c.https ? { https: { secret: c.https.secret } } : {}),
    }));
    const spec: RepoSpec = {
      namespace: props.namespace,
      key: props.key,
      version,
      url: props.url,
      identity: props.identity,
      credentials,
      refreshInterval: props.refreshInterval ?? DEFAULT_REFRESH_INTERVAL,
    };
    const deleteOnDestroy = props.deleteOnDestroy === true;
    this.object = declareObject(this, {
      kind: 'kube-repo',
      targetConstruct: props.cluster,
      target: { ...props.cluster.target },
      identity: { namespace: props.namespace, key: props.key, version, deleteOnDestroy },
      spec: { ...spec, credentials: credentials.map((c) => ({ ...c })) },
      retired: props.retired,
    });
  }
}
