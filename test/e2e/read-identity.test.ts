/**
 * Plans with a read-only token (issue 19 item 1), with real terraform or OpenTofu on examples/metrics.ts given
 * `readTokenEnv`, against the fake PVE that checks each token's privileges: the apply converges with both tokens
 * set; a plan with ONLY the read token in the environment shows a hand edit, every one of its requests made with
 * the read token; the write token given under the read name still plans; a read token without Sys.Audit fails the
 * plan naming the privilege and the variable.
 */
import { onlyTokens, planWith, tokensSince, usePveProject } from '../support/pve-project';

const WRITE = 'root@pam!homelab=e2e-write-4242';
const READ = 'audit@pve!plan=e2e-read-5151';
const tokens = {
  'root@pam!homelab': { secret: 'e2e-write-4242', privileges: 'modify' },
  'audit@pve!plan': { secret: 'e2e-read-5151', privileges: 'audit' },
  'nobody@pve!plan': { secret: 'e2e-none-6161', privileges: 'none' },
} as const;

jest.setTimeout(300_000);

const pve = usePveProject('build/examples/metrics.js', 'metrics', {
  tokens,
  env: {
    HOMELAB_EXAMPLE_READ_TOKEN_ENV: 'PVE_READ',
    OTEL_HEADERS: '{"Authorization":"Bearer e2e-otel"}',
    INFLUX_TOKEN: 'e2e-influx',
  },
});

test('the apply converges with both tokens: reads with the read token, writes with the write one', async () => {
  const { fake, project } = pve();
  onlyTokens(pve(), { PROXMOX_VE_API_TOKEN: WRITE, PVE_READ: READ });
  await project.must('apply', project.terraform('apply', '-auto-approve', '-no-color'));
  expect(Object.keys(fake.metricServers()).sort()).toEqual(['lab-graphite', 'lab-influx', 'lab-otel']);
  const writers = fake.requests.filter((r) => r.method !== 'GET').map((r) => r.auth);
  expect([...new Set(writers)]).toEqual(['root@pam!homelab']);
  expect(fake.requests.filter((r) => r.method === 'GET').some((r) => r.auth === 'audit@pve!plan')).toBe(true);
});

test('a plan with ONLY the read token in the environment shows a hand edit, reading with that token', async () => {
  const { fake } = pve();
  fake.setMetricServer('lab-graphite', { ...fake.metricServers()['lab-graphite'], port: 2004 });
  const from = fake.requests.length;
  const plan = await planWith(pve(), { PVE_READ: READ });
  expect(plan.code).toBe(2);
  expect(plan.stdout.replace(/\s+/g, ' ')).toContain('metric server "lab-graphite" differs: port is 2004, want 2003');
  expect(tokensSince(pve(), from)).toEqual(['audit@pve!plan']);
});

test('the write token given under the read name still plans', async () => {
  const from = pve().fake.requests.length;
  const plan = await planWith(pve(), { PVE_READ: WRITE });
  expect(plan.code).toBe(2);
  expect(tokensSince(pve(), from)).toEqual(['root@pam!homelab']);
});

test('a read token without Sys.Audit fails the plan naming the privilege and its variable', async () => {
  const plan = await planWith(pve(), { PVE_READ: 'nobody@pve!plan=e2e-none-6161' });
  expect(plan.code).toBe(1);
  expect(plan.stderr.replace(/\s+/g, ' ')).toContain(
    'PVE answered 403: Permission check failed (/, Sys.Audit); the token in PVE_READ lacks that privilege',
  );
});
