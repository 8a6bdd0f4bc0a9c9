// The fake PVE's protocol against reference/pve-api.md (A3, A5, A6): auth, envelopes, statuses,
// injected faults, TLS and the CLI. Metric-server semantics are in pve/metric-servers.test.ts.
import { execFileSync, spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

import { build } from 'esbuild';

import { startFakePve, type FakePve } from './pve/server';
import { call, waitFor } from './pve/test-client';

const SERVER = '/cluster/metrics/server';
const INFLUX = { type: 'influxdb', server: '10.0.0.5', port: '8086', token: 'influx-secret' };

describe('fake PVE protocol', () => {
  let fake: FakePve;
  beforeEach(async () => {
    fake = await startFakePve({
      tokens: {
        'root@pam!homelab': { secret: 'fake-secret-0000', privileges: 'modify' },
        'ro@pve!read': { secret: 'ro-secret', privileges: 'audit' },
        'nobody@pve!none': { secret: 'none-secret', privileges: 'none' },
      },
    });
  });
  afterEach(() => fake.stop());

  test('listens on 127.0.0.1 and serves /version in the success envelope', async () => {
    expect(fake.url).toBe(`http://127.0.0.1:${fake.port}`);
    const res = await call(fake.url, 'GET', '/version');
    expect([res.status, res.reason]).toEqual([200, 'OK']);
    expect(res.body).toEqual({ data: { version: '9.2.11', release: '9.2', repoid: expect.any(String) } });
  });

  test.each([
    ['no Authorization header', null, 'No ticket'],
    ['a wrong secret', 'PVEAPIToken=root@pam!homelab=nope', 'Authentication failed!'],
    ['an unknown token', 'PVEAPIToken=root@pam!other=fake-secret-0000', 'Authentication failed!'],
    ['a value without =', 'PVEAPIToken=root@pam!homelab', 'Authentication failed!'],
  ])('answers 401 with a bare status line for %s', async (_, auth, reason) => {
    const res = await call(fake.url, 'GET', SERVER, { auth });
    expect([res.status, res.reason, res.text]).toEqual([401, reason, '']);
  });

  test('delays a 401 by the configured time (PVE: about 3 s)', async () => {
    const slow = await startFakePve({ unauthorizedDelayMs: 150 });
    const started = Date.now();
    const res = await call(slow.url, 'GET', '/version', { auth: null });
    await slow.stop();
    expect([res.status, Date.now() - started >= 140]).toEqual([401, true]);
  });

  test.each([
    ['an unknown verb', 'PATCH', '/api2/json/version', "method 'PATCH' not available"],
    ['a path without a format', 'GET', '/api2/', 'no such uri'],
    ['a path outside the API', 'GET', '/index.html', "no such file '/index.html'"],
  ])('answers 501 with a bare status line for %s', async (_, method, path, reason) => {
    const res = await call(fake.url, method, path, { raw: true });
    expect([res.status, res.reason, res.text]).toEqual([501, reason, '']);
  });

  test('parses the token header per A5: space form, URI escapes, split on the last =', async () => {
    const auth = 'PVEAPIToken root%40pam!homelab=fake-secret-0000';
    const spaced = await call(fake.url, 'GET', '/version', { auth });
    expect(spaced.status).toBe(200);
    const viaLastEquals = await startFakePve({ tokens: { 'a@pve!x=y': { secret: 's', privileges: 'audit' } } });
    const res = await call(viaLastEquals.url, 'GET', '/version', { auth: 'PVEAPIToken=a@pve!x=y=s' });
    await viaLastEquals.stop();
    expect(res.status).toBe(200);
  });

  test('logs requests with the token id and never the secret', async () => {
    await call(fake.url, 'POST', `${SERVER}/influx`, { form: INFLUX });
    expect(fake.requests).toEqual([
      { method: 'POST', path: `/api2/json${SERVER}/influx`, body: INFLUX, auth: 'root@pam!homelab' },
    ]);
    expect(JSON.stringify(fake.requests)).not.toContain('fake-secret-0000');
  });

  test('refuses a write by an audit token with 403 before checking parameters', async () => {
    const auth = 'PVEAPIToken=ro@pve!read=ro-secret';
    const res = await call(fake.url, 'POST', `${SERVER}/x1`, { auth, form: { bad: '1' } });
    expect([res.status, res.reason]).toEqual([403, 'Permission check failed (/, Sys.Modify)']);
    expect(res.body).toEqual({ data: null, message: 'Permission check failed (/, Sys.Modify)\n' });
    const read = await call(fake.url, 'GET', SERVER, { auth });
    expect(read.status).toBe(200);
  });

  test('refuses a read without Sys.Audit', async () => {
    const auth = 'PVEAPIToken=nobody@pve!none=none-secret';
    const res = await call(fake.url, 'GET', '/cluster/status', { auth });
    expect([res.status, res.reason]).toEqual([403, 'Permission check failed (/, Sys.Audit)']);
  });

  test.each([
    ['POST', SERVER],
    ['GET', '/x/y'],
    ['PUT', '/cluster/status'],
    ['GET', `${SERVER}/a/b`],
  ])('answers 501 for %s %s', async (method, path) => {
    const res = await call(fake.url, method, path);
    const message = `Method '${method} ${path}' not implemented`;
    expect([res.status, res.reason, res.body]).toEqual([501, message, { data: null, message }]);
  });

  test('rejects an id sent both in the path and the body', async () => {
    const res = await call(fake.url, 'POST', `${SERVER}/a1`, { form: { ...INFLUX, id: 'a1' } });
    expect(res.body.errors).toEqual({ id: 'duplicate parameter (already defined in URI)' });
  });

  test('fails the next matching request once, in the PVE envelope', async () => {
    fake.failNext('GET', /metrics\/server$/, 500, 'boom\nsecond line');
    const failed = await call(fake.url, 'GET', SERVER);
    const body = { data: null, message: 'boom\nsecond line' };
    expect([failed.status, failed.reason, failed.body]).toEqual([500, 'boom', body]);
    expect((await call(fake.url, 'GET', SERVER)).status).toBe(200);
  });

  test('injects a bare 401 like a real authentication failure', async () => {
    fake.failNext('*', '^/version$', 401, 'Authentication failed!');
    const res = await call(fake.url, 'GET', '/version');
    expect([res.status, res.reason, res.text]).toEqual([401, 'Authentication failed!', '']);
  });

  test('hangs a request without answering, then serves the next one', async () => {
    const form = { server: 'h', port: '1' };
    fake.hang('PUT', `${SERVER}/`);
    await expect(call(fake.url, 'PUT', `${SERVER}/aa`, { form, timeoutMs: 200 })).rejects.toThrow('timed out');
    expect(fake.requests.map((r) => r.method)).toEqual(['PUT']);
    expect((await call(fake.url, 'PUT', `${SERVER}/aa`, { form })).status).toBe(500);
  });

  test('stops even while a hung request is open', async () => {
    fake.hang('GET', '.*');
    const pending = call(fake.url, 'GET', SERVER);
    await waitFor(() => fake.requests.length === 1); // the fake holds the request: stop must end it
    await fake.stop();
    await expect(pending).rejects.toThrow();
    fake = await startFakePve(); // for afterEach
  });

  test('emulates servers before libpve-http-server 5.2: message in the reason phrase only', async () => {
    const old = await startFakePve({ oldServer: true });
    const missing = await call(old.url, 'GET', `${SERVER}/nope`);
    const invalid = await call(old.url, 'POST', `${SERVER}/x1`, { form: { type: 'graphite' } });
    await old.stop();
    const reason = "status server entry 'nope' does not exist";
    expect([missing.status, missing.reason, missing.body]).toEqual([500, reason, { data: null }]);
    expect(invalid.reason).toBe('Parameter verification failed.');
    const errors = { server: expect.any(String), port: expect.any(String) };
    expect(invalid.body).toEqual({ data: null, errors });
  });
});

describe('fake PVE cluster status (A3)', () => {
  test.each([
    ['a quorate two-node cluster', { nodes: ['n1', 'n2'] }, 1, [1, 1]],
    ['a cluster with one of two nodes offline', { nodes: ['n1', { name: 'n2', online: false }] }, 0, [1, 0]],
  ])('reports %s', async (_, shape, quorate, online) => {
    const fake = await startFakePve(shape);
    const { body } = await call(fake.url, 'GET', '/cluster/status');
    await fake.stop();
    const clusterRow = { type: 'cluster', id: 'cluster', name: 'homelab', nodes: 2, version: 2 };
    expect(body.data[0]).toEqual({ ...clusterRow, quorate });
    expect(body.data.slice(1).map((row: { online: number }) => row.online)).toEqual(online);
    expect(body.data[1]).toMatchObject({ type: 'node', id: 'node/n1', name: 'n1', nodeid: 1, local: 1 });
  });

  test('reports a standalone node as one node row without a cluster row or quorate', async () => {
    const fake = await startFakePve({ clusterName: null, nodes: ['pve'] });
    const { body } = await call(fake.url, 'GET', '/cluster/status');
    await fake.stop();
    const row = { type: 'node', id: 'node/pve', name: 'pve', ip: '10.0.0.1', level: '' };
    expect(body.data).toEqual([{ ...row, local: 1, nodeid: 0, online: 1 }]);
  });
});

describe('fake PVE over TLS and as a process', () => {
  const dir = mkdtempSync(join(tmpdir(), 'fake-pve-'));
  beforeAll(() => {
    const subject = ['-subj', '/CN=127.0.0.1', '-addext', 'subjectAltName=IP:127.0.0.1'];
    const key = ['-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:prime256v1', '-nodes', '-days', '2'];
    const out = ['-keyout', join(dir, 'key.pem'), '-out', join(dir, 'cert.pem')];
    execFileSync('openssl', ['req', '-x509', ...key, ...subject, ...out], { stdio: 'ignore' });
  });
  afterAll(() => rmSync(dir, { recursive: true, force: true }));
  const pem = (name: string): string => readFileSync(join(dir, name), 'utf8');

  test('serves https on 127.0.0.1 when given a key and certificate', async () => {
    const fake = await startFakePve({ tls: { key: pem('key.pem'), cert: pem('cert.pem') } });
    const res = await call(fake.url, 'GET', '/version', { ca: pem('cert.pem') });
    await fake.stop();
    expect(fake.url).toMatch(/^https:\/\/127\.0\.0\.1:\d+$/);
    expect(res.status).toBe(200);
  });

  test('bundles main.ts with node builtins only, prints its address and stops on SIGTERM', async () => {
    const outfile = join(dir, 'fake-pve.js');
    const entry = join(__dirname, '..', '..', 'src', 'simulator', 'pve', 'main.ts');
    await build({ entryPoints: [entry], bundle: true, platform: 'node', packages: 'external', outfile });
    const required = readFileSync(outfile, 'utf8').match(/require\("[^"]+"\)/g) ?? [];
    expect(required.filter((name) => !name.includes('"node:'))).toEqual([]);
    const args = [outfile, '--port', '0', '--tls-dir', dir, '--token', 'ci@pve!t=s3cret'];
    const child = spawn(process.execPath, args, { stdio: ['ignore', 'pipe', 'inherit'] });
    const line = await new Promise<string>((resolve) => child.stdout.once('data', (c: Buffer) => resolve(`${c}`)));
    const { url, port } = JSON.parse(line) as { url: string; port: number };
    expect(url).toBe(`https://127.0.0.1:${port}`);
    const auth = 'PVEAPIToken=ci@pve!t=s3cret';
    const res = await call(url, 'GET', '/version', { ca: pem('cert.pem'), auth });
    expect(res.status).toBe(200);
    const exited = new Promise<number | null>((resolve) => child.once('exit', resolve));
    child.kill('SIGTERM');
    expect(await exited).toBe(0);
  });
});
