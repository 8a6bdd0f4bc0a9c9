/**
 * How a handler reaches a Linux host, declared once (SSH_HOST_FIELDS): each prop of an `SshHost` with its doc
 * comment, rule and default, from which come the props type, the target it synthesizes and the handler boundary's
 * schema, so a tampered target fails naming the field. The private key is read from the variable it names (or the
 * ssh agent) at run time, never from the stack; a read (plan) logs in as the read user with its key when one is named.
 */
import * as z from 'zod/mini';
import { type Known } from '../core/definition';
import { optional, propTableOf, required, specSchema } from '../core/fields';
import { parseAs } from '../core/parse';
import type { Role } from '../core/kind';
import { boolean, broken, envName, integer, type Problem, text } from '../core/rules';
import { targetOf, type WrittenOf } from '../core/target-fields';

/**
 * Seconds one remote command may take, from asking for a channel to its last byte of output. Our
 * commands are short (measured: the read of 100 units, 0.6 s on the test host); a daemon-reload of a
 * large host takes seconds. 30 matches the HTTP targets' `timeoutSeconds`.
 */
export const COMMAND_TIMEOUT = { min: 1, max: 3600, default: 30 } as const;

const userName = text('a user name', /^[a-z_][a-z0-9_.-]*$/i);

/** An SshHost's one declaration: each prop with its doc comment, rule and default, and the target it writes. */
export const SSH_HOST_FIELDS = {
  /** Address or DNS name of the host. */
  host: required({ rule: text('a host name or IP address', /^[A-Za-z0-9.:_-]+$/), spec: true }),
  /** SSH port. */
  port: optional({ rule: integer(1, 65535), default: 22, spec: true }),
  /**
   * Login user; a user other than root runs every privileged step through the root helper, `sudo -n
   * /usr/local/sbin/cdktf-homelab-root`, the one command its sudoers line names (README, SshHost).
   */
  user: optional({ rule: userName, default: 'root', spec: true }),
  /**
   * The host key's OpenSSH fingerprint, `SHA256:...` (`ssh-keygen -lf /etc/ssh/ssh_host_ed25519_key.pub`).
   * Any other key is refused, and the refusal prints the fingerprint the host offered.
   *
   * @default - required unless insecureAcceptAnyHostKey is true
   */
  hostKey: optional({
    rule: text('an OpenSSH fingerprint such as SHA256:<43 base64 characters>', /^SHA256:[A-Za-z0-9+/]{43}$/),
    spec: true,
  }),
  /** Accept whatever host key is offered: anyone on the path can then impersonate the host. @default false */
  insecureAcceptAnyHostKey: optional({ rule: boolean, spec: true }),
  /**
   * Environment variable holding the private key text, unencrypted: OpenSSH format (ed25519, ecdsa,
   * rsa) or PEM RSA/EC (`BEGIN RSA PRIVATE KEY`, `BEGIN EC PRIVATE KEY`). PKCS#8 (`BEGIN PRIVATE KEY`)
   * is not read; an encrypted key works through the ssh agent.
   *
   * @default - the ssh agent at SSH_AUTH_SOCK
   */
  privateKeyEnv: optional({ rule: envName, spec: true }),
  /**
   * Login user for plans and reads, which run no sudo: a plain user may read unit state
   * (`systemctl show`) and unit files. Applies and destroys log in as `user`, so a plan (in a pull
   * request's pipeline, say) needs neither `user`'s key nor its sudo rights.
   *
   * @default - user: one login reads and writes
   */
  readUser: optional({ rule: userName, spec: true }),
  /**
   * Environment variable holding the read login's private key (the formats of `privateKeyEnv`); a
   * plan run with only this variable set never reads `privateKeyEnv`.
   *
   * @default - privateKeyEnv (the ssh agent when that is unset too)
   */
  readPrivateKeyEnv: optional({ rule: envName, spec: true }),
  /** Seconds to wait for the SSH handshake. */
  readyTimeoutSeconds: optional({ rule: integer(1, 600), default: 20, spec: true }),
  /** Seconds between keepalives on the connection. */
  keepaliveIntervalSeconds: optional({ rule: integer(0, 3600), default: 15, spec: true }),
  /**
   * Seconds one remote command may take, from asking for its channel to the last byte of its
   * output; a plan's read of every object on the host is one command. A read cut off fails naming
   * the host; a command that changes the host and is cut off is reported "outcome unknown", never
   * sent again, and the connection is closed behind it. Output past 4 MiB is cut off the same way.
   */
  // Not written at synth: the targets of stacks written before it existed stay as they were.
  commandTimeoutSeconds: optional({
    rule: integer(COMMAND_TIMEOUT.min, COMMAND_TIMEOUT.max),
    default: COMMAND_TIMEOUT.default,
    written: false,
    spec: true,
  }),
  /** Run the root helper through `sudo -n` (root-helper.ts), not its text through `sh -c`: `sudoOf` the user. */
  sudo: optional({ rule: boolean, spec: true, prop: false }),
};

