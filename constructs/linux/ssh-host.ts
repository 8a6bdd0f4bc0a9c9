/**
 * A Linux host reached over SSH. It pins the host key and names the variable holding the private
 * key; the key itself never enters the stack, the plan or the state.
 */
import { Construct } from 'constructs';
import { COMMAND_TIMEOUT, type SshTarget } from '../../src/linux/target';
import { check, checkEnvName, checkPattern, checkRange } from '../core/validate';

export interface SshHostProps {
  /** Address or DNS name of the host. */
  readonly host: string;
  /** SSH port. @default 22 */
  readonly port?: number;
  /** Login user; a user other than root runs privileged commands through `sudo -n`. @default "root" */
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

export class SshHost extends Construct {
  /** The connection settings handlers receive; no secret in it. */
  readonly target: SshTarget;

  constructor(scope: Construct, id: string, props: SshHostProps) {
    super(scope, id);
    checkPattern(this, 'host', props.host, /^[A-Za-z0-9.:_-]+$/, 'a host name or IP address');
    checkRange(this, 'port', props.port, 1, 65535);
    checkPattern(this, 'user', props.user, /^[a-z_][a-z0-9_.-]*$/i, 'a user name');
    checkPattern(
      this,
      'hostKey',
      props.hostKey,
      /^SHA256:[A-Za-z0-9+/]{43}$/,
      'an OpenSSH fingerprint such as SHA256:<43 base64 characters>',
    );
    check(
      this,
      props.hostKey !== undefined || props.insecureAcceptAnyHostKey === true,
      'hostKey',
      'set (or insecureAcceptAnyHostKey: true)',
      props.hostKey,
    );
    check(
      this,
      !(props.hostKey !== undefined && props.insecureAcceptAnyHostKey === true),
      'insecureAcceptAnyHostKey',
      'left unset when hostKey is given',
      true,
    );
    checkEnvName(this, 'privateKeyEnv', props.privateKeyEnv);
    checkRange(this, 'readyTimeoutSeconds', props.readyTimeoutSeconds, 1, 600);
    checkRange(this, 'keepaliveIntervalSeconds', props.keepaliveIntervalSeconds, 0, 3600);
    checkRange(this, 'commandTimeoutSeconds', props.commandTimeoutSeconds, COMMAND_TIMEOUT.min, COMMAND_TIMEOUT.max);
    const user = props.user ?? 'root';
    this.target = {
      host: props.host,
      port: props.port ?? 22,
      user,
      ...(props.hostKey === undefined ? { insecureAcceptAnyHostKey: true } : { hostKey: props.hostKey }),
      ...(props.privateKeyEnv === undefined ? {} : { privateKeyEnv: props.privateKeyEnv }),
      readyTimeoutSeconds: props.readyTimeoutSeconds ?? 20,
      keepaliveIntervalSeconds: props.keepaliveIntervalSeconds ?? 15,
      // Left out when unset, so the handler's default applies and existing stacks' inputs do not change.
      ...(props.commandTimeoutSeconds === undefined ? {} : { commandTimeoutSeconds: props.commandTimeoutSeconds }),
      sudo: user !== 'root',
    };
  }
}
