/**
 * An in-process ssh2 server on 127.0.0.1 that hands each exec to the test, for faults a real sshd
 * will not produce on demand (a command that never finishes, one that floods its output), and
 * records every exec, so a test can tell a command was sent once and nothing ran after it.
 */
import { generateKeyPairSync } from 'node:crypto';
import { type Connection, type ServerChannel, Server, utils } from 'ssh2';
import { fingerprintOf } from '../../src/linux/ssh';

const rsaPem = () =>
  generateKeyPairSync('rsa', {
    modulusLength: 2048,
    publicKeyEncoding: { type: 'pkcs1', format: 'pem' },
    privateKeyEncoding: { type: 'pkcs1', format: 'pem' },
  }).privateKey;

export const KEY_ENV = 'TEST_SSH_KEY';
const HOST_KEY = rsaPem();
export const CLIENT_KEY = rsaPem();

/** What the test does with one exec: answer it through `channel`, or leave it hanging. */
export type OnExec = (command: string, channel: ServerChannel, stdin: () => string) => void;

export interface SshTestServer {
  readonly port: number;
  /** Every command the server was asked to run, in order. */
  readonly commands: string[];
  /** A target for this server (root, pinned key, key in KEY_ENV), with `over` laid on top. */
  target(over?: Record<string, unknown>): Record<string, unknown>;
  readonly env: NodeJS.ProcessEnv;
  close(): Promise<void>;
}

export const startSshTestServer = async (onExec: OnExec): Promise<SshTestServer> => {
  const commands: string[] = [];
  const clients = new Set<Connection>();
  const server = new Server({ hostKeys: [HOST_KEY] }, (client) => {
    clients.add(client);
    client.once('close', () => clients.delete(client));
    client.on('error', () => undefined);
    client.on('authentication', (context) => {
      // Any key is welcome, but only with a signature it verifies: the client must really hold it.
      if (context.method !== 'publickey') return context.reject(['publickey']);
      const key = utils.parseKey(context.key.data);
      if (context.signature === undefined) return context.accept();
      const valid =
        !(key instanceof Error) && key.verify(context.blob ?? Buffer.alloc(0), context.signature, context.hashAlgo);
      return valid === true ? context.accept() : context.reject();
    });
    client.on('session', (accept) =>
      accept().on('exec', (acceptExec, _reject, info) => {
        commands.push(info.command);
        const channel = acceptExec();
        channel.on('error', () => undefined);
        const input: Buffer[] = [];
        channel.on('data', (chunk: Buffer) => input.push(chunk));
        onExec(info.command, channel, () => Buffer.concat(input).toString('utf8'));
      }),
    );
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as { port: number }).port;
  const parsed = utils.parseKey(HOST_KEY);
  if (parsed instanceof Error) throw parsed;
  const hostKey = fingerprintOf(parsed.getPublicSSH());
  return {
    port,
    commands,
    env: { [KEY_ENV]: CLIENT_KEY },
    target: (over = {}) => ({ host: '127.0.0.1', port, user: 'root', hostKey, privateKeyEnv: KEY_ENV, ...over }),
    close: () =>
      new Promise((resolve) => {
        for (const client of clients) client.end();
        server.close(() => resolve());
      }),
  };
};

/** Answers `channel` with `stdout` and exit code 0. */
export const answer = (channel: ServerChannel, stdout: string): void => {
  channel.write(stdout);
  channel.exit(0);
  channel.end();
};

/**
 * Writes to `channel` as fast as the client takes it until the client closes it or `limit` bytes
 * are out, then exits 0; resolves with the bytes sent.
 */
export const flood = (channel: ServerChannel, limit: number): Promise<number> =>
  new Promise((resolve) => {
    const chunk = Buffer.alloc(64 * 1024, 'x');
    let sent = 0;
    let closed = false;
    channel.once('close', () => {
      closed = true;
      resolve(sent);
    });
    const pump = () => {
      while (!closed && sent < limit) {
        sent += chunk.length;
        if (!channel.write(chunk)) return void channel.once('drain', pump);
      }
      if (!closed) {
        channel.exit(0);
        channel.end();
      }
    };
    pump();
  });
