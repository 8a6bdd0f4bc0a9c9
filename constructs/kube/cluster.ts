/**
 * The connection to a Kubernetes cluster: a kubeconfig path (`~` allowed) and context, or the pod's service
 * account. Only paths and names reach the stack: the kubeconfig's tokens and keys are read when a handler runs.
 */
import { Construct } from 'constructs';
import { KUBE_CLUSTER_PROPS, kubeClusterRules, type KubeTarget } from '../../src/kube/target';
import { validateProps } from '../core/validate';

export interface KubeClusterProps {
  /**
   * Path of the kubeconfig, `~` expanded when a handler runs.
   *
   * @default - KUBECONFIG (several files merged as kubectl does), else ~/.kube/config
   */
  readonly kubeconfig?: string;
  /** The context to use. @default - the kubeconfig's current-context */
  readonly context?: string;
  /** Use the service account of the pod Terraform runs in, instead of a kubeconfig. @default false */
  readonly inCluster?: boolean;
  /** How long one API request may take. @default 30 */
  readonly timeoutSeconds?: number;
}

/**
 * A Kubernetes cluster to manage objects on: a kubeconfig context, or the in-cluster service
 * account. Holds no secret: credentials stay in the kubeconfig or its exec plugin.
 */
export class KubeCluster extends Construct {
  /** The connection settings handlers receive; no secret in it. */
  readonly target: KubeTarget;

  constructor(scope: Construct, id: string, props: KubeClusterProps = {}) {
    super(scope, id);
    validateProps(this, 'KubeCluster', KUBE_CLUSTER_PROPS, props, kubeClusterRules);
    this.target = {
      name: id,
      ...(props.kubeconfig === undefined ? {} : { kubeconfig: props.kubeconfig }),
      ...(props.context === undefined ? {} : { context: props.context }),
      ...(props.inCluster ? { inCluster: true } : {}),
      ...(props.timeoutSeconds === undefined ? {} : { timeoutSeconds: props.timeoutSeconds }),
    };
  }
}
