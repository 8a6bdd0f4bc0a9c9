/**
 * The PVE client over real sockets: member failover only when a request never reached a server,
 * no re-sent write after a timeout, TLS by CA file, pin or explicit insecure, and the whole
 * envelope for kinds that need `data`'s siblings. Hostile servers are in test/faults.
 */
import { rmSync } from 'node:fs';
import { createServer, type Socket } from 'node:net';
import { PveApiError } from '../../../src/pve/client';
import { type FakePve, startFakePve } from '../../fakes/pve/server';
import { makeCert, type TestCert } from '../../support/tls';
import { closedPort, pveClient, privateTempDir } from '../../support/pve-members';

const memoryDir = privateTempDir();
let ca: TestCert;
beforeAll(() => {
  ca = makeCert();
});
afterAll(() => {
  ca.cleanup();
  rmSync(memoryDir, { recursive: true, force: true });
});
const client = (target: Parameters<typeof pveClient>[0]) => pveClient({ caFile: ca.certFile, ...target }, memoryDir);
const noCa = (target: Parameters<typeof pveClient>[0]) => pveClient(target, memoryDir);

describe('member failover', () => {
  const fakes: FakePve[] = [];
  const start = async (options = {}) => {
    const fake = await startFakePve({ tls: { key: ca.key, cert: ca.cert }, ...options });
    fakes.push(fake);
    return fake;
  };
  afterEach(async () => {
    await Promise.all(fakes.splice(0).map((f) => f.stop()));
  });

  test('a refused member is skipped, and the member that answered is asked first next time', async () => {
    const dead = await closedPort();
    const live = await start();
    const pve = client({ endpoints: [dead, live.url] });
    await pve.call('GET', 'version');
    await pve.call('GET', 'version');
    expect(live.requests).toHaveLength(2);
    await pve.close();
  });

  test('the member that answered is remembered for the next process, which skips the dead member', async () => {
    const dead = await closedPort();
    const live = await start();
    const first = client({ endpoints: [dead, live.url] });
    await first.call('GET', 'version');
    await first.close();
    const connections: Socket[] = [];
    const revived = createServer((socket) => connections.push(socket));
    await new Promise<void>((resolve) => revived.listen(Number(new URL(dead).port), '127.0.0.1', resolve));
    try {
      const second = client({ endpoints: [dead, live.url] });
      await second.call('GET', 'version');
      await second.close();
      expect(connections).toHaveLength(0);
      expect(live.requests).toHaveLength(2);
    } finally {
      connections.forEach((socket) => socket.destroy());
      await new Promise((resolve) => revived.close(resolve));
    }
  });

  test('a member whose name does not resolve is skipped', async () => {
    const live = await start();
    const pve = client({ endpoints: ['https://no-such-member.invalid:8006', live.url] });
    await expect(pve.call('GET', 'version')).resolves.toMatchObject({ version: expect.any(String) });
    await pve.close();
  });

  test('a member whose TLS handshake fails is skipped, and a write still goes out once', async () => {
    const cert = makeCert();
    try {
      const untrusted = await start({ tls: { key: cert.key, cert: cert.cert } });
      const live = await start();
      const pve = client({ endpoints: [untrusted.url, live.url] });
      await pve.call('POST', 'cluster/metrics/server/tls-skip', { type: 'graphite', server: 'a', port: 2003 });
      expect(untrusted.requests).toHaveLength(0);
      expect(live.metricServers()).toHaveProperty('tls-skip');
      await pve.close();
    } finally {
      cert.cleanup();
    }
  });

  test('an HTTP 500 is an answer: the next member is not asked', async () => {
    const first = await start();
    const second = await start();
    first.failNext('GET', /version/, 500, 'something broke');
    const pve = client({ endpoints: [first.url, second.url] });
    await expect(pve.call('GET', 'version')).rejects.toThrow(/PVE answered 500: something broke/);
    expect(second.requests).toHaveLength(0);
    await pve.close();
  });

  test('a write that timed out after it was sent is not re-sent to another member', async () => {
    const first = await start();
    const second = await start();
    first.hang('POST', /metrics\/server/);
    const pve = client({ endpoints: [first.url, second.url], timeoutSeconds: 4 });
    await expect(
      pve.call('POST', 'cluster/metrics/server/x', { type: 'graphite', server: 'a', port: 2003 }),
    ).rejects.toThrow(
      /PVE write outcome unknown: .* took POST \/cluster\/metrics\/server\/x but gave no answer .*it was not re-sent/,
    );
    expect(first.requests.map((r) => r.method)).toEqual(['POST']);
    expect(second.requests).toHaveLength(0);
    expect(second.metricServers()).toEqual({});
    await pve.close();
  });

  test('when no member can be reached the error lists each with its reason', async () => {
    const a = await closedPort();
    const b = await closedPort();
    const pve = client({ endpoints: [a, b] });
    await expect(pve.call('GET', 'version')).rejects.toThrow(
      /No PVE cluster member reachable: GET \/version reached none of 2 members.*ECONNREFUSED.*ECONNREFUSED/,
    );
  });

  test('an error answer keeps the status for callers that branch on it', async () => {
    const fake = await start();
    const pve = client({ endpoints: [fake.url] });
    const error = await pve.call('GET', 'cluster/metrics/server/none').catch((e: unknown) => e);
    expect(error).toBeInstanceOf(PveApiError);
    expect((error as PveApiError).status).toBe(500);
    expect((error as PveApiError).pveMessage).toBe("status server entry 'none' does not exist");
    await pve.close();
  });

  test('the envelope call returns data with its siblings, which call alone would drop', async () => {
    const fake = await start();
    const answer = JSON.stringify({ data: [{ iface: 'vmbr0' }], changes: '--- a\n+++ b\n' });
    fake.misbehave('GET', /network/, {
      kind: 'raw',
      status: 200,
      contentType: 'application/json;charset=UTF-8',
      body: answer,
    });
    const pve = client({ endpoints: [fake.url] });
    await expect(pve.envelope('GET', 'nodes/n1/network')).resolves.toEqual({
      data: [{ iface: 'vmbr0' }],
      changes: '--- a\n+++ b\n',
    });
    await pve.close();
  });

  test('a write answered with data null is a success, as PVE answers every void write', async () => {
    const fake = await start();
    const pve = client({ endpoints: [fake.url] });
    await expect(
      pve.call('POST', 'cluster/metrics/server/void-write', { type: 'graphite', server: 'a', port: 2003 }),
    ).resolves.toBeNull();
    await pve.close();
  });
});

