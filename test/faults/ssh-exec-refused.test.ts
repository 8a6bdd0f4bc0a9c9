/**
 * An SSH server that refuses a command: one going away (every sshd killed) can answer an exec with a
 * failure just before it drops the connection, and that must read as a lost connection, which apply
 * reports without trying an undo over it; one that stays up gets the command's refusal.
 */
import { generateKeyPairSync } from 'node:crypto';
import { Server, utils } from 'ssh2';
import { ConnectionLost, connectSsh, fingerprintOf } from '../../src/linux/ssh';
import { parseSshTarget } from '../../src/linux/target';

const pem = () =>
  generateKeyPairSync('rsa', {
    modulusLength: 2048,
    publicKeyEncoding: { type: 'pkcs1', format: 'pem' },
    privateKeyEncoding: { type: 'pkcs1', format: 'pem' },
  }).privateKey;
const HOST_KEY = pem();
const CLIENT_KEY = pem();

/** Accepts any key, then refuses every exec; with `thenDrop`, ends the connection 20 ms later. */
const refusingServer = async (thenDrop: boolean) => {
  const server = new Server({ hostKeys: [HOST_KEY] }, (client) => {
    client.on('error', () => undefined);
    client.on('authentication', (context) => context.accept());
    client.on('session', (accept) =>
      accept().on('exec', (_accept, reject) => {
        reject();
        if (thenDrop) setTimeout(() => client.end(), 20);
      }),
    );
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const parsed = utils.parseKey(HOST_KEY);
  if (parsed instanceof Error) throw parsed;
  const target = parseSshTarget({
    host: '127.0.0.1',
    port: (server.address() as { port: number }).port,
    user: 'root',
    hostKey: fingerprintOf(parsed.getPublicSSH()),
    privateKeyEnv: 'TEST_SSH_KEY',
  });
  const remote = await connectSsh(target, { TEST_SSH_KEY: CLIENT_KEY });
  return { remote, close: () => new Promise((resolve) => server.close(resolve)) };
};

test('an exec refused by a server that then drops the connection is a lost connection', async () => {
  const { remote, close } = await refusingServer(true);
  try {
    const failure = await remote.run('true').catch((error: unknown) => error);
    expect(failure).toBeInstanceOf(ConnectionLost);
  } finally {
    remote.close();
    await close();
  }
});

test('an exec refused by a server that stays up fails as the command, not the connection', async () => {
  const { remote, close } = await refusingServer(false);
  try {
    const failure = await remote.run('true').catch((error: unknown) => error);
    expect(failure).not.toBeInstanceOf(ConnectionLost);
    expect(String(failure)).toMatch(/SSH command failed to start: Unable to exec/);
  } finally {
    remote.close();
    await close();
  }
});
