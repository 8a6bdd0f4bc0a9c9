/**
 * A Repo custom resource (core.jr2.dev) the stack states: created if missing and never overwritten, then its
 * spec.url and spec.secretRef restated, the bound label and the identity and stack annotations set. Destroy
 * unlabels and leaves the Repo and its cache unless deleteOnDestroy. Credentials are Secret names, never their
 * contents.
 */
import type { Construct } from 'constructs';
import { broken, type Problem } from '../../src/core/rules';
import { credentialProblem, shownUrl } from '../../src/kube/clone-url';
import { credentialProblems, REPO_PROPS, repoOf } from '../../src/kube/kube-repo';
import { declareObject } from '../core/declare-object';
import type { ManagedObject } from '../core/managed-object';
import { ObjectConstruct } from '../core/object-construct';
import { builtOr } from '../core/problems';
import type { RetiredObject } from '../core/retired-object';
import { knownText, OBJECT_PROPS, TAKE_OVER_PROPS, targetRule, unresolved, validateProps } from '../core/validate';
import type { KubeCluster } from './cluster';

/** Every prop, judged at synth by the kind's rules (src/kube/kube-repo.ts). */
const PROPS = {
  ...REPO_PROPS,
  ...OBJECT_PROPS,
  ...TAKE_OVER_PROPS,
  cluster: { rule: targetRule('a KubeCluster'), required: true },
};

/** Which clone Secret a Repo uses, by the prefix of its identity. */
export interface KubeRepoCredential {
  /** A prefix of the identity, e.g. `git.example/`; the longest matching prefix wins. */
  readonly match: string;
  /** For an ssh url: the deploy-key Secret's name. @default - none */
  readonly ssh?: { readonly secret: string };
  /** For an https url: the clone Secret's name, used only when that Secret exists. @default - none */
  readonly https?: { readonly secret: string };
}

export interface KubeRepoProps {
  /** The cluster to declare the Repo on. */
  readonly cluster: KubeCluster;
  /** The namespace of the Repo (a DNS name); its Secrets are looked up there. */
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
  /**
   * The clone Secrets by identity prefix, by name only: no secret reaches the stack.
   *
   * @default - none: the clone is anonymous
   */
  readonly credentials?: KubeRepoCredential[];
  /** spec.refreshInterval, set when the Repo is created. @default "5m" */
  readonly refreshInterval?: string;
  /** The Repo CRD's version. @default "v1alpha1" */
  readonly version?: string;
  /**
   * Delete the Repo on destroy instead of only unlabelling it. Either way destroy acts only on a Repo
   * carrying the stack's marks: one the apply refused as someone else's is left as it is.
   *
   * @default false
   */
  readonly deleteOnDestroy?: boolean;
  /** Retire it: the next apply runs destroy and drops it from the state. @default false */
  readonly retired?: boolean;
  /**
   * Stop managing the Repo and leave it on the cluster, labelled as it is: the next apply drops it from the state only,
   * and deleting the construct afterwards does not delete it either (README, Removing an object).
   *
   * @default false
   */
  readonly forget?: boolean;
  /**
   * Take the Repo over when it already exists on the cluster without this stack's mark of
   * ownership (made by hand, or by an earlier tool): the plan says it will be adopted, the apply
   * marks it as this stack's, and `terraform destroy` then deletes it. Without it, the apply refuses
   * such a Repo, naming it (README, Adoption).
   *
   * @default - `true` when the app's context sets `cdktf-homelab:adopt` to true, else false
   */
  readonly adopt?: boolean;
  /**
   * Take the Repo from another stack: one whose stack annotation (core.jr2.dev/stack) names another stack is
   * refused by the apply even with `adopt: true`, naming both stacks, and left by this stack's destroy. With it
   * the apply writes this stack's name into the annotation, and the other stack then reads the Repo as this
   * one's (README, Adoption).
   *
   * @default false
   */
  readonly takeOver?: boolean;
}

/**
 * A `Repo` custom resource: a git repository the cluster's node caches keep, with its credentials
 * by Secret name.
 */
export class KubeRepo extends ObjectConstruct {
  private declared?: ManagedObject | RetiredObject;

  /** The Terraform resources behind it: its managed object, or its retirement. */
  get object(): ManagedObject | RetiredObject {
    return builtOr(this, this.declared);
  }

  constructor(scope: Construct, id: string, props: KubeRepoProps) {
    super(scope, id);
    const valid = validateProps(this, 'KubeRepo', PROPS, props, (given) => [
      ...credentialProblems(given.credentials, (value) => !unresolved(value)),
      ...knownUrlProblems(given.url),
    ]);
    if (!valid) return;
    const { spec, identity } = repoOf(props);
    this.declared = declareObject(this, {
      kind: 'kube-repo',
      targetConstruct: props.cluster,
      target: { ...props.cluster.target },
      identity,
      unique: { prop: 'key', value: `${spec.namespace}/${spec.key}`, among: 'Repos' },
      spec,
      retired: props.retired,
      forget: props.forget,
      adopt: props.adopt,
      takeOver: props.takeOver,
    });
  }
}

/**
 * A url holding a Terraform value is judged on its known parts, for credentials only: `https://${var.token}@host/x`
 * is refused at synth; the whole url meets the clone url rule at the handler.
 */
const knownUrlProblems = (url: unknown): Problem[] => {
  const known = typeof url === 'string' && unresolved(url) ? knownText(url) : undefined;
  const rule = known === undefined ? undefined : credentialProblem(known);
  return rule === undefined ? [] : [broken('url', rule, known, shownUrl)];
};
