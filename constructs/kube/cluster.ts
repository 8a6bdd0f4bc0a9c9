/**
 * The connection to a Kubernetes cluster: a kubeconfig path (`~` allowed) and context, or the pod's service
 * account. Only paths and names reach the stack: the kubeconfig's tokens and keys are read when a handler runs.
 */
import { Construct } from 'constructs';
import type { PropsOf } from '../../src/core/fields';
import { broken } from '../../src/core/rules';
import {
  KUBE_CLUSTER_FIELDS,
  KUBE_CLUSTER_PROPS,
  kubeClusterRules,
  type KubeTarget,
  kubeTargetOf,
} from '../../src/kube/target';
import { unknownYet, validateProps } from '../core/validate';
import { addressName } from '../core/object-address';
import { builtOr } from '../core/problems';
import { noteTarget } from '../core/tombstones';

// Every prop comes from the target's declaration (src/kube/target.ts), each with its doc comment and default.
export interface KubeClusterProps extends PropsOf<typeof KUBE_CLUSTER_FIELDS> {}

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
    // The id names the cluster to handlers, by the target's own rule: judged with the props, not thrown by the
    // schema as a bare error that hid every other problem of the app (an audit, 2026-12-05).
    const named = KUBE_CLUSTER_FIELDS.name.rule(id);
    const idProblems = named === undefined ? [] : [broken('id', named, id)];
    const rules = (given: Readonly<Record<string, unknown>>) => [...idProblems, ...kubeClusterRules(given)];
    if (!validateProps(this, 'KubeCluster', KUBE_CLUSTER_PROPS, props, rules)) return;
    const target = kubeTargetOf({ ...props, name: id }, (value) => !unknownYet(value));
    this.settings = target;
    noteTarget(this, addressName(this), { domain: 'kube', settings: { ...target } });
  }
}
