/**
 * Hostile and broken PVE members over real TLS sockets: a member that takes a request and never
 * answers, one killed after a write, a refused port the old client would not even try, a
 * redirect, a body trickled or endless, and a 2xx that is not PVE's envelope.
 */
import { rmSync } from 'node:fs';
import { type FakePve, startFakePve } from '../fakes/pve/server';
import { closedPort, pveClient, privateTempDir } from '../support/pve-members';
import { makeCert, type TestCert } from '../support/tls';

const memoryBase = privateTempDir();
let ca: TestCert;
const fakes: FakePve[] = [];
const start = async () => {
  const fake = await startFakePve({ tls: { key: ca.key, cert: ca.cert } });
  fakes.push(fake);
  return fake;
};
const client = (endpoints: string[], timeoutSeconds = 30) =>
  pveClient({ endpoints, caFile: ca.certFile, timeoutSeconds }, memoryBase);
const METRIC = { type: 'graphite', server: '10.0.0.5', port: 2003 };

beforeAll(() => {
  ca = makeCert();
});
afterEach(async () => {
  await Promise.all(fakes.splice(0).map((f) => f.stop()));
});
afterAll(() => {
  ca.cleanup();
  rmSync(memoryBase, { recursive: true, force: true });
});

describe('failover past a broken member', () => {
  test('a GET to a member that accepts TLS and never answers moves on to a healthy one at its deadline', async () => {
    const hung = await start();
    const healthy = await start();
    hung.hang('GET', /version/);
    const pve = client([hung.url, healthy.url], 4);
    const started = Date.now();
    await expect(pve.call('GET', 'version')).resolves.toMatchObject({ version: expect.any(String) });
    console.log(`GET past a hung member (timeoutSeconds 4, 2 members): ${Date.now() - started} ms`);
    expect(hung.requests.map((r) => r.method)).toEqual(['GET']);
    expect(healthy.requests.map((r) => r.method)).toEqual(['GET']);
    await pve.close();
  });

  test('a GET whose member was killed after taking it moves on to the next member', async () => {
    const killed = await start();
    const healthy = await start();
    killed.misbehave('GET', /version/, { kind: 'reset' });
    const pve = client([killed.url, healthy.url]);
    await expect(pve.call('GET', 'version')).resolves.toMatchObject({ version: expect.any(String) });
    await pve.close();
  });

  test('a member on port 1, where connect is refused, is skipped for reads and writes alike', async () => {
    const healthy = await start();
    const pve = client(['https://127.0.0.1:1', healthy.url]);
    await expect(pve.call('GET', 'version')).resolves.toMatchObject({ version: expect.any(String) });
    await pve.call('POST', 'cluster/metrics/server/port-one', METRIC);
    expect(healthy.metricServers()).toHaveProperty('port-one');
    await pve.close();
  });

  test('when every member is refused the error lists each one', async () => {
    const pve = client(['https://127.0.0.1:1', await closedPort()]);
    await expect(pve.call('GET', 'version')).rejects.toThrow(
      /No PVE cluster member reachable: GET \/version reached none of 2 members: https:\/\/127.0.0.1:1 \(connect E/,
    );
    await pve.close();
  });
});

describe('a write that was sent is never sent again', () => {
  test.each([
    ['never answers', { kind: 'hang' as const }],
    ['is killed after taking it', { kind: 'reset' as const }],
  ])('a POST to a member that %s fails as outcome unknown and no other member sees it', async (_, fault) => {
    const first = await start();
    const second = await start();
    if (fault.kind === 'hang') first.hang('POST', /metrics/);
    else first.misbehave('POST', /metrics/, fault);
    const pve = client([first.url, second.url], 4);
    await expect(pve.call('POST', 'cluster/metrics/server/once', METRIC)).rejects.toThrow(
      new RegExp(
        '^PVE write outcome unknown: https:\\S+ took POST /cluster/metrics/server/once but gave no answer \\(.+\\); ' +
          'it was not re-sent to another member.*Check the cluster, then run apply again',
      ),
    );
    expect(first.requests.map((r) => `${r.method} ${r.path}`)).toEqual(['POST /api2/json/cluster/metrics/server/once']);
    expect(second.requests).toEqual([]);
    await pve.close();
  });
});

describe('redirects are refused, never followed', () => {
  test.each(['GET', 'POST'] as const)(
    'a 307 on a %s names the location, and neither it nor the token goes there',
    async (method) => {
      const first = await start();
      const elsewhere = await start();
      const location = `${elsewhere.url}/api2/json/cluster/metrics/server/moved`;
      first.misbehave(method, /moved/, { kind: 'redirect', status: 307, location });
      const pve = client([first.url, elsewhere.url]);
      await expect(
        pve.call(method, 'cluster/metrics/server/moved', method === 'POST' ? METRIC : undefined),
      ).rejects.toThrow(`PVE answered 307: redirect to ${location} not followed`);
      expect(first.requests).toHaveLength(1);
      expect(elsewhere.requests).toEqual([]);
      await pve.close();
    },
  );

  test('a redirect to the same member is not followed either', async () => {
    const fake = await start();
    fake.misbehave('GET', /version/, { kind: 'redirect', status: 301, location: `${fake.url}/api2/json/version` });
    const pve = client([fake.url]);
    await expect(pve.call('GET', 'version')).rejects.toThrow(/PVE answered 301: redirect to .* not followed/);
    expect(fake.requests).toHaveLength(1);
    await pve.close();
  });
});

describe('every answer is bounded', () => {
  test('a body trickled a byte at a time is cut at the deadline, headers already received', async () => {
    const fake = await start();
    fake.misbehave('GET', /version/, { kind: 'slow-body', bytes: 1000, intervalMs: 200 });
    const pve = client([fake.url], 2);
    await expect(pve.call('GET', 'version')).rejects.toThrow(
      /No PVE cluster member answered: GET \/version got no answer .*\(no complete answer within 2 s\)/,
    );
    await pve.close();
  });

  test('a trickled answer to a write is cut at the deadline and reported as outcome unknown', async () => {
    const fake = await start();
    fake.misbehave('POST', /metrics/, { kind: 'slow-body', bytes: 1000, intervalMs: 200 });
    const pve = client([fake.url], 2);
    await expect(pve.call('POST', 'cluster/metrics/server/slow', METRIC)).rejects.toThrow(
      /PVE write outcome unknown: .*no complete answer within 2 s/,
    );
    await pve.close();
  });

  test('an endless body is cut off at the size cap', async () => {
    const fake = await start();
    fake.misbehave('GET', /version/, { kind: 'endless-body' });
    const pve = client([fake.url]);
    await expect(pve.call('GET', 'version')).rejects.toThrow(/answer larger than 16777216 bytes, cut off/);
    await pve.close();
  });
});

describe('a 2xx that is not PVE envelope is one clear line', () => {
  const html = { kind: 'raw' as const, status: 200, contentType: 'text/html', body: '<html><body>Login</body></html>' };

  test('a GET answered with HTML names the endpoint, the request and what came back', async () => {
    const fake = await start();
    fake.misbehave('GET', /version/, html);
    const pve = client([fake.url]);
    await expect(pve.call('GET', 'version')).rejects.toThrow(
      new RegExp(
        "^PVE answer unreadable: https:\\S+ answered GET /version with 200 and a body that is not PVE's JSON " +
          'envelope \\(text/html, 31 bytes, starting "<html><body>Login',
      ),
    );
    await pve.close();
  });

  test('a write answered with HTML is an outcome unknown, not a success', async () => {
    const fake = await start();
    fake.misbehave('POST', /metrics/, html);
    const pve = client([fake.url]);
    await expect(pve.call('POST', 'cluster/metrics/server/html', METRIC)).rejects.toThrow(
      new RegExp(
        '^PVE write outcome unknown: https:\\S+ took POST /cluster/metrics/server/html but answered 200 ' +
          "with a body that is not PVE's JSON envelope .*run apply again",
      ),
    );
    await pve.close();
  });

  test('a GET answered with data null, where a section was expected, names the request', async () => {
    const fake = await start();
    fake.misbehave('GET', /server\/x/, {
      kind: 'raw',
      status: 200,
      contentType: 'application/json',
      body: '{"data":null}',
    });
    const pve = client([fake.url]);
    await expect(pve.call('GET', 'cluster/metrics/server/x')).rejects.toThrow(
      /answered GET \/cluster\/metrics\/server\/x with 200 and \{"data":null\} where data was expected/,
    );
    await pve.close();
  });
});
