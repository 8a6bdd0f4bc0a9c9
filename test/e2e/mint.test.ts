/**
 * Tokens minted per run (issue 19 items 2 and 3) with real terraform or OpenTofu on examples/metrics.ts given `mint`,
 * against the fake PVE that creates and removes tokens by PVE's rules: one terraform apply mints exactly one read
 * token (its plan's batch read) and one provision token (the batch apply) for the cluster, each removed when its run
 * ends; a plan mints one read token; no minted token is left after either.
 */
import { type FakePve, startFakePve } from '../fakes/pve/server';
import { CdktfProject } from '../support/cdktf-project';
import { makeCert, type TestCert } from '../support/tls';

const tokens = {
  'boot@pve!read': { secret: 'e2e-boot-read', privileges: 'none', userModify: true },
  'boot@pve!apply': { secret: 'e2e-boot-apply', privileges: 'none', userModify: true },
} as const;
const users = { 'cdktf-read@pve': { privileges: 'audit' }, 'cdktf-apply@pve': { privileges: 'modify' } } as const;

jest.setTimeout(300_000);

let fake: FakePve;
let project: CdktfProject;
let cert: TestCert;

beforeAll(async () => {
  cert = makeCert();
  fake = await startFakePve({ tls: { key: cert.key, cert: cert.cert }, tokens, users });
  project = new CdktfProject('build/examples/metrics.js', 'metrics', {
    PROXMOX_VE_ENDPOINT: fake.url,
    PROXMOX_VE_CA_FILE: cert.certFile,
    HOMELAB_EXAMPLE_READ_TOKEN_ENV: 'PVE_BOOT_READ',
    HOMELAB_EXAMPLE_MINT: 'cdktf-read@pve,cdktf-apply@pve',
    PVE_BOOT_READ: 'boot@pve!read=e2e-boot-read',
    PROXMOX_VE_API_TOKEN: 'boot@pve!apply=e2e-boot-apply',
    OTEL_HEADERS: '{"Authorization":"Bearer e2e-otel"}',
    INFLUX_TOKEN: 'e2e-influx',
  });
  await project.must('synth', project.synth());
  await project.must('init', project.terraform('init', '-no-color'));
});

afterAll(async () => {
  console.log(`mint e2e timings (s): ${project?.report()}`);
  await fake?.stop();
  project?.cleanup();
  cert?.cleanup();
});

/** `POST|DELETE <user> by <bootstrap>` for each token request since `from`. */
const mintsSince = (from: number) =>
  fake.requests
    .slice(from)
    .filter((r) => r.path.includes('/token/'))
    .map((r) => `${r.method} ${decodeURIComponent(r.path.split('/')[5] ?? '')} by ${r.auth}`);

test('an apply mints one read and one provision token, removes both, and the servers converge', async () => {
  await project.must('apply', project.terraform('apply', '-auto-approve', '-no-color'));
  expect(Object.keys(fake.metricServers()).sort()).toEqual(['lab-graphite', 'lab-influx', 'lab-otel']);
  expect(mintsSince(0)).toEqual([
    'POST cdktf-read@pve by boot@pve!read',
    'DELETE cdktf-read@pve by boot@pve!read',
    'POST cdktf-apply@pve by boot@pve!apply',
    'DELETE cdktf-apply@pve by boot@pve!apply',
  ]);
  const writers = fake.requests.filter((r) => r.method !== 'GET' && !r.path.includes('/token/')).map((r) => r.auth);
  expect(writers.every((auth) => /^cdktf-apply@pve!homelab-write-[0-9a-f]{12}$/.test(auth ?? ''))).toBe(true);
  expect(new Set(writers).size).toBe(1);
  expect(fake.tokenIds()).toEqual(Object.keys(tokens).sort());
});

test('a plan mints one read token and leaves none', async () => {
  const from = fake.requests.length;
  const plan = await project.plan('plan (clean)');
  expect(plan.code).toBe(0);
  expect(mintsSince(from)).toEqual(['POST cdktf-read@pve by boot@pve!read', 'DELETE cdktf-read@pve by boot@pve!read']);
  expect(fake.tokenIds()).toEqual(Object.keys(tokens).sort());
});
