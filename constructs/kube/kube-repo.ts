/**
 * A Repo custom resource (core.jr2.dev) the stack states: created if missing and never overwritten, then its
 * spec.url and spec.secretRef restated, the bound label and the identity and stack annotations set. Destroy
 * unlabels and leaves the Repo and its cache unless deleteOnDestroy. Credentials are Secret names, never their
 * contents.
 */
import type { Construct } from 'constructs';
import { identityOf, type PropsOf, settingsOf, specOf } from '../../src/core/fields';
import { isRecord } from '../../src/core/records';
import { broken, type Problem } from '../../src/core/rules';
import { credentialProblem, hasQuery, shownUrl } from '../../src/kube/clone-url';
import { NO_QUERY_IDENTITY_RULE, NO_QUERY_MATCH_RULE, REPO_FIELDS, shownIdentity } from '../../src/kube/repo-fields';
import { declareObject } from '../core/declare-object';
import { ObjectConstruct } from '../core/object-construct';
import { knownText, OBJECT_PROPS, TAKE_OVER_PROPS, targetProp, unresolved, validateProps } from '../core/validate';
import { KubeCluster } from './cluster';

/** Every prop, judged at synth by the kind's declaration (src/kube/repo-fields.ts). */
const PROPS = {
  ...REPO_FIELDS,
  ...OBJECT_PROPS,
  ...TAKE_OVER_PROPS,
  cluster: targetProp(KubeCluster, 'a KubeCluster'),
};

// The Repo's own fields come from its declaration (src/kube/repo-fields.ts), each with its doc comment.
export interface KubeRepoProps extends PropsOf<typeof REPO_FIELDS> {
  /** The cluster to declare the Repo on. */
  readonly cluster: KubeCluster;
  /**
   * Retire it: the next apply runs destroy and drops it from the state.
   *
   * Known at synth: a Terraform value is refused, since synth declares the removal instead of the object.
   *
   * @default false
   */
  readonly retired?: boolean;
  /**
   * Stop managing the Repo and leave it on the cluster, labelled as it is: the next apply drops it from the state only,
   * and deleting the construct afterwards does not delete it either (README, Removing an object).
   *
   * Known at synth: a Terraform value is refused, since synth drops the object from the state instead of declaring it.
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
   * Known at synth: a Terraform value is refused, since synth decides from it what the apply may take over and what
   * destroy may remove.
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
   * Known at synth: a Terraform value is refused, since synth decides from it whether the apply may take the object
   * from another stack.
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
  constructor(scope: Construct, id: string, props: KubeRepoProps) {
    super(scope, id);
    if (
      !validateProps(this, 'KubeRepo', PROPS, props, (given) => [
        ...knownUrlProblems(given.url),
        ...knownQueryProblems('identity', given.identity, NO_QUERY_IDENTITY_RULE),
        ...knownMatchProblems(given.credentials),
      ])
    )
      return;
    this.declared = declareObject(this, {
      kind: 'kube-repo',
      targetConstruct: props.cluster,
      target: { ...props.cluster.target },
      identity: identityOf(REPO_FIELDS, props),
      settings: settingsOf(REPO_FIELDS),
      unique: { prop: 'key', value: `${props.namespace}/${props.key}`, among: 'Repos' },
      spec: specOf(REPO_FIELDS, props),
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

/** A text holding a Terraform value is judged on its known parts for a query or fragment (`rule`), as the url is. */
const knownQueryProblems = (prop: string, text: unknown, rule: string): Problem[] => {
  const known = typeof text === 'string' && unresolved(text) ? knownText(text) : undefined;
  return known !== undefined && hasQuery(known) ? [broken(prop, rule, known, shownIdentity)] : [];
};

/** Each credential's match, judged so. */
const knownMatchProblems = (credentials: unknown): Problem[] =>
  (Array.isArray(credentials) ? credentials : []).flatMap((entry: unknown, index) =>
    knownQueryProblems(`credentials[${index}].match`, isRecord(entry) ? entry.match : undefined, NO_QUERY_MATCH_RULE),
  );
