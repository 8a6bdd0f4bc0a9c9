/**
 * `cdktf-homelab fake-pve`, the simulator users run (bin/cdktf-homelab.js over build/fake-pve.js; `npm run bundle`
 * first): it prints what a stack needs to reach it, serves HTTPS with a certificate it makes once, has the members
 * examples/network.ts declares, and keeps its state across a restart. Guards against a simulator that comes back
 * empty (a stack that believes its objects exist) or with a new certificate (a pin or CA file that stops working).
 */
import { type ChildProcessWithoutNullStreams, spawn } from 'node:child_process';
import { X509Certificate } from 'node:crypto';
import { chmodSync, mkdirSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

import { call } from '../../../fakes/pve/test-client';

const BIN = join(__dirname, '..', '..', '..', '..', 'bin', 'cdktf-homelab.js');
const SERVER = '/cluster/metrics/server';

interface Ready {
  readonly url: string;
  readonly fingerprint: string;
  readonly token: string;
  readonly caFile: string;
}

let dir: string;
const running: ChildProcessWithoutNullStreams[] = [];

beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'fake-pve-cli-'));
});
afterEach(() => {
  for (const child of running.splice(0)) child.kill('SIGTERM');
  rmSync(dir, { recursive: true, force: true });
});

/** Starts the bin in `dir` on a free port; resolves to its JSON line, or rejects with its stderr if it exits. */
const start = (...args: string[]): Promise<{ child: ChildProcessWithoutNullStreams; ready: Ready }> => {
  const child = spawn(process.execPath, [BIN, 'fake-pve', '--port', '0', ...args], { cwd: dir });
  running.push(child);
  let stderr = '';
  child.stderr.on('data', (chunk: Buffer) => (stderr += `${chunk}`));
  return new Promise((resolve, reject) => {
    child.stdout.once('data', (line: Buffer) => resolve({ child, ready: JSON.parse(`${line}`) as Ready }));
    child.once('exit', (code) => reject(new Error(`fake-pve exited ${code}: ${stderr}`)));
  });
};

const stop = async (child: ChildProcessWithoutNullStreams): Promise<number | null> => {
  const exited = new Promise<number | null>((resolve) => child.once('exit', resolve));
  child.kill('SIGTERM');
  return exited;
};

test('prints its URL, certificate fingerprint, token and CA file; serves members n2 and n3 over HTTPS', async () => {
  const { ready } = await start();
  expect(ready.url).toMatch(/^https:\/\/127\.0\.0\.1:\d+$/);
  expect(ready.caFile).toBe(join(dir, '.fake-pve', 'cert.pem'));
  const cert = readFileSync(ready.caFile, 'utf8');
  expect(ready.fingerprint).toBe(new X509Certificate(cert).fingerprint256);
  const status = await call(ready.url, 'GET', '/cluster/status', { ca: cert, auth: `PVEAPIToken=${ready.token}` });
  expect(
    status.body.data.filter((row: { type: string }) => row.type === 'node').map((row: { name: string }) => row.name),
  ).toEqual(['n2', 'n3']);
});

test('a restart keeps the certificate, the metric servers with their tokens, and what was staged', async () => {
  const first = await start();
  const ca = readFileSync(first.ready.caFile, 'utf8');
  const api = (url: string, method: string, path: string, form?: Record<string, string>) =>
    call(url, method, path, { ca, auth: `PVEAPIToken=${first.ready.token}`, form });
  const influx = { type: 'influxdb', server: '10.0.0.5', port: '8089', token: 'kept-secret' };
  expect((await api(first.ready.url, 'POST', `${SERVER}/influx`, influx)).status).toBe(200);
  const bridge = { iface: 'vmbr9', type: 'bridge', autostart: '1', bridge_ports: 'enp2s0' };
  expect((await api(first.ready.url, 'POST', '/nodes/n3/network', bridge)).status).toBe(200);
  expect(await stop(first.child)).toBe(0);

  const second = await start();
  expect(second.ready.fingerprint).toBe(first.ready.fingerprint);
  const server = await api(second.ready.url, 'GET', `${SERVER}/influx`);
  expect(server.body.data).toMatchObject({ type: 'influxdb', server: '10.0.0.5', port: 8089 });
  expect((await api(second.ready.url, 'GET', '/nodes/n3/network')).body.changes).toContain('+auto vmbr9\n');
  const stateFile = join(dir, '.fake-pve', 'state.json');
  expect(JSON.parse(readFileSync(stateFile, 'utf8')).metricTokens).toEqual({ influx: 'kept-secret' });
  expect(statSync(stateFile).mode & 0o777).toBe(0o600);
});

