/**
 * Issue 16 item 17: every HTTP request names its caller, `User-Agent: cdktf-homelab/<version>`, so
 * a cluster's operators can see who called: the PVE client against the fake PVE, the kube client
 * against a server that records headers, and the bundled handler with the package's own version.
 */
import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createServer, type Server } from 'node:https';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { canonicalJson } from '../../../../../src/core/canonical';
import { USER_AGENT } from '../../../../../src/core/http/request';
import { BATCH } from '../../../../../src/core/protocol';
import { KubeClient } from '../../../../../src/kube/client';
import { useFakePveOverTls } from '../../../../support/fake-pve-tls';
import { pveClient } from '../../../../support/pve-members';
import { makeCert, type TestCert } from '../../../../support/tls';

const ROOT = join(__dirname, '..', '..', '..', '..', '..');
const BUNDLE = join(ROOT, 'build', 'handlers', 'pve.js');
const { version } = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { version: string };
const TOKEN = { PROXMOX_VE_API_TOKEN: 'root@pam!homelab=fake-secret-0000' };
/** Run from source, the version is `dev`; bundles carry package.json's (the bundle test below). */
const OURS = expect.stringMatching(/^cdktf-homelab\/\S+$/);

const { fake, target } = useFakePveOverTls({
  'root@pam!homelab': { secret: 'fake-secret-0000', privileges: 'modify' },
});
let memory: string;
beforeAll(() => {
  memory = mkdtempSync(join(tmpdir(), 'homelab-user-agent-'));
});
afterAll(() => rmSync(memory, { recursive: true, force: true }));

test('the PVE client names itself on every read and write', async () => {
  const pve = pveClient(target(), memory);
  await pve.call('GET', 'version');
  await pve.call('POST', 'cluster/metrics/server/ua', { type: 'graphite', server: '10.0.0.5', port: 2003 });
  await pve.close();
  expect(fake().requests.map((r) => r.userAgent)).toEqual([OURS, OURS]);
  expect(fake().requests[0]?.userAgent).toBe(USER_AGENT);
});

test('the bundled PVE handler sends cdktf-homelab/<the version in package.json>', async () => {
  if (!existsSync(BUNDLE)) throw new Error(`${BUNDLE} is missing: run \`node scripts/bundle-handlers.js\``);
  const query = {
    [BATCH.target]: canonicalJson(target()),
    m: canonicalJson({
      kind: 'metric-server',
      spec: { id: 'm1', type: 'graphite', server: 's', port: 2003, options: {} },
    }),
  };
  const child = spawn(process.execPath, [BUNDLE, 'batch', 'read'], {
    env: { PATH: process.env.PATH, XDG_RUNTIME_DIR: memory, ...TOKEN },
    stdio: ['pipe', 'ignore', 'inherit'],
  });
  child.stdin.end(JSON.stringify(query));
  expect(await new Promise((resolve) => child.on('close', resolve))).toBe(0);
  const agents = new Set(fake().requests.map((r) => r.userAgent));
  expect([...agents]).toEqual([`cdktf-homelab/${version}`]);
});

describe('the kube client', () => {
  let cert: TestCert;
  let server: Server;
  const seen: Array<string | undefined> = [];
  beforeAll(async () => {
    cert = makeCert();
    server = createServer({ key: cert.key, cert: cert.cert }, (req, res) => {
      seen.push(req.headers['user-agent']);
      res.setHeader('content-type', 'application/json');
      res.end(JSON.stringify({ kind: 'Namespace', metadata: { name: 'default' } }));
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  });
  afterAll(() => {
    server.close();
    cert.cleanup();
  });

  test('names itself on every request', async () => {
    const kube = new KubeClient({
      origin: 'context "lab" in /tmp/kubeconfig',
      server: `https://127.0.0.1:${(server.address() as AddressInfo).port}`,
      caPem: Buffer.from(cert.cert),
      insecureSkipTlsVerify: false,
      namespace: 'default',
      auth: { token: 'not-a-secret' },
    });
    await kube.get('/api/v1/namespaces/default');
    await kube.send('PATCH', '/api/v1/namespaces/default', { metadata: {} }, 'application/merge-patch+json');
    kube.close();
    expect(seen).toEqual([OURS, OURS]);
  });
});
