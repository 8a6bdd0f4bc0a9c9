/**
 * Issue 26 class 3 with real terraform (or OpenTofu) on examples/network.ts against the fake PVE:
 * a reload that failed on the last node left nothing staged (PVE moves interfaces.new first), and
 * the next apply said "every object is in sync, nothing to apply". Now the plan names the node's
 * failed task from PVE's own task list, the apply reloads that node alone behind the health gate,
 * and the plan after is clean.
 */
import { type FakePve, startFakePve } from '../fakes/pve/server';
import { CdktfProject, type CommandOutcome } from '../support/cdktf-project';
import { makeCert, type TestCert } from '../support/tls';

const TOKEN = 'e2e-pve-secret-2626';
const FAILED = 'command ifreload -a failed: exit code 1';

jest.setTimeout(300_000);

let fake: FakePve;
let project: CdktfProject;
let cert: TestCert;

const words = (outcome: CommandOutcome) => `${outcome.stdout}\n${outcome.stderr}`.replace(/\s+/g, ' ');
const writesSince = (mark: number) =>
  fake.requests
    .slice(mark)
    .filter((r) => r.method !== 'GET')
    .map((r) => `${r.method} ${r.path.replace('/api2/json/', '')}`);
const apply = () => project.terraform('apply', '-auto-approve', '-no-color');

beforeAll(async () => {
  cert = makeCert();
  const tokens = { 'root@pam!homelab': { secret: TOKEN, privileges: 'modify' as const } };
  fake = await startFakePve({ tls: { key: cert.key, cert: cert.cert }, tokens, nodes: ['n1', 'n2', 'n3'] });
  project = new CdktfProject('build/examples/network.js', 'network', {
    PROXMOX_VE_API_TOKEN: `root@pam!homelab=${TOKEN}`,
    PROXMOX_VE_ENDPOINT: fake.url,
    PROXMOX_VE_CA_FILE: cert.certFile,
    HOMELAB_EXAMPLE_TIMEOUT_SECONDS: '3',
  });
  await project.must('synth', project.synth());
  await project.must('init', project.terraform('init', '-no-color'));
});

afterAll(async () => {
  console.log(`network reload-failed e2e timings (s): ${project?.report()}`);
  await fake?.stop();
  project?.cleanup();
  cert?.cleanup();
});

test('a reload failed on the last node is drift in words until one apply reloads it; the plan is clean', async () => {
  fake.setReload('n3', { exitstatus: FAILED, log: ['ifreload -a', `error: ${FAILED}`] });
  const failed = await apply();
  expect(failed.code).toBe(1);
  expect(words(failed)).toContain(`reload failed on n3: ${FAILED}`);
  expect(fake.interfacesFiles('n3').staged).toBeUndefined();
  const upid = fake.tasks().at(-1)!;

  const planned = await project.plan('plan (after the failed reload)');
  expect(planned.code).toBe(2);
  expect(words(planned)).toMatch(
    new RegExp(
      `net: n2: settled; n3: the last network reload failed \\(task ${upid.replace(/[!]/g, '\\$&')}, exit status ` +
        `${FAILED}\\) at \\d{4}-\\d\\d-\\d\\d \\d\\d:\\d\\d:\\d\\d UTC: the next apply reloads it`,
    ),
  );

  fake.setReload('n3', {});
  const mark = fake.requests.length;
  const applied = await project.must('apply (reload again)', apply());
  expect(writesSince(mark)).toEqual(['PUT nodes/n3/network']);
  expect(words(applied)).toContain(`net: n3: the last network reload failed (task ${upid}`);
  expect(words(applied)).toContain('reloading it again');
  expect(words(applied)).toMatch(/net: n3: cluster still healthy/);
  expect((await project.plan('plan (clean)')).code).toBe(0);
});
