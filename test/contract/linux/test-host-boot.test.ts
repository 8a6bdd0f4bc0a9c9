/**
 * The systemd test host's own failure: a port sshd cannot bind (what a port released to the kernel's ephemeral range
 * risks, test/support/free-port.ts) fails the start at once, with sshd's words from the container's journal, rather
 * than after the ready wait with only "ECONNREFUSED".
 */
import * as net from 'node:net';

it('a host whose sshd cannot bind its port fails at once, with sshd saying why', async () => {
  const held = net.createServer();
  await new Promise<void>((r) => held.listen(0, '127.0.0.1', r));
  const port = (held.address() as net.AddressInfo).port;
  jest.doMock('../../support/free-port', () => ({ freePort: async () => port }));
  // eslint-disable-next-line @typescript-eslint/no-require-imports -- loaded after the mock above
  const { startSystemdHost } = require('../../support/systemd-host') as typeof import('../../support/systemd-host');
  const started = Date.now();
  try {
    const error = await startSystemdHost().then(
      async (host) => {
        await host.stop();
        return undefined;
      },
      (e: Error) => e,
    );
    expect(error?.message).toMatch(/ssh\.service failed at boot/);
    expect(error?.message).toMatch(
      new RegExp(`Bind to port ${port} on 127\\.0\\.0\\.1 failed: Address already in use`),
    );
    expect(Date.now() - started).toBeLessThan(30_000);
  } finally {
    held.close();
  }
});
