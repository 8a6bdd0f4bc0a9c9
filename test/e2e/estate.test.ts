/**
 * Real terraform on a stack of 50 metric servers (fake PVE) and 20 units (real systemd host): the
 * batched read must still report drift per object in words, the batch applies must act on exactly
 * the drifted objects, and one apply converges them.
 */
import { type FakePve, startFakePve } from '../fakes/pve/server';
import { CdktfProject } from '../support/cdktf-project';
import { startSystemdHost, type SystemdHost } from '../support/systemd-host';
import { makeCert, type TestCert } from '../support/tls';

jest.setTimeout(600_000);

const SERVERS = 50;
const UNITS = 20;

let fake: FakePve;
let host: SystemdHost;
let project: CdktfProject;
let cert: TestCert;

beforeAll(async () => {
  cert = makeCert();
  const tokens = { 'root@pam!homelab': { secret: 'estate-secret', privileges: 'modify' as const } };
  fake = await startFakePve({ tls: { key: cert.key, cert: cert.cert }, tokens });
  host = await startSystemdHost();
  project = new CdktfProject('build/examples/estate.js', 'estate', {
    PROXMOX_VE_ENDPOINT: fake.url,
    PROXMOX_VE_CA_FILE: cert.certFile,
    PROXMOX_VE_API_TOKEN: 'root@pam!homelab=estate-secret',
    HOMELAB_ESTATE_SERVERS: String(SERVERS),
    HOMELAB_ESTATE_UNITS: String(UNITS),
    HOMELAB_SSH_HOST: host.host,
    HOMELAB_SSH_PORT: String(host.port),
    HOMELAB_SSH_HOST_KEY: host.hostKeyFingerprint,
    HOMELAB_SSH_KEY: host.privateKey,
  });
  await project.must('synth', project.synth());
  await project.must('init', project.terraform('init', '-no-color'));
});

afterAll(async () => {
  console.log(`estate e2e timings (s): ${project?.report()}`);
  await host?.stop();
  await fake?.stop();
  project?.cleanup();
  cert?.cleanup();
});

test('the stack plans with two reads, one per target, and the first apply creates everything', async () => {
  const planned = await project.plan('plan (create)', '-out', 'plan.bin');
  expect(planned.code).toBe(2);
  const reads = planned.stdout.match(/data\.external\.\w+: Reading/g) ?? [];
  expect(new Set(reads)).toEqual(new Set(['data.external.pve_read: Reading', 'data.external.node_read: Reading']));
  await project.must('apply (create)', project.terraform('apply', '-auto-approve', '-no-color', 'plan.bin'));
  expect(Object.keys(fake.metricServers())).toHaveLength(SERVERS);
  const active = await host.exec('systemctl list-units --no-legend --state=active "estate-worker-*" | wc -l');
  expect(Number(active.stdout.trim())).toBe(UNITS);
  expect((await project.plan('plan (clean)')).code).toBe(0);
});

test(
  'two objects drifted by hand are named in the plan, the batch applies plan exactly those two, and one apply ' +
    'fixes them',
  async () => {
    fake.setMetricServer('estate-17', { ...fake.metricServers()['estate-17'], port: 9999 });
    await host.exec('systemctl stop estate-worker-3.service');
    const drifted = await project.plan('plan (drift)', '-out', 'plan.bin');
    expect(drifted.code).toBe(2);
    const words = drifted.stdout.replace(/\s+/g, ' ');
    expect(words).toContain(
      '1 of 50 objects are not in sync: - metrics-17: metric server "estate-17" differs: port is 9999, want 2003',
    );
    expect(words).toContain(
      '1 of 20 objects are not in sync: ' +
        `- worker-3: unit estate-worker-3.service on 127.0.0.1:${host.port} (inactive/dead) differs`,
    );
    expect(await project.plannedObjects('plan.bin')).toEqual(['metrics-17', 'worker-3']);
    expect(drifted.stdout).not.toMatch(/_lifecycle (must be replaced|will be destroyed)/);
    await project.must('apply (fix drift)', project.terraform('apply', '-auto-approve', '-no-color', 'plan.bin'));
    expect(fake.metricServers()['estate-17']?.port).toBe(2003);
    expect((await host.exec('systemctl is-active estate-worker-3.service')).stdout.trim()).toBe('active');
    expect((await project.plan('plan (after fix)')).code).toBe(0);
  },
);
