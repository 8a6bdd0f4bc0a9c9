/**
 * Plans with a read-only token (issue 19 item 1), with real terraform or OpenTofu on examples/metrics.ts given
 * `readTokenEnv`, against the fake PVE that checks each token's privileges: the apply converges with both tokens
 * set; a plan with ONLY the read token in the environment shows a hand edit, every one of its requests made with
 * the read token; the write token given under the read name still plans; a read token without Sys.Audit fails the
 * plan naming the privilege and the variable.
 */
import { type FakePve, startFakePve } from '../fakes/pve/server';
import { CdktfProject } from '../support/cdktf-project';
import { makeCert, type TestCert } from '../support/tls';

const WRITE = 'root@pam!homelab=e2e-write-4242';
const READ = 'audit@pve!plan=e2e-read-5151';
const tokens = {
  'root@pam!homelab': { secret: 'e2e-write-4242', privileges: 'modify' },
  'audit@pve!plan': { secret: 'e2e-read-5151', privileges: 'audit' },
  'nobody@pve!plan': { secret: 'e2e-none-6161', privileges: 'none' },
} as const;

jest.setTimeout(300_000);

let fake: FakePve;
let project: CdktfProject;
let cert: TestCert;
/** The project's environment, changed between steps: CdktfProject reads it on every command. */
const env: NodeJS.ProcessEnv = {};

beforeAll(async () => {
  cert = makeCert();
  fake = await startFakePve({ tls: { key: cert.key, cert: cert.cert }, tokens });
  Object.assign(env, {
    PROXMOX_VE_ENDPOINT: fake.url,
    PROXMOX_VE_CA_FILE: cert.certFile,
    HOMELAB_EXAMPLE_READ_TOKEN_ENV: 'PVE_READ',
    OTEL_HEADERS: '{"Authorization":"Bearer e2e-otel"}',
    INFLUX_TOKEN: 'e2e-influx',
    PROXMOX_VE_API_TOKEN: WRITE,
    PVE_READ: READ,
  });
  project = new CdktfProject('build/examples/metrics.js', 'metrics', env);
  await project.must('synth', project.synth());
  await project.must('init', project.terraform('init', '-no-color'));
});

afterAll(async () => {
  console.log(`read-identity e2e timings (s): ${project?.report()}`);
  await fake?.stop();
  project?.cleanup();
  cert?.cleanup();
});

/** A plan with `secrets` as the only PVE tokens in the environment. */
const planWith = (secrets: { PVE_READ?: string; PROXMOX_VE_API_TOKEN?: string }) => {
  delete env.PVE_READ;
  delete env.PROXMOX_VE_API_TOKEN;
  Object.assign(env, secrets);
  return project.terraform('plan', '-detailed-exitcode', '-no-color');
};
/** The token ids of the requests made since `from`. */
const tokensSince = (from: number) => [...new Set(fake.requests.slice(from).map((r) => r.auth))];

test('the apply converges with both tokens: reads with the read token, writes with the write one', async () => {
  Object.assign(env, { PROXMOX_VE_API_TOKEN: WRITE, PVE_READ: READ });
  await project.must('apply', project.terraform('apply', '-auto-approve', '-no-color'));
  expect(Object.keys(fake.metricServers()).sort()).toEqual(['lab-graphite', 'lab-influx', 'lab-otel']);
  const writers = fake.requests.filter((r) => r.method !== 'GET').map((r) => r.auth);
  expect([...new Set(writers)]).toEqual(['root@pam!homelab']);
  expect(fake.requests.filter((r) => r.method === 'GET').some((r) => r.auth === 'audit@pve!plan')).toBe(true);
});

test('a plan with ONLY the read token in the environment shows a hand edit, reading with that token', async () => {
  fake.setMetricServer('lab-graphite', { ...fake.metricServers()['lab-graphite'], port: 2004 });
  const from = fake.requests.length;
  const plan = await planWith({ PVE_READ: READ });
  expect(plan.code).toBe(2);
  expect(plan.stdout.replace(/\s+/g, ' ')).toContain('metric server "lab-graphite" differs: port is 2004, want 2003');
  expect(tokensSince(from)).toEqual(['audit@pve!plan']);
});

test('the write token given under the read name still plans', async () => {
  const from = fake.requests.length;
  const plan = await planWith({ PVE_READ: WRITE });
  expect(plan.code).toBe(2);
  expect(tokensSince(from)).toEqual(['root@pam!homelab']);
});

test('a read token without Sys.Audit fails the plan naming the privilege and its variable', async () => {
  const plan = await planWith({ PVE_READ: 'nobody@pve!plan=e2e-none-6161' });
  expect(plan.code).toBe(1);
  expect(plan.stderr.replace(/\s+/g, ' ')).toContain(
    'PVE answered 403: Permission check failed (/, Sys.Audit); the token in PVE_READ lacks that privilege',
  );
});
