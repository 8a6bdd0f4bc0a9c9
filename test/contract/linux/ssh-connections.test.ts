/**
 * sshd's MaxStartups on the real test host: connections it drops before the handshake ("Connection
 * lost before handshake", or a TCP reset) are retried with backoff, so a burst of handlers on one
 * host all connect.
 */
import { createServer, connect, type Socket } from 'node:net';
import { connectSsh } from '../../../src/linux/ssh';
import { parseSshTarget } from '../../../src/linux/target';
import { hostTarget, KEY_ENV, useSystemdHost } from '../../support/unit-host';

jest.setTimeout(120_000);

const { host } = useSystemdHost();

test('a burst of connections past MaxStartups all connect, retrying the ones sshd dropped', async () => {
  // Past 2 unauthenticated connections sshd drops every new one until a slot frees.
  await host().exec(
    'echo "MaxStartups 2:100:2" > /etc/ssh/sshd_config.d/05-burst.conf && systemctl reload ssh && sleep 1',
  );
  try {
    const target = parseSshTarget(hostTarget(host()));
    const env = { [KEY_ENV]: host().privateKey };
    const remotes = await Promise.all(Array.from({ length: 12 }, () => connectSsh(target, env)));
    const answers = await Promise.all(remotes.map((remote) => remote.run('echo ok')));
    expect(answers.map((answer) => answer.stdout.trim())).toEqual(Array(12).fill('ok'));
    for (const remote of remotes) remote.close();
    const log = await host().exec('journalctl -u ssh --no-pager | grep -c "past MaxStartups" || true');
    expect(Number(log.stdout.trim())).toBeGreaterThan(0);
  } finally {
    await host().exec('rm -f /etc/ssh/sshd_config.d/05-burst.conf && systemctl reload ssh');
  }
});

test('a connection reset before the handshake is retried, at connect or once our banner is sent', async () => {
  // A relay in front of the real sshd that resets its first connections, as a loaded sshd does: two
  // at once, two once the client's banner arrives (ssh2 then reports the drop twice: ECONNRESET, then
  // "Connection lost before handshake", and the second must not crash the handler).
  let resets = 4;
  const sockets: Socket[] = [];
  const relay = createServer((socket) => {
    sockets.push(socket);
    if (resets > 2) {
      resets--;
      socket.resetAndDestroy();
      return;
    }
    if (resets > 0) {
      resets--;
      socket.once('data', () => socket.resetAndDestroy());
      return;
    }
    const upstream = connect(host().port, host().host);
    sockets.push(upstream);
    socket.pipe(upstream).pipe(socket);
  });
  await new Promise<void>((resolve) => relay.listen(0, '127.0.0.1', resolve));
  try {
    const port = (relay.address() as { port: number }).port;
    const target = parseSshTarget(hostTarget(host(), { port }));
    const remote = await connectSsh(target, { [KEY_ENV]: host().privateKey });
    expect((await remote.run('echo ok')).stdout.trim()).toBe('ok');
    remote.close();
    expect(resets).toBe(0);
  } finally {
    for (const socket of sockets) socket.destroy();
    relay.close();
  }
});
