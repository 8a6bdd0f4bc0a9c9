/** Props of a Linux object as a plain-JavaScript app writes them, on a host declared in the stack. */
import type { TerraformStack } from 'cdktf';
import { SshHost } from '../../../../constructs/linux/ssh-host';
import { written } from '../synth-error';

/** The host `n2` of `stack`, reached without a pinned key (these tests never connect). */
export const hostIn = (stack: TerraformStack): SshHost =>
  new SshHost(stack, 'n2', { host: '10.0.0.2', insecureAcceptAnyHostKey: true });

/** `props` (undefined ones left out) with a `host` declared in `stack`, unless `withHost` is false. */
export const onHost = (stack: TerraformStack, props: Record<string, unknown>, withHost = true): never =>
  ({ ...(withHost ? { host: hostIn(stack) } : {}), ...written(props) }) as never;
