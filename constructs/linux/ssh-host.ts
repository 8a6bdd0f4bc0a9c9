/**
 * A Linux host reached over SSH. It pins the host key and names the variables holding the private
 * keys (one login, or a read login beside the privileged one); a key itself never enters the
 * stack, the plan or the state.
 */
import { Construct } from 'constructs';
import { SSH_HOST_PROPS, sshHostRules, type SshTarget, sshTargetOf } from '../../src/linux/target';
import { validateProps } from '../core/validate';
import { addressName } from '../core/object-address';
import { builtOr } from '../core/problems';
import { noteTarget } from '../core/tombstones';

export interface SshHostProps {
  /** Address or DNS name of the host. */
  readonly host: string;
  /** SSH port. @default 22 */
  readonly port?: number;
  /**
   * Login user; a user other than root runs every privileged step through the root helper, `sudo -n
   * /usr/local/sbin/cdktf-homelab-root`, the one command its sudoers line names (README, SshHost).
   * @default "root"
   */
  readonly user?: string;
  /**
   * The host key's OpenSSH fingerprint, `SHA256:...` (`ssh-keygen -lf /etc/ssh/ssh_host_ed25519_key.pub`).
   * Any other key is refused, and the refusal prints the fingerprint the host offered.
   *
   * @default - required unless insecureAcceptAnyHostKey is true
   */
  readonly hostKey?: string;
  /** Accept whatever host key is offered: anyone on the path can then impersonate the host. @default false */
  readonly insecureAcceptAnyHostKey?: boolean;
  /**
   * Environment variable holding the private key text, unencrypted: OpenSSH format (ed25519, ecdsa,
   * rsa) or PEM RSA/EC (`BEGIN RSA PRIVATE KEY`, `BEGIN EC PRIVATE KEY`). PKCS#8 (`BEGIN PRIVATE KEY`)
   * is not read; an encrypted key works through the ssh agent.
   *
   * @default - the ssh agent at SSH_AUTH_SOCK
   */
  readonly privateKeyEnv?: string;
  /**
   * Login user for plans and reads, which run no sudo: a plain user may read unit state
   * (`systemctl show`) and unit files. Applies and destroys log in as `user`, so a plan (in a pull
   * request's pipeline, say) needs neither `user`'s key nor its sudo rights.
   *
   * @default - user: one login reads and writes
   */
  readonly readUser?: string;
  /**
   * Environment variable holding the read login's private key (the formats of `privateKeyEnv`); a
   * plan run with only this variable set never reads `privateKeyEnv`.
   *
   * @default - privateKeyEnv (the ssh agent when that is unset too)
   */
  readonly readPrivateKeyEnv?: string;
  /** Seconds to wait for the SSH handshake. @default 20 */
  readonly readyTimeoutSeconds?: number;
  /** Seconds between keepalives on the connection. @default 15 */
  readonly keepaliveIntervalSeconds?: number;
  /**
   * Seconds one remote command may take, from asking for its channel to the last byte of its
   * output; a plan's read of every object on the host is one command. A read cut off fails naming
   * the host; a command that changes the host and is cut off is reported "outcome unknown", never
   * sent again, and the connection is closed behind it. Output past 4 MiB is cut off the same way.
   *
   * @default 30
   */
  readonly commandTimeoutSeconds?: number;
}

/**
 * A Linux host reached over SSH with a pinned host key; its private key stays in an environment
 * variable.
 */
export class SshHost extends Construct {
  private settings?: SshTarget;

  /** The connection settings handlers receive; no secret in it. */
  get target(): SshTarget {
    return builtOr(this, this.settings);
  }

  constructor(scope: Construct, id: string, props: SshHostProps) {
    super(scope, id);
    if (!validateProps(this, 'SshHost', SSH_HOST_PROPS, props, sshHostRules)) return;
    const target = sshTargetOf(props);
    this.settings = target;
    noteTarget(this, addressName(this), { domain: 'linux', settings: { ...target } });
  }
}
