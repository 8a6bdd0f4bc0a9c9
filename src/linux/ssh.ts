/**
 * One SSH connection per handler run, reused for every command, with the host key pinned: an
 * unknown key is refused and the refusal prints the fingerprint the host offered, ready to pin. A
 * connection sshd drops before the handshake (MaxStartups) is retried; one lost later says so.
 */
import { createHash } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import { Client, type ClientChannel, type ConnectConfig } from 'ssh2';
import { HandlerError } from '../core/errors';
import { credentials } from './ssh-key';
import { describeHost, type SshTarget } from './target';

export interface CommandResult {
  readonly code: number;
  readonly stdout: string;
  readonly stderr: string;
}

/** The port handlers use: run a shell command, optionally feeding stdin. */
export interface Remote {
  run(command: string, stdin?: string): Promise<CommandResult>;
  close(): void;
}

/** OpenSSH's `SHA256:` form of a host key blob. */
export const fingerprintOf = (keyBlob: Buffer): string =>
  `SHA256:${createHash('sha256').update(keyBlob).digest('base64').replace(/=+$/, '')}`;

/** OpenSSH MaxSessions defaults to 10 channels; stay below it whatever the caller does. */
const MAX_CHANNELS = 8;

export const connectSsh = async (target: SshTarget, env: NodeJS.ProcessEnv = process.env): Promise<Remote> => {
  const deadline = Date.now() + target.readyTimeoutSeconds * 1000;
  for (let delay = 50; ; delay = Math.min(delay * 2, 1000)) {
    try {
      return await connectOnce(target, env, Math.max(1000, deadline - Date.now()));
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

const connectOnce = async (target: SshTarget, env: NodeJS.ProcessEnv, readyMs: number): Promise<Remote> => {
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
    ...credentials(target, env),
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
  const link: Link = { client, target, lost: undefined };
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
  return new HandlerError('SSH connection failed', error.message, host);
};

/** A connected client and, once it is gone, why. */
interface Link {
  readonly client: Client;
  readonly target: SshTarget;
  lost: string | undefined;
}

/** The connection went away under a command: what the command did on the host is unknown. */
export class ConnectionLost extends HandlerError {
  constructor(
    readonly reason: string,
    target: SshTarget,
  ) {
    super('SSH connection lost', reason, { Host: describeHost(target) });
  }
}

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
    run: async (command, stdin) => {
      await acquire();
      try {
        return await exec(link, command, stdin);
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

/**
 * sshd frees a session slot a moment after the client sees its channel close, so a busy
 * connection can be refused a channel it is entitled to (measured: 1 run in 4 with 24 commands at
 * once). A refused open is retried with jittered backoff for a bounded time; nothing was run yet.
 */
const OPEN_RETRY_MS = 10_000;

const exec = async (link: Link, command: string, stdin?: string): Promise<CommandResult> => {
  const { target } = link;
  const deadline = Date.now() + OPEN_RETRY_MS;
  for (let delay = 20; ; delay = Math.min(delay * 2, 500)) {
    try {
      if (link.lost !== undefined) throw new ConnectionLost(link.lost, target);
      return await execOnce(link, command, stdin);
    } catch (error) {
      if (!(error instanceof ChannelRefused) || Date.now() + delay > deadline) {
        throw error instanceof ChannelRefused
          ? new HandlerError('SSH command failed to start', error.message, { Host: describeHost(target) })
          : error;
      }
      await sleep(delay / 2 + Math.random() * delay);
    }
  }
};

class ChannelRefused extends Error {}

/** How long a failed command waits for the client to report a dropped connection before blaming the command. */
const LOSS_GRACE_MS = 300;

const execOnce = (link: Link, command: string, stdin?: string): Promise<CommandResult> =>
  new Promise((resolve, reject) => {
    const { client, target } = link;
    const refused = (error: Error) => {
      if (/Channel open failure/.test(error.message)) return reject(new ChannelRefused(error.message));
      if (/Not connected|No response/.test(error.message))
        return reject(new ConnectionLost(link.lost ?? error.message, target));
      // A dying sshd can refuse the exec ("Unable to exec") just before the connection drops (seen in
      // CI with every sshd killed): the client learns of the drop a moment later.
      setTimeout(() => {
        if (link.lost !== undefined) return reject(new ConnectionLost(link.lost, target));
        reject(new HandlerError('SSH command failed to start', error.message, { Host: describeHost(target) }));
      }, LOSS_GRACE_MS);
    };
    const opened = (error: Error | undefined, stream: ClientChannel) => {
      if (error) return refused(error);
      const out: Buffer[] = [];
      const err: Buffer[] = [];
      let code: number | undefined;
      stream.on('data', (chunk: Buffer) => out.push(chunk));
      stream.stderr.on('data', (chunk: Buffer) => err.push(chunk));
      stream.on('exit', (exitCode: number | null) => {
        code = exitCode ?? undefined;
      });
      stream.on('close', () => {
        const stdout = Buffer.concat(out).toString('utf8');
        const stderr = Buffer.concat(err).toString('utf8');
        if (code !== undefined) return resolve({ code, stdout, stderr });
        // A channel closed without a status by a dropped connection: the client says why a moment later.
        setTimeout(() => {
          if (link.lost !== undefined) return reject(new ConnectionLost(link.lost, target));
          reject(
            new HandlerError('SSH command ended without an exit status', stderr.trim() || command, {
              Host: describeHost(target),
            }),
          );
        }, LOSS_GRACE_MS);
      });
      stream.end(stdin ?? '');
    };
    try {
      client.exec(command, opened);
    } catch (error) {
      refused(error instanceof Error ? error : new Error(String(error))); // ssh2 throws "Not connected" at once
    }
  });
