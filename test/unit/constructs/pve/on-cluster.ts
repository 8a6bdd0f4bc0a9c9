/** Props of a PVE object as a plain-JavaScript app writes them, on a cluster declared in the stack. */
import type { TerraformStack } from 'cdktf';
import { ProxmoxCluster } from '../../../../constructs/pve/cluster';
import { written } from '../synth-error';

/** `props` (undefined ones left out) with a `cluster` declared in `stack`, unless `withCluster` is false. */
export const onCluster = (stack: TerraformStack, props: Record<string, unknown>, withCluster = true): never =>
  ({
    ...(withCluster ? { cluster: new ProxmoxCluster(stack, 'pve', { endpoints: ['https://n1:8006'] }) } : {}),
    ...written(props),
  }) as never;
