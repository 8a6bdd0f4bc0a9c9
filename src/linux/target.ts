/**
 * How a handler reaches a Linux host: the props of an `SshHost` as one table (rules and defaults)
 * and the plain-data target it synthesizes, judged again by the same rules at the handler
 * boundary. The private key is read from the variable it names (or the ssh agent) at run time,
 * never from the stack; a read (plan) logs in as the read user with its key when one is named.
 */
import * as z from 'zod/mini';
import { type PropTable, propProblems, specCheck, withDefaults } from '../core/definition';
import { parseAs } from '../core/parse';
import type { Role } from '../core/kind';
import { boolean, broken, envName, integer, type Problem, text } from '../core/rules';

/**
 * Seconds one remote command may take, from asking for a channel to its last byte of output. Our
 * commands are short (measured: the read of 100 units, 0.6 s on the test host); a daemon-reload of a
 * large host takes seconds. 30 matches the HTTP targets' `timeoutSeconds`.
 */
export const COMMAND_TIMEOUT = { min: 1, max: 3600, default: 30 } as const;

/** Every prop of `SshHost`, with the defaults the target gets. */
export const SSH_HOST_PROPS = {
  host: { rule: text('a host name or IP address', /^[A-Za-z0-9.:_-]+$/), required: true },
  port: { rule: integer(1, 65535), default: 22 },
  user: { rule: text('a user name', /^[a-z_][a-z0-9_.-]*$/i), default: 'root' },
  hostKey: { rule: text('an OpenSSH fingerprint such as SHA256:<43 base64 characters>', /^SHA256:[A-Za-z0-9+/]{43}$/) },
  insecureAcceptAnyHostKey: { rule: boolean },
  privateKeyEnv: { rule: envName },
  readUser: { rule: text('a user name', /^[a-z_][a-z0-9_.-]*$/i) },
  readPrivateKeyEnv: { rule: envName },
  readyTimeoutSeconds: { rule: integer(1, 600), default: 20 },
  keepaliveIntervalSeconds: { rule: integer(0, 3600), default: 15 },
  // No default here: a target without it has each command wait COMMAND_TIMEOUT.default (see
  // commandBudgetMs), so the targets of stacks written before it existed stay as they were.
  commandTimeoutSeconds: { rule: integer(COMMAND_TIMEOUT.min, COMMAND_TIMEOUT.max) },
} as const satisfies PropTable;

/** The rules across an SshHost's props: the host key is pinned, or accepting any is said outright. */
export const sshHostRules = (props: Readonly<Record<string, unknown>>): Problem[] => {
  if (props.hostKey === undefined && props.insecureAcceptAnyHostKey !== true) {
    return [broken('hostKey', 'set (or insecureAcceptAnyHostKey: true)', undefined)];
  }
  return props.hostKey !== undefined && props.insecureAcceptAnyHostKey === true
    ? [broken('insecureAcceptAnyHostKey', 'left unset when hostKey is given', true)]
    : [];
};

export interface SshTarget {
  readonly host: string;
  readonly port: number;
  readonly user: string;
  /** OpenSSH `SHA256:` fingerprint of the host key; required unless insecureAcceptAnyHostKey. */
  readonly hostKey?: string;
  readonly insecureAcceptAnyHostKey?: boolean;
  /** Variable holding the private key (formats: `KEY_FORMATS` in ssh-key.ts); unset means the ssh agent. */
  readonly privateKeyEnv?: string;
  /** The login of plans and reads, never through sudo; unset means `user`. */
  readonly readUser?: string;
  /** Variable holding the read login's private key; unset means `privateKeyEnv`. */
  readonly readPrivateKeyEnv?: string;
  readonly readyTimeoutSeconds: number;
  readonly keepaliveIntervalSeconds: number;
  /** The budget of one remote command; unset means `COMMAND_TIMEOUT.default` (see `commandBudgetMs`). */
  readonly commandTimeoutSeconds?: number;
  /** Run the root helper through `sudo -n` (root-helper.ts), not its text through `sh -c`. */
  readonly sudo: boolean;
}

/**
 * The target of `props` with the defaults applied: the one place they are, for an SshHost at synth
 * and for a target read back from an older state. A user other than root goes through `sudo -n`.
 */
export const sshTargetOf = (props: Partial<SshTarget>): SshTarget => {
  const target = withDefaults(SSH_HOST_PROPS, props) as SshTarget;
  // In this order: a target holding a Terraform value synthesizes as jsonencode() of it, key by key.
  return {
    host: target.host,
    port: target.port,
    user: target.user,
    ...(target.hostKey === undefined ? { insecureAcceptAnyHostKey: true } : { hostKey: target.hostKey }),
    ...(target.privateKeyEnv === undefined ? {} : { privateKeyEnv: target.privateKeyEnv }),
    ...(target.readUser === undefined ? {} : { readUser: target.readUser }),
    ...(target.readPrivateKeyEnv === undefined ? {} : { readPrivateKeyEnv: target.readPrivateKeyEnv }),
    readyTimeoutSeconds: target.readyTimeoutSeconds,
    keepaliveIntervalSeconds: target.keepaliveIntervalSeconds,
    ...(target.commandTimeoutSeconds === undefined ? {} : { commandTimeoutSeconds: target.commandTimeoutSeconds }),
    sudo: target.sudo ?? target.user !== 'root',
  };
};

/** The target as a handler receives it, judged by the props' rules: a tampered one fails naming the field. */
export const sshTargetSchema = z.pipe(
  z
    .object({
      host: z.string(),
      port: z.number(),
      user: z.string(),
      hostKey: z.optional(z.string()),
      insecureAcceptAnyHostKey: z.optional(z.boolean()),
      privateKeyEnv: z.optional(z.string()),
      readUser: z.optional(z.string()),
      readPrivateKeyEnv: z.optional(z.string()),
      readyTimeoutSeconds: z.optional(z.number()),
      keepaliveIntervalSeconds: z.optional(z.number()),
      commandTimeoutSeconds: z.optional(z.number()),
      sudo: z.optional(z.boolean()),
    })
    .check(
      specCheck(({ sudo: _, ...target }) => [
        ...propProblems('an SSH target', SSH_HOST_PROPS, target),
        ...sshHostRules(target),
      ]),
    ),
  z.transform((target): SshTarget => sshTargetOf(target)),
);

/**
 * The target as one role logs in with it: a read as `readUser` with `readPrivateKeyEnv`'s key when
 * given (a plain user: reads need no sudo, and it has none), so a plan never looks at the write
 * key's variable; a write as `user` with `privateKeyEnv`'s key.
 */
export const targetFor = (target: SshTarget, role: Role): SshTarget => {
  const { readUser, readPrivateKeyEnv, privateKeyEnv, ...rest } = target;
  const key = role === 'read' ? (readPrivateKeyEnv ?? privateKeyEnv) : privateKeyEnv;
  return {
    ...rest,
    ...(key === undefined ? {} : { privateKeyEnv: key }),
    ...(role === 'read' && readUser !== undefined ? { user: readUser, sudo: false } : {}),
  };
};

export const parseSshTarget = (raw: unknown): SshTarget => parseAs(sshTargetSchema, raw, 'target');

/** `user@host:port`, for messages. */
export const describeHost = (target: Pick<SshTarget, 'host' | 'port' | 'user'>): string =>
  `${target.user}@${target.host}:${target.port}`;

/** The budget of each remote command, in ms: the one place the default applies. */
export const commandBudgetMs = (target: Pick<SshTarget, 'commandTimeoutSeconds'>): number =>
  (target.commandTimeoutSeconds ?? COMMAND_TIMEOUT.default) * 1000;
