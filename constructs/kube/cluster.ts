/**
 * The connection to a Kubernetes cluster: a kubeconfig path (`~` allowed) and context, or the pod's service
 * account. Only paths and names reach the stack: the kubeconfig's tokens and keys are read when a handler runs.
 */
import { Construct } from 'constructs';
import { KUBE_CLUSTER_PROPS, kubeClusterRules, type KubeTarget } from '../../src/kube/target';
import { validateProps } from '../core/validate';
import { addressName } from '../core/object-address';
import { builtOr } from '../core/problems';
import { noteTarget } from '../core/tombstones';

export interface KubeClusterProps {
  /**
   * Path of the kubeconfig, `~` expanded when a handler runs.
   *
   * @default - KUBECONFIG (several files merged as kubectl does), else ~/.kube/config
   */
  readonly kubeconfig?: string;
  /** The context to use. @default - the kubeconfig's current-context */
  readonly context?: string;
  /**
   * Path of the kubeconfig of plans and reads, `~` expanded when a handler runs: a read-only identity, so a plan (in a
   * pull request's pipeline, say) never opens the write identity's credentials.
   *
   * @default - kubeconfig
   */
  readonly readKubeconfig?: string;
  /**
   * The context of plans and reads (a read-only identity); applies and destroys use `context`.
   *
   * @default - context, or readKubeconfig's current-context when that is given
   */
  readonly readContext?: string;
  /** Use the service account of the pod Terraform runs in, instead of a kubeconfig. @default false */
  readonly inCluster?: boolean;
  /** How long one API request may take. @default 30 */
  readonly timeoutSeconds?: number;
}

/**
 * A Kubernetes cluster to manage objects on: a kubeconfig context, or the in-cluster service
 * account, and optionally a read-only context for plans. Holds no secret: credentials stay in the kubeconfig or its
 * exec plugin.
 */
export class KubeCluster extends Construct {
  private settings?: KubeTarget;

  /** The connection settings handlers receive; no secret in it. */
  get target(): KubeTarget {
    return builtOr(this, this.settings);
  }

  constructor(scope: Construct, id: string, props: KubeClusterProps = {}) {
    super(scope, id);
    if (!validateProps(this, 'KubeCluster', KUBE_CLUSTER_PROPS, props, kubeClusterRules)) return;
    const target = {
      name: id,
      ...(props.kubeconfig === undefined ? {} : { kubeconfig: props.kubeconfig }),
      ...(props.context === undefined ? {} : { context: props.context }),
      ...(props.readKubeconfig === undefined ? {} : { readKubeconfig: props.readKubeconfig }),
      ...(props.readContext === undefined ? {} : { readContext: props.readContext }),
      ...(props.inCluster ? { inCluster: true } : {}),
      ...(props.timeoutSeconds === undefined ? {} : { timeoutSeconds: props.timeoutSeconds }),
    };
    this.settings = target;
    noteTarget(this, addressName(this), { domain: 'kube', settings: { ...target } });
  }
}