test('--stage starts a member with a staged interfaces.new, as if someone had edited it', async () => {
  writeFileSync(join(dir, 'n2.new'), 'auto lo\niface lo inet loopback\n\nauto vmbr7\niface vmbr7 inet manual\n');
  const { ready } = await start('--stage', 'n2=n2.new');
  const ca = readFileSync(ready.caFile, 'utf8');
  const network = await call(ready.url, 'GET', '/nodes/n2/network', { ca, auth: `PVEAPIToken=${ready.token}` });
  expect(network.body.changes).toContain('+auto vmbr7\n');
});

test('a state file that is not one stops it, naming the file, instead of starting empty', async () => {
  await start().then(({ child }) => stop(child));
  const stateFile = join(dir, '.fake-pve', 'state.json');
  writeFileSync(stateFile, '{ not json');
  await expect(start()).rejects.toThrow(`${stateFile} is not a saved fake PVE state`);
});

// A JSON state of another shape was restored as far as it went: a number as a running file broke later requests.
test('a state file of another shape stops it, naming the file and the part', async () => {
  await start().then(({ child }) => stop(child));
  const stateFile = join(dir, '.fake-pve', 'state.json');
  writeFileSync(stateFile, JSON.stringify({ network: { n2: { running: 5 } } }));
  await expect(start()).rejects.toThrow(`${stateFile} is not a saved fake PVE state (network.n2.running: `);
});

// Issue 27: a state folder another user made (or left open) had its key served; a umask of 000 left the
// certificate 0666.
test('refuses a state folder others may open, and keeps its files 0600 whatever the umask', async () => {
  const open = join(dir, 'open');
  mkdirSync(open, { mode: 0o755 });
  chmodSync(open, 0o755);
  await expect(start('--state', open)).rejects.toThrow(`--state ${open} may be opened by others (mode 755)`);
  const umask = process.umask(0);
  let started: Awaited<ReturnType<typeof start>>;
  try {
    started = await start('--state', join(dir, 'mine'));
  } finally {
    process.umask(umask);
  }
  expect(started.ready.caFile).toBe(join(dir, 'mine', 'cert.pem'));
  expect(statSync(join(dir, 'mine')).mode & 0o777).toBe(0o700);
  for (const file of ['cert.pem', 'key.pem']) expect(statSync(join(dir, 'mine', file)).mode & 0o777).toBe(0o600);
});

// Issue 28: the help said the default members were n1 while the command started n2 and n3.
test('--help gives the defaults it starts with', async () => {
  const help = await new Promise<string>((resolve) => {
    const child = spawn(process.execPath, [BIN, 'fake-pve', '--help'], { cwd: dir });
    let out = '';
    child.stdout.on('data', (chunk: Buffer) => (out += `${chunk}`));
    child.once('exit', () => resolve(out));
  });
  const nodes = /--nodes .*\(default ([\w,]+);/.exec(help)?.[1];
  const state = /\(default (\S+), unless --tls-dir/.exec(help)?.[1];
  expect(/--port N .*default (\d+)\)/.exec(help)?.[1]).toBe('18006');
  const { ready } = await start();
  expect(ready.caFile).toBe(join(dir, state ?? 'no default state', 'cert.pem'));
  const status = await call(ready.url, 'GET', '/cluster/status', {
    ca: readFileSync(ready.caFile, 'utf8'),
    auth: `PVEAPIToken=${ready.token}`,
  });
  const members = status.body.data.filter((row: { type: string }) => row.type === 'node');
  expect(members.map((row: { name: string }) => row.name).join(',')).toBe(nodes);
});
