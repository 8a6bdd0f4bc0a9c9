/**
 * How a handler reaches a Linux host: the plain-data target an `SshHost` synthesizes. The private
 * key is read from the variable it names (or the ssh agent) at run time, never from the stack.
 */
import { HandlerError } from '../core/errors';

export interface SshTarget {
  readonly host: string;
  readonly port: number;
  readonly user: string;
  /** OpenSSH `SHA256:` fingerprint of the host key; required unless insecureAcceptAnyHostKey. */
  readonly hostKey?: string;
  readonly insecureAcceptAnyHostKey?: boolean;
  /** Variable holding the private key (OpenSSH or PEM text); unset means the ssh agent. */
  readonly privateKeyEnv?: string;
  readonly readyTimeoutSeconds: number;
  readonly keepaliveIntervalSeconds: number;
  /** Run privileged commands through `sudo -n`. */
  readonly sudo: boolean;
}

/** The target as received, checked enough that a hand-written one fails clearly. */
export const parseSshTarget = (raw: Readonly<Record<string, unknown>>): SshTarget => {
  if (typeof raw.host !== 'string' || typeof raw.user !== 'string' || typeof raw.port !== 'number') {
    throw new HandlerError('Bad SSH target', 'host, port and user are required');
  }
  if (typeof raw.hostKey !== 'string' && raw.insecureAcceptAnyHostKey !== true) {
    throw new HandlerError('Bad SSH target', 'hostKey (SHA256:...) is required unless insecureAcceptAnyHostKey is set');
  }
  return {
    readyTimeoutSeconds: 20,
    keepaliveIntervalSeconds: 15,
    sudo: raw.user !== 'root',
    ...(raw as Partial<SshTarget>),
  } as SshTarget;
};

/** `user@host:port`, for messages. */
export const describeHost = (target: Pick<SshTarget, 'host' | 'port' | 'user'>): string =>
  `${target.user}@${target.host}:${target.port}`;
