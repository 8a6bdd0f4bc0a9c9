/**
 * The PVE client over real sockets: member failover only when a request never reached a server,
 * no re-sent write after a timeout, and TLS by CA file, pin or explicit insecure.
 */
import { mkdtempSync } from 'node:fs';
import { createServer, type Server, type Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PveApiError, PveClient } from '../../../src/pve/client';
import { fileStore } from '../../../src/pve/last-good';
import type { PveTarget } from '../../../src/pve/target';
import { type FakePve, startFakePve } from '../../fakes/pve/server';
import { makeCert, type TestCert } from '../../support/tls';

const env = { PROXMOX_VE_API_TOKEN: 'root@pam!homelab=fake-secret-0000' };
const memoryDir = mkdtempSync(join(tmpdir(), 'homelab-last-good-'));
const client = (target: Partial<PveTarget> & Pick<PveTarget, 'endpoints'>) =>
  new PveClient({ tokenEnv: 'PROXMOX_VE_API_TOKEN', ...target }, env, fileStore(target.endpoints, memoryDir));

/** A loopback port with nothing listening: connect is refused. */
const closedPort = async (): Promise<string> => {
  const server: Server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  await new Promise((resolve) => server.close(resolve));
  return `http://127.0.0.1:${port}`;
};

describe('member failover', () => {
  const fakes: FakePve[] = [];
  const start = async (options = {}) => {
    const fake = await startFakePve(options);
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
    const pve = client({ endpoints: ['http://no-such-member.invalid:8006', live.url] });
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
    const pve = client({ endpoints: [first.url, second.url], timeoutSeconds: 1 });
    await expect(pve.call('POST', 'cluster/metrics/server/x', { type: 'graphite', server: 'a', port: 2003 })).rejects.toThrow(
      /PVE write outcome unknown: .* took POST \/cluster\/metrics\/server\/x but gave no answer .*it was not re-sent/,
    );
    expect(second.requests).toHaveLength(0);
    expect(second.metricServers()).toEqual({});
    await pve.close();
  });

  test('when no member can be reached the error lists each with its reason', async () => {
    const a = await closedPort();
    const b = await closedPort();
    const pve = client({ endpoints: [a, b] });
    await expect(pve.call('GET', 'version')).rejects.toThrow(/No PVE cluster member reachable: GET \/version reached none of 2 members.*ECONNREFUSED.*ECONNREFUSED/);
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
    await expect(client({ endpoints: [fake.url] }).call('GET', 'version')).rejects.toThrow(/No PVE cluster member reachable.*self-signed.*caFile, fingerprints/);
  });

  test('the CA file makes it trusted', async () => {
    await expect(client({ endpoints: [fake.url], caFile: cert.certFile }).call('GET', 'version')).resolves.toMatchObject({ version: expect.any(String) });
  });

  test('a matching pin makes it trusted, in either notation', async () => {
    await expect(client({ endpoints: [fake.url], fingerprints: { [fake.url]: cert.fingerprint } }).call('GET', 'version')).resolves.toBeDefined();
    const bare = cert.fingerprint.replace(/:/g, '').toLowerCase();
    await expect(client({ endpoints: [fake.url], fingerprints: { [fake.url]: bare } }).call('GET', 'version')).resolves.toBeDefined();
  });

  test('a wrong pin is refused and the error prints the fingerprint the member offered', async () => {
    const pve = client({ endpoints: [fake.url], fingerprints: { [fake.url]: other.fingerprint } });
    const before = fake.requests.length;
    await expect(pve.call('GET', 'version')).rejects.toThrow(`offered certificate ${cert.fingerprint}, which is not the pinned ${other.fingerprint}`);
    expect(fake.requests).toHaveLength(before);
  });

  test('an unreadable CA file is named, not mistaken for a network failure', async () => {
    await expect(client({ endpoints: [fake.url], caFile: '/nonexistent/ca.pem' }).call('GET', 'version')).rejects.toThrow(
      /PVE CA file unreadable: caFile \/nonexistent\/ca.pem cannot be read \(ENOENT/,
    );
  });

  test('insecure accepts it only because it was asked to', async () => {
    await expect(client({ endpoints: [fake.url], insecure: true }).call('GET', 'version')).resolves.toBeDefined();
  });
});
