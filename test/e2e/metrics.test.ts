/**
 * Real terraform on `cdktf synth` output of examples/metrics.ts against the fake PVE over HTTPS
 * (its CA in PROXMOX_VE_CA_FILE): create, clean plan, drift named in the plan, one-apply fix, a
 * changed and a removed prop, destroy, and no secret anywhere Terraform writes.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { type FakePve, startFakePve } from '../fakes/pve/server';
import { CdktfProject, filesUnder } from '../support/cdktf-project';
import { makeCert, type TestCert } from '../support/tls';

const SECRETS = {
  PROXMOX_VE_API_TOKEN: 'root@pam!homelab=e2e-pve-secret-4242',
  INFLUX_TOKEN: 'e2e-influx-token-7171',
  OTEL_HEADERS: '{"Authorization":"Bearer e2e-otel-bearer-9393"}',
};
const SECRET_VALUES = ['e2e-pve-secret-4242', 'e2e-influx-token-7171', 'e2e-otel-bearer-9393'];
const BY_HAND = { type: 'graphite', server: '192.0.2.9', port: 2003 };

jest.setTimeout(300_000);

let fake: FakePve;
let project: CdktfProject;
let cert: TestCert;

const planExit = (label: string) => project.plan(label, '-out', 'plan.bin');
const apply = (label: string) => project.must(label, project.terraform('apply', '-auto-approve', '-no-color'));
const applyPlan = (label: string) => project.must(label, project.terraform('apply', '-no-color', 'plan.bin'));
/** The handler processes an apply started: one `Executing:` line per local-exec hook. */
const hooksRun = (stdout: string) => [...stdout.matchAll(/^(\S+) \(local-exec\): Executing:/gm)].map((m) => m[1]);

beforeAll(async () => {
  cert = makeCert();
  const tokens = { 'root@pam!homelab': { secret: 'e2e-pve-secret-4242', privileges: 'modify' as const } };
  fake = await startFakePve({ tls: { key: cert.key, cert: cert.cert }, tokens });
  fake.setMetricServer('by-hand', BY_HAND);
  const connection = { PROXMOX_VE_ENDPOINT: fake.url, PROXMOX_VE_CA_FILE: cert.certFile };
  project = new CdktfProject('build/examples/metrics.js', 'metrics', { ...SECRETS, ...connection });
  await project.must('synth', project.synth());
  await project.must('init', project.terraform('init', '-no-color'));
});

afterAll(async () => {
  console.log(`metrics e2e timings (s): ${project?.report()}`);
  await fake?.stop();
  project?.cleanup();
  cert?.cleanup();
});

// An apply whose plan read some object absent opens two connections: the recheck's read of those objects
// (README, Adoption: one that appeared since the plan is refused) and the batch apply's.
test('the first apply creates the three servers: one handler process for them all, after the recheck', async () => {
  expect((await planExit('plan (create)')).code).toBe(2);
  expect(await project.plannedObjects('plan.bin')).toEqual(['graphite', 'influx', 'otel']);
  const before = fake.connections();
  const applied = await applyPlan('apply (create)');
  expect(hooksRun(applied.stdout)).toEqual(['terraform_data.pve_apply']);
  expect(applied.stdout).toMatch(/data\.external\.pve_recheck: Read complete/);
  expect(fake.connections() - before).toBe(2);
  expect(applied.stdout).toMatch(/pve_apply \(local-exec\): graphite: metric server "lab-graphite": creating/);
  expect(Object.keys(fake.metricServers()).sort()).toEqual(['by-hand', 'lab-graphite', 'lab-influx', 'lab-otel']);
  expect(fake.metricServers()['lab-graphite']).toEqual({
    type: 'graphite',
    server: '10.0.0.5',
    port: 2003,
    proto: 'udp',
    path: 'proxmox.lab',
  });
  expect(fake.metricTokens()['lab-influx']).toBe(SECRETS.INFLUX_TOKEN);
  const clean = await planExit('plan (clean)');
  expect(clean.code).toBe(0);
});

test('hand edits show in the plan in words, one apply fixes them, and the plan after is clean', async () => {
  fake.setMetricServer('lab-influx', { ...fake.metricServers()['lab-influx'], port: 9999 });
  fake.deleteMetricServer('lab-otel');
  const drifted = await planExit('plan (drift)');
  expect(drifted.code).toBe(2);
  const words = drifted.stdout.replace(/\s+/g, ' ');
  expect(words).toContain('metric server "lab-influx" differs: port is 9999, want 8089');
  expect(words).toContain('metric server "lab-otel" is absent');
  expect(await project.plannedObjects('plan.bin')).toEqual(['influx', 'otel']);
  expect(drifted.stdout).not.toMatch(/_lifecycle (must be replaced|will be destroyed)/);
  const before = fake.connections();
  const applied = await applyPlan('apply (fix drift)');
  expect(hooksRun(applied.stdout)).toEqual(['terraform_data.pve_apply']);
  // lab-otel was read absent: the recheck reads it again before the apply.
  expect(applied.stdout).toMatch(/data\.external\.pve_recheck: Read complete/);
  expect(fake.connections() - before).toBe(2);
  expect(applied.stdout).not.toMatch(/graphite:/);
  expect(fake.metricServers()['lab-influx']?.port).toBe(8089);
  expect(fake.metricServers()['lab-otel']).toBeDefined();
  expect((await planExit('plan (after fix)')).code).toBe(0);
});