describe('TLS', () => {
  let cert: TestCert;
  let other: TestCert;
  let fake: FakePve;
  beforeAll(async () => {
    cert = makeCert();
    other = makeCert();
    fake = await startFakePve({ tls: { key: cert.key, cert: cert.cert } });
  });
  afterAll(async () => {
    await fake.stop();
    cert.cleanup();
    other.cleanup();
  });

  test('a self-signed member is refused by default, and the error says how to trust it', async () => {
    await expect(noCa({ endpoints: [fake.url] }).call('GET', 'version')).rejects.toThrow(
      /No PVE cluster member reachable.*self-signed.*caFile, fingerprints/,
    );
  });

  test('the CA file makes it trusted', async () => {
    await expect(noCa({ endpoints: [fake.url], caFile: cert.certFile }).call('GET', 'version')).resolves.toMatchObject({
      version: expect.any(String),
    });
  });

  test('a matching pin makes it trusted, in either notation', async () => {
    await expect(
      noCa({ endpoints: [fake.url], fingerprints: { [fake.url]: cert.fingerprint } }).call('GET', 'version'),
    ).resolves.toBeDefined();
    const bare = cert.fingerprint.replace(/:/g, '').toLowerCase();
    await expect(
      noCa({ endpoints: [fake.url], fingerprints: { [fake.url]: bare } }).call('GET', 'version'),
    ).resolves.toBeDefined();
  });

  test('a wrong pin is refused and the error prints the fingerprint the member offered', async () => {
    const pve = noCa({ endpoints: [fake.url], fingerprints: { [fake.url]: other.fingerprint } });
    const before = fake.requests.length;
    await expect(pve.call('GET', 'version')).rejects.toThrow(
      `offered certificate ${cert.fingerprint}, which is not the pinned ${other.fingerprint}`,
    );
    expect(fake.requests).toHaveLength(before);
  });

  test('an unreadable CA file is named, not mistaken for a network failure', async () => {
    await expect(noCa({ endpoints: [fake.url], caFile: '/nonexistent/ca.pem' }).call('GET', 'version')).rejects.toThrow(
      /PVE CA file unreadable: caFile \/nonexistent\/ca.pem cannot be read \(ENOENT/,
    );
  });

  test('insecure accepts it only because it was asked to', async () => {
    await expect(noCa({ endpoints: [fake.url], insecure: true }).call('GET', 'version')).resolves.toBeDefined();
  });
});