/** Every prop of `SshHost`, with the defaults the target gets: what synth and discover judge props by. */
export const SSH_HOST_PROPS = propTableOf(SSH_HOST_FIELDS);

/**
 * The rules across an SshHost's props: the host key is pinned, or accepting any is said outright. With either not
 * `known` yet (a Terraform value), the handler judges them.
 */
export const sshHostRules = (props: Readonly<Record<string, unknown>>, known: Known = () => true): Problem[] => {
  if (!known(props.hostKey) || !known(props.insecureAcceptAnyHostKey)) return [];
  if (props.hostKey === undefined && props.insecureAcceptAnyHostKey !== true) {
    return [broken('hostKey', 'set (or insecureAcceptAnyHostKey: true)', undefined)];
  }
  return props.hostKey !== undefined && props.insecureAcceptAnyHostKey === true
    ? [broken('insecureAcceptAnyHostKey', 'left unset when hostKey is given', true)]
    : [];
};

/** Whether a login runs the root helper through sudo: any user but root, the one place this is decided. */
const sudoOf = (user: unknown): boolean => user !== 'root';

/** The target as an SshHost writes it and a handler reads it: `sudo` always said. */
export type SshTarget = WrittenOf<typeof SSH_HOST_FIELDS> & { readonly sudo: boolean };

/** The target an SshHost writes: `sudo` said, save for a user Terraform knows only at apply (`sshTargetOf`). */
export type WrittenSshTarget = WrittenOf<typeof SSH_HOST_FIELDS>;

/**
 * The target `props` make (`targetOf`), the defaults applied: for an SshHost at synth and for discover.
 * A user other than root goes through `sudo -n`. `known` says which values synth knows (not a Terraform value): for
 * a user it does not, `sudo` is left to the handler boundary, which says it from the user Terraform substituted (a
 * Terraform value is never 'root' at synth, so a variable set to root went through sudo).
 */
export const sshTargetOf = (props: object, known: Known = () => true): WrittenSshTarget => {
  const target = targetOf(SSH_HOST_FIELDS, 'an SshHost', props, known);
  return known(target.user) ? { ...target, sudo: target.sudo ?? sudoOf(target.user) } : target;
};

/**
 * The target as a handler receives it, judged by the declaration's rules with its defaults filled in: a tampered
 * one fails naming the field, and one written before `sudo` was gets it as an SshHost would.
 */
export const sshTargetSchema = z.pipe(
  specSchema(SSH_HOST_FIELDS, 'an SSH target', sshHostRules),
  z.transform((target): SshTarget => ({ ...target, sudo: target.sudo ?? sudoOf(target.user) })),
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
  (target.commandTimeoutSeconds ?? SSH_HOST_FIELDS.commandTimeoutSeconds.default) * 1000;
