/**
 * Asks the node caches to fetch a Repo into a Sandbox (core.jr2.dev) whenever `trigger` changes, and prints the
 * verdict. A fetch that failed or outran its budget is a warning and the apply succeeds, so a flaky git remote never
 * fails a deploy; only a Sandbox that is gone, or that does not mount the key, fails it.
 */
import type { Construct } from 'constructs';
import { identityOf, type PropsOf, specOf } from '../../src/core/fields';
import { broken } from '../../src/core/rules';
import { REPO_FETCH_FIELDS } from '../../src/kube/repo-fetch-fields';
import { TerraformStack } from '../core/cdk';
import { declareObject } from '../core/declare-object';
import { ManagedObject } from '../core/managed-object';
import { ObjectConstruct } from '../core/object-construct';
import { builtOr, recordProblems } from '../core/problems';
import { TAKE_OVER_PROPS, targetProp, validateProps } from '../core/validate';
import { KubeCluster } from './cluster';
import { clusterIdentity } from './cluster-identity';

/** Every prop, judged at synth by the kind's declaration (src/kube/repo-fetch-fields.ts). */
const PROPS = {
  ...REPO_FETCH_FIELDS,
  ...TAKE_OVER_PROPS,
  cluster: targetProp(KubeCluster, 'a KubeCluster'),
};

// The ask's own fields come from its declaration (src/kube/repo-fetch-fields.ts), each with its doc comment.
export interface KubeRepoFetchProps extends PropsOf<typeof REPO_FETCH_FIELDS> {
  /** The cluster the Sandbox is on. */
  readonly cluster: KubeCluster;
  /**
   * Ask even when another stack's last ask for this Sandbox and key was for another trigger. Each ask records
   * the stack that raised it; two stacks asking for one trigger share one ask (the second waits on the first's
   * pending ask, or reads its fetch as in sync), but for different triggers each ask would undo the other's, so
   * the plan names both stacks and the apply refuses unless this says so (README, KubeRepoFetch).
   *
   * Known at synth: a Terraform value is refused, since synth decides from it whether the apply may take the object
   * from another stack.
   *
   * @default false
   */
  readonly takeOver?: boolean;
}

/**
 * A plan shows whether the last ask for the current trigger was answered by a fetch; a stale or unanswered ask reads
 * as drift, so the next apply asks again. Nothing is removed on destroy: an ask leaves nothing behind.
 */
export class KubeRepoFetch extends ObjectConstruct {
  private ask?: ManagedObject;

  /** The Terraform resources behind this ask. */
  override get object(): ManagedObject {
    return builtOr(this, this.ask);
  }

  constructor(scope: Construct, id: string, props: KubeRepoFetchProps) {
    super(scope, id);
    if (!validateProps(this, 'KubeRepoFetch', PROPS, props)) return;
    claimAsk(this, props);
    const object = declareObject(this, {
      kind: 'kube-repo-fetch',
      targetConstruct: props.cluster,
      target: { ...props.cluster.target },
      identity: identityOf(REPO_FETCH_FIELDS, props),
      spec: specOf(REPO_FETCH_FIELDS, props),
      takeOver: props.takeOver,
      destroyable: false,
    });
    this.ask = object;
  }
}

/** Per stack: the construct path that asks for each (cluster, Sandbox, key). */
const asks = new WeakMap<TerraformStack, Map<string, string>>();

/**
 * One ask per Sandbox and key per stack: two would raise two stamps in one apply, and each could print its own
 * verdict (seen in 1 of 6 runs). The cluster is the kubeconfig file and context it resolves to, whatever
 * construct names them and however the path is spelled.
 */
const claimAsk = (scope: Construct, props: KubeRepoFetchProps): void => {
  const key = JSON.stringify([clusterIdentity(props.cluster.target), props.namespace, props.sandbox, props.key]);
  const stack = TerraformStack.of(scope);
  const claimed = asks.get(stack) ?? new Map<string, string>();
  asks.set(stack, claimed);
  const other = claimed.get(key);
  if (other !== undefined) {
    const rule =
      `asked for by one KubeRepoFetch per Sandbox (${other} already asks Sandbox ${props.namespace}/${props.sandbox} ` +
      'for it; two asks in one apply race and may print different verdicts: keep one)';
    recordProblems(scope, [broken('key', rule, props.key)]);
    return;
  }
  claimed.set(key, scope.node.path);
};
