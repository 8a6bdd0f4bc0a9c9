/**
 * Tokens minted per run (issue 19 items 2 and 3) with real terraform or OpenTofu on examples/metrics.ts given `mint`,
 * against the fake PVE that creates and removes tokens by PVE's rules: one terraform apply mints exactly one read
 * token (its plan's batch read) and one provision token (the batch apply) for the cluster, each removed when its run
 * ends; a plan mints one read token; no minted token is left after either; and an apply killed with SIGKILL
 * mid-write leaves its token, which authenticates no more once its expiry (900 s) is past.
 */
import { type FakePve, startFakePve } from '../fakes/pve/server';
import { CdktfProject } from '../support/cdktf-project';
import { makeCert, type TestCert } from '../support/tls';

// README, Least privilege: each bootstrap holds User.Modify on its role user's group alone.
const tokens = {
  'boot@pve!read': { secret: 'e2e-boot-read', privileges: 'none', userModify: ['cdktf-read'] },
  'boot@pve!apply': { secret: 'e2e-boot-apply', privileges: 'none', userModify: ['cdktf-provision'] },
} as const;
const users = {
  'cdktf-read@pve': { privileges: 'audit', groups: ['cdktf-read'] },
  'cdktf-apply@pve': { privileges: 'modify', groups: ['cdktf-provision'] },
} as const;

jest.setTimeout(300_000);

let fake: FakePve;
let project: CdktfProject;
let cert: TestCert;
/** How far the fake's clock is ahead of this machine's: moved on to pass a token's expiry. */
let ahead = 0;

beforeAll(async () => {
  cert = makeCert();
  fake = await startFakePve({ tls: { key: cert.key, cert: cert.cert }, tokens, users, now: () => Date.now() + ahead });
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

test('an apply mints read tokens (plan, recheck) and a provision token, removes each; servers converge', async () => {
  await project.must('apply', project.terraform('apply', '-auto-approve', '-no-color'));
  expect(Object.keys(fake.metricServers()).sort()).toEqual(['lab-graphite', 'lab-influx', 'lab-otel']);
  // The plan's read, then the apply's recheck of the objects it read absent (README, Adoption), then the apply.
  expect(mintsSince(0)).toEqual([
    'POST cdktf-read@pve by boot@pve!read',
    'DELETE cdktf-read@pve by boot@pve!read',
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

test('an apply killed with SIGKILL leaves a token that is dead once its expiry has passed', async () => {
  fake.setMetricServer('lab-graphite', { ...fake.metricServers()['lab-graphite'], port: 2004 });
  fake.hang('PUT', /metrics\/server\/lab-graphite$/);
  const running = project.startTerraform('apply', '-auto-approve', '-no-color');
  try {
    const deadline = Date.now() + 60_000;
    while (!fake.requests.some((r) => r.method === 'PUT' && r.path.endsWith('/lab-graphite'))) {
      if (Date.now() > deadline) throw new Error(`the apply never wrote:\n${(await running.exited).stdout}`);
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
  } finally {
    running.kill();
  }
  await running.exited;
  const left = fake.tokenIds().filter((id) => id.startsWith('cdktf-apply@pve!'));
  expect(left).toHaveLength(1);
  expect(fake.liveTokenIds()).toContain(left[0]);
  ahead = 901_000;
  expect(fake.liveTokenIds()).toEqual(Object.keys(tokens).sort());
});