// Regression: the apply wrote what its own read showed differing, over an edit made after the plan (here an mtu the
// plan never named): the plan's reading now travels to the apply, which refuses that server alone.
test('a saved plan applied after a server was edited by hand refuses that server alone, sending nothing', async () => {
  const edit = (id: string, fields: object) => fake.setMetricServer(id, { ...fake.metricServers()[id], ...fields });
  edit('lab-influx', { port: 9999 });
  edit('lab-graphite', { port: 2009 });
  expect((await planExit('plan (two edits)')).code).toBe(2);
  edit('lab-influx', { mtu: 1400 });
  const applied = await project.terraform('apply', '-no-color', 'plan.bin');
  expect(applied.code).toBe(1);
  expect((applied.stdout + applied.stderr).replace(/\s+/g, ' ')).toContain(
    'influx: not applied: Metric server "lab-influx" cannot be applied as planned: it was changed after the plan ' +
      'read it',
  );
  expect(fake.metricServers()['lab-influx']).toMatchObject({ port: 9999, mtu: 1400 });
  expect(fake.metricServers()['lab-graphite']).toMatchObject({ port: 2003 });
  const next = await planExit('plan (after the refusal)');
  expect(next.stdout.replace(/\s+/g, ' ')).toContain('mtu is 1400');
  await applyPlan('apply (as planned)');
  expect(fake.metricServers()['lab-influx']).toMatchObject({ port: 8089 });
  expect((await planExit('plan (clean again)')).code).toBe(0);
});

test('a changed prop and a removed optional prop converge in one apply', async () => {
  await project.must(
    'synth (changed)',
    project.synth({ HOMELAB_EXAMPLE_BUCKET: 'pve-v2', HOMELAB_EXAMPLE_GRAPHITE_PATH: '' }),
  );
  expect((await planExit('plan (changed stack)')).code).toBe(2);
  await apply('apply (changed stack)');
  expect(fake.metricServers()['lab-influx']?.bucket).toBe('pve-v2');
  expect(fake.metricServers()['lab-graphite']).not.toHaveProperty('path');
  expect(fake.requests.some((r) => r.method === 'PUT' && r.body.delete === 'path')).toBe(true);
  expect((await planExit('plan (after change)')).code).toBe(0);
});

test('a tokenVersion bump re-sends the token through its own resource, and nothing else is applied', async () => {
  const changed = { HOMELAB_EXAMPLE_BUCKET: 'pve-v2', HOMELAB_EXAMPLE_GRAPHITE_PATH: '' };
  await project.must('synth (token v1)', project.synth({ ...changed, HOMELAB_EXAMPLE_TOKEN_VERSION: '1' }));
  const planned = await planExit('plan (token v1)');
  expect(planned.code).toBe(2);
  expect(planned.stdout).toMatch(/terraform_data\.influx_resend will be created/);
  expect(await project.plannedObjects('plan.bin')).toEqual([]);
  const sent = fake.requests.length;
  const applied = await applyPlan('apply (token v1)');
  expect(hooksRun(applied.stdout)).toEqual(['terraform_data.influx_resend']);
  const writes = fake.requests.slice(sent).filter((r) => r.method === 'PUT' || r.method === 'POST');
  expect(writes.map((r) => r.path)).toEqual(['/api2/json/cluster/metrics/server/lab-influx']);
  expect((await planExit('plan (after token v1)')).code).toBe(0);
});

test('no secret reaches the state, the plan or cdktf.out; only variable names do', async () => {
  const plan = await project.terraform('show', '-json', 'plan.bin');
  const places: Array<[string, string]> = [
    ['state', readFileSync(project.statePath, 'utf8')],
    ['plan JSON', plan.stdout],
    ...filesUnder(join(project.dir, 'cdktf.out')).map((file): [string, string] => [file, readFileSync(file, 'utf8')]),
  ];
  for (const [place, text] of places) {
    for (const secret of SECRET_VALUES)
      expect({ place, leaked: text.includes(secret) }).toEqual({ place, leaked: false });
  }
  expect(readFileSync(project.statePath, 'utf8')).toContain('INFLUX_TOKEN');
});

test('a retired server is deleted by the next apply and leaves the state; the plan after is clean', async () => {
  const changed = {
    HOMELAB_EXAMPLE_BUCKET: 'pve-v2',
    HOMELAB_EXAMPLE_GRAPHITE_PATH: '',
    HOMELAB_EXAMPLE_TOKEN_VERSION: '1',
  };
  await project.must('synth (retire otel)', project.synth({ ...changed, HOMELAB_EXAMPLE_RETIRE_OTEL: 'true' }));
  const planned = await planExit('plan (retire)');
  expect(planned.code).toBe(2);
  expect(planned.stdout).toMatch(/terraform_data\.otel_lifecycle will be destroyed/);
  // The batch apply is replaced because its entry for otel goes; it applies nothing.
  expect(await project.plannedObjects('plan.bin')).toEqual([]);
  expect(planned.stdout).toMatch(/Plan: 1 to add, 0 to change, 2 to destroy/);
  const applied = await apply('apply (retire)');
  expect(applied.stdout).toMatch(/metric server "lab-otel": deleting/);
  expect(Object.keys(fake.metricServers()).sort()).toEqual(['by-hand', 'lab-graphite', 'lab-influx']);
  expect(readFileSync(project.statePath, 'utf8')).not.toMatch(/otel_lifecycle/);
  expect((await planExit('plan (after retire)')).code).toBe(0);
});

test('destroy removes exactly the declared servers', async () => {
  const destroyed = await project.must('destroy', project.terraform('destroy', '-auto-approve', '-no-color'));
  expect(destroyed.stdout).toMatch(/metric server "lab-influx": deleting/);
  expect(fake.metricServers()).toEqual({ 'by-hand': BY_HAND });
  const state = readFileSync(project.statePath, 'utf8');
  for (const secret of SECRET_VALUES) expect(state.includes(secret)).toBe(false);
});
