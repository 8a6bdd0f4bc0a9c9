/**
 * The test servers' port picker: the port lies outside the kernel's ephemeral range, where an outgoing connection can
 * take a port released by a bind to 0 and block the server's later bind (the CI failure at 8eefd7a).
 */
import * as net from 'node:net';
import { ephemeralRange, freePort, LOWEST_PICKED, pickSpan, portFree } from '../../support/free-port';

describe('freePort', () => {
  it('the failure it prevents: a released port a client was then given cannot be listened on', async () => {
    const server = net.createServer((s) => s.end());
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    const client = net.connect((server.address() as net.AddressInfo).port, '127.0.0.1');
    await new Promise<void>((r) => client.once('connect', r));
    const taken = client.localPort!;
    const [low, high] = ephemeralRange();
    expect(taken).toBeGreaterThanOrEqual(low);
    expect(taken).toBeLessThanOrEqual(high);
    expect(await portFree(taken)).toBe(false);
    client.destroy();
    server.close();
  });

  it('picks a free port outside the ephemeral range, several times over', async () => {
    const [low, high] = ephemeralRange();
    const ports = await Promise.all(Array.from({ length: 20 }, () => freePort()));
    for (const port of ports) {
      expect(port).toBeGreaterThanOrEqual(LOWEST_PICKED);
      expect(port >= low && port <= high).toBe(false);
    }
    const [first] = ports as [number];
    const held = net.createServer();
    await new Promise<void>((r) => held.listen(first, '127.0.0.1', r));
    expect(await portFree(first)).toBe(false);
    held.close();
  });

  it('reads the range from /proc, and takes the default on text it cannot read', () => {
    expect(ephemeralRange(() => '10000\t20000\n')).toEqual([10000, 20000]);
    expect(ephemeralRange(() => 'junk')).toEqual([32768, 60999]);
    expect(
      ephemeralRange(() => {
        throw new Error('ENOENT');
      }),
    ).toEqual([32768, 60999]);
  });

  it('takes the wider span outside the range, and names the sysctl when neither holds 1000 ports', () => {
    expect(pickSpan([32768, 60999])).toEqual([LOWEST_PICKED, 32767]);
    expect(pickSpan([15000, 30000])).toEqual([30001, 65535]);
    expect(() => pickSpan([1024, 65000])).toThrow(/ip_local_port_range is 1024-65000: fewer than 1000 ports/);
  });
});
