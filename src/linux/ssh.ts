/**
 * One SSH connection per handler run, reused for every command, with the host key pinned: an
 * unknown key is refused and the refusal prints the fingerprint the host offered, ready to pin; a key
 * the host refuses is named by its variable and the user it was offered for. A connection sshd drops
 * before the handshake (MaxStartups) is retried; one lost later says so.
 */
import { createHash } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import { Client, type ConnectConfig } from 'ssh2';
import { type Clock, systemClock } from '../core/clock';
import { HandlerError } from '../core/errors';
import { type CommandResult, exec, type Link } from './ssh-exec';
import { credentials } from './ssh-key';
import type { Effect } from './ssh-outcome';
import { describeHost, type SshTarget } from './target';

export { ConnectionLost, type Effect, OutcomeUnknown } from './ssh-outcome';
export type { CommandResult } from './ssh-exec';

/**
 * The port handlers use: run a shell command, optionally feeding stdin. `effect` says whether it
 * only reads the host; unmarked, it may change it, and cut off it is "outcome unknown" (ssh-outcome.ts).
 */
export interface Remote {
  run(command: string, stdin?: string, effect?: Effect): Promise<CommandResult>;
  close(): void;
}

/** OpenSSH's `SHA256:` form of a host key blob. */
export const fingerprintOf = (keyBlob: Buffer): string =>
  `SHA256:${createHash('sha256').update(keyBlob).digest('base64').replace(/=+$/, '')}`;

/** OpenSSH MaxSessions defaults to 10 channels; stay below it whatever the caller does. */
const MAX_CHANNELS = 8;

export const connectSsh = async (
  target: SshTarget,
  env: NodeJS.ProcessEnv = process.env,
  clock: Clock = systemClock,
): Promise<Remote> => {
  const offer = credentials(target, env);
  const deadline = Date.now() + target.readyTimeoutSeconds * 1000;
  for (let delay = 50; ; delay = Math.min(delay * 2, 1000)) {
    try {
      return await connectOnce(target, offer, clock, Math.max(1000, deadline - Date.now()));
    } catch (error) {
      const dropped = error instanceof DroppedBeforeHandshake;
      if (!dropped || Date.now() + delay > deadline)
        throw dropped
          ? new HandlerError('SSH connection failed', error.message, { Host: describeHost(target) })
          : error;
      await sleep(delay / 2 + Math.random() * delay);
    }
  }
};

/**
 * sshd drops connections beyond MaxStartups (default 10:30:100: past 10 unauthenticated ones, a
 * growing share is dropped) before any key exchange; nothing was sent, so trying again is safe.
 * The drop reaches ssh2 as "Connection lost before handshake" or, when sshd closes with our banner
 * unread, as a TCP reset (measured: both seen at -parallelism=30 against the test host).
 */
class DroppedBeforeHandshake extends Error {}

const isDropBeforeHandshake = (error: Error & { code?: unknown }, handshaken: boolean): boolean =>
  !handshaken && (/before handshake/.test(error.message) || error.code === 'ECONNRESET');

const connectOnce = async (
  target: SshTarget,
  offer: Partial<ConnectConfig>,
  clock: Clock,
  readyMs: number,
): Promise<Remote> => {
  const client = new Client();
  let offered: string | undefined;
  const config: ConnectConfig = {
    host: target.host,
    port: target.port,
    username: target.user,
    readyTimeout: readyMs,
    keepaliveInterval: target.keepaliveIntervalSeconds * 1000,
    hostVerifier: (key: Buffer) => {
      offered = fingerprintOf(key);
      return target.insecureAcceptAnyHostKey === true || offered === target.hostKey;
    },
    ...offer,
  };
  // Small request/answer exchanges stall ~40 ms each on Nagle and delayed ACKs (measured: a unit
  // read 0.44 s with them, 0.23 s without).
  client.once('connect', () => client.setNoDelay(true));
  let handshaken = false;
  client.once('handshake', () => (handshaken = true));
  await new Promise<void>((resolve, reject) => {
    client.once('ready', resolve);
    // `on`, not `once`: a drop can emit twice (ECONNRESET, then "lost before handshake"), and an
    // 'error' with no listener left would crash the handler (seen in CI on a burst past MaxStartups).
    client.on('error', (error) =>
      reject(
        isDropBeforeHandshake(error, handshaken)
          ? new DroppedBeforeHandshake(error.message)
          : connectError(target, error, offered),
      ),
    );
    client.connect(config);
  });
  const link: Link = { client, target, clock, lost: undefined };
  client.on('error', (error) => (link.lost ??= error.message));
  client.on('close', () => (link.lost ??= 'the server closed the connection'));
  return channelLimited(link);
};

const connectError = (target: SshTarget, error: Error, offered: string | undefined): HandlerError => {
  const host = { Host: describeHost(target) };
  if (offered !== undefined && offered !== target.hostKey && target.insecureAcceptAnyHostKey !== true) {
    return new HandlerError(
      'SSH host key refused',
      `the host offered ${offered}, which is not the pinned ${target.hostKey}; ` +
        'if the host was legitimately re-keyed, pin the new fingerprint in hostKey',
      host,
    );
  }
  if ('level' in error && error.level === 'client-authentication') {
    const key = target.privateKeyEnv === undefined ? 'the ssh agent' : `the key in ${target.privateKeyEnv}`;
    return new HandlerError(
      'SSH login refused',
      `the host refused ${key} for user ${target.user} (${error.message}): add its public key to ` +
        `~${target.user}/.ssh/authorized_keys on the host, or set the variable to a key it trusts`,
      host,
    );
  }
  return new HandlerError('SSH connection failed', error.message, host);
};

const channelLimited = (link: Link): Remote => {
  let open = 0;
  const waiting: Array<() => void> = [];
  const acquire = () =>
    open < MAX_CHANNELS ? Promise.resolve(void open++) : new Promise<void>((r) => waiting.push(() => r(void open++)));
  const release = () => {
    open--;
    waiting.shift()?.();
  };
  return {
    run: async (command, stdin, effect = 'changes') => {
      await acquire();
      try {
        return await exec(link, command, stdin, effect);
      } finally {
        release();
      }
    },
    close: () => {
      link.lost ??= 'closed by the handler';
      link.client.end();
    },
  };
};
