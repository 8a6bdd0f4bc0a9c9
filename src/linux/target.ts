/**
 * How a handler reaches a Linux host: the plain-data target an `SshHost` synthesizes. The private
 * key is read from the variable it names (or the ssh agent) at run time, never from the stack.
 */
import * as z from 'zod/mini';
import { envName, parseAs } from '../core/parse';

/**
 * Seconds one remote command may take, from asking for a channel to its last byte of output. Our
 * commands are short (measured: the read of 100 units, 0.6 s on the test host); a daemon-reload of a
 * large host takes seconds. 30 matches the HTTP targets' `timeoutSeconds`.
 */
export const COMMAND_TIMEOUT = { min: 1, max: 3600, default: 30 } as const;

export interface SshTarget {
  readonly host: string;
  readonly port: number;
  readonly user: string;
  /** OpenSSH `SHA256:` fingerprint of the host key; required unless insecureAcceptAnyHostKey. */
  readonly hostKey?: string;
  readonly insecureAcceptAnyHostKey?: boolean;
  /** Variable holding the private key (formats: `KEY_FORMATS` in ssh-key.ts); unset means the ssh agent. */
  readonly privateKeyEnv?: string;
  readonly readyTimeoutSeconds: number;
  readonly keepaliveIntervalSeconds: number;
  /** The budget of one remote command; unset means `COMMAND_TIMEOUT.default` (see `commandBudgetMs`). */
  readonly commandTimeoutSeconds?: number;
  /** Run privileged commands through `sudo -n`. */
  readonly sudo: boolean;
}

/** The target as a handler receives it, re-checked: a tampered one fails naming the field. */
const sshTargetFields = z
  .object({
    host: z.string().check(z.regex(/^[A-Za-z0-9.:_-]+$/, 'a host name or IP address')),
    port: z.number().check(z.int(), z.gte(1), z.lte(65535)),
    user: z.string().check(z.regex(/^[a-z_][a-z0-9_.-]*$/i, 'a user name')),
    hostKey: z.optional(z.string().check(z.regex(/^SHA256:[A-Za-z0-9+/]{43}$/, 'an OpenSSH SHA256: fingerprint'))),
    insecureAcceptAnyHostKey: z.optional(z.boolean()),
    privateKeyEnv: z.optional(envName),
    readyTimeoutSeconds: z._default(z.number().check(z.gte(1), z.lte(600)), 20),
    keepaliveIntervalSeconds: z._default(z.number().check(z.gte(0), z.lte(3600)), 15),
    commandTimeoutSeconds: z.optional(
      z.number().check(z.int(), z.gte(COMMAND_TIMEOUT.min), z.lte(COMMAND_TIMEOUT.max)),
    ),
    sudo: z.optional(z.boolean()),
  })
  .check(
    z.refine((t) => t.hostKey !== undefined || t.insecureAcceptAnyHostKey === true, {
      message: 'hostKey (SHA256:...) is required unless insecureAcceptAnyHostKey is set',
      path: ['hostKey'],
    }),
  );

/** The target with its defaults applied: a user other than root goes through `sudo -n`. */
export const sshTargetSchema = z.pipe(
  sshTargetFields,
  z.transform((target): SshTarget => ({ ...target, sudo: target.sudo ?? target.user !== 'root' })),
);

export const parseSshTarget = (raw: unknown): SshTarget => parseAs(sshTargetSchema, raw, 'target');

/** `user@host:port`, for messages. */
export const describeHost = (target: Pick<SshTarget, 'host' | 'port' | 'user'>): string =>
  `${target.user}@${target.host}:${target.port}`;

/** The budget of each remote command, in ms: the one place the default applies. */
export const commandBudgetMs = (target: Pick<SshTarget, 'commandTimeoutSeconds'>): number =>
  (target.commandTimeoutSeconds ?? COMMAND_TIMEOUT.default) * 1000;
