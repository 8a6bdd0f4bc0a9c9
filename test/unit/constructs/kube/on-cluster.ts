/** Props of a Kubernetes object as a plain-JavaScript app writes them, on a cluster declared in the stack. */
import type { TerraformStack } from 'cdktf';
import { KubeCluster } from '../../../../constructs/kube/cluster';
import { written } from '../synth-error';

/** `props` (undefined ones left out) with a `cluster` declared in `stack`, unless `withCluster` is false. */
export const onCluster = (stack: TerraformStack, props: Record<string, unknown>, withCluster = true): never =>
  ({
    ...(withCluster ? { cluster: new KubeCluster(stack, 'home', { kubeconfig: '~/.kube/config' }) } : {}),
    ...written(props),
  }) as never;
