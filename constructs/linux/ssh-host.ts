/**
 * A Linux host reached over SSH. It pins the host key and names the variables holding the private
 * keys (one login, or a read login beside the privileged one); a key itself never enters the
 * stack, the plan or the state.
 */
import { Construct } from 'constructs';
import type { PropsOf } from '../../src/core/fields';
import {
  SSH_HOST_FIELDS,
  SSH_HOST_PROPS,
  sshHostRules,
  sshTargetOf,
  type WrittenSshTarget,
} from '../../src/linux/target';
import { unknownYet, validateProps } from '../core/validate';
import { addressName } from '../core/object-address';
import { builtOr } from '../core/problems';
import { noteTarget } from '../core/tombstones';

// Every prop comes from the target's declaration (src/linux/target.ts), each with its doc comment and default.
export interface SshHostProps extends PropsOf<typeof SSH_HOST_FIELDS> {}

/**
 * A Linux host reached over SSH with a pinned host key; its private key stays in an environment
 * variable.
 */
export class SshHost extends Construct {
  private settings?: WrittenSshTarget;

  /** The connection settings handlers receive; no secret in it. */
  get target(): WrittenSshTarget {
    return builtOr(this, this.settings);
  }

  constructor(scope: Construct, id: string, props: SshHostProps) {
    super(scope, id);
    if (!validateProps(this, 'SshHost', SSH_HOST_PROPS, props, sshHostRules)) return;
    const target = sshTargetOf(props, (value) => !unknownYet(value));
    this.settings = target;
    noteTarget(this, addressName(this), { domain: 'linux', settings: { ...target } });
  }
}
