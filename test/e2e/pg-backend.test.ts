/**
 * A team's shared state: the metrics example's stack with Terraform's `pg` backend on a real PostgreSQL server
 * (test/support/postgres.ts) and the fake PVE. A second apply started while the first holds the state lock is
 * refused before it reads or writes anything, nothing is applied twice, and plans, drift and destroy hooks behave
 * as with local state. Guards against a handler or a lifecycle that only works with a local state file.
 */
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { type FakePve, startFakePve } from '../fakes/pve/server';
import { waitFor } from '../fakes/pve/test-client';
import { CdktfProject } from '../support/cdktf-project';
import { type Postgres, startPostgres } from '../support/postgres';
import { makeCert, type TestCert } from '../support/tls';

jest.setTimeout(300_000);

const SECRETS = {
  PROXMOX_VE_API_TOKEN: 'root@pam!homelab=pg-pve-secret-3131',
  INFLUX_TOKEN: 'pg-influx-token-3232',
  OTEL_HEADERS: '{"Authorization":"Bearer pg-otel-3333"}',
};
const SERVERS = ['lab-graphite', 'lab-influx', 'lab-otel'];

let cert: TestCert;
let fake: FakePve;
let pg: Postgres;
let project: CdktfProject;

/** The metric server creations the fake received: each a POST on the collection's member path. */
const creations = () => fake.requests.filter((r) => r.method === 'POST' && /metrics\/server\/[\w-]+$/.test(r.path));

beforeAll(async () => {
  cert = makeCert();
  const tokens = { 'root@pam!homelab': { secret: 'pg-pve-secret-3131', privileges: 'modify' as const } };
  [fake, pg] = await Promise.all([startFakePve({ tls: { key: cert.key, cert: cert.cert }, tokens }), startPostgres()]);
  const env = { ...SECRETS, PROXMOX_VE_ENDPOINT: fake.url, PROXMOX_VE_CA_FILE: cert.certFile, PG_CONN_STR: pg.connStr };
  project = new CdktfProject('test/e2e/apps/pg-backend.js', 'metrics', env);
  await project.must('synth', project.synth(env));
  await project.must('init', project.terraform('init', '-no-color'));
});

afterAll(async () => {
  console.log(`pg backend e2e timings (s): ${project?.report()}`);
  await fake?.stop();
  await pg?.stop();
  project?.cleanup();
  cert?.cleanup();
});

test('a second apply while the first holds the lock is refused; nothing is applied twice', async () => {
  const first = project.terraform('apply', '-auto-approve', '-no-color');
  // The lock is taken before the plan's batch read, so the first request the fake sees means it is held.
  await waitFor(() => fake.requests.length > 0, 120_000);
  const second = await project.terraform('apply', '-auto-approve', '-no-color', '-lock-timeout=0s');
  expect(second.code).toBe(1);
  expect(second.stderr).toContain('Error acquiring the state lock');
  const applied = await first;
  expect({ code: applied.code, stderr: applied.stderr }).toEqual({ code: 0, stderr: '' });
  expect(
    creations()
      .map((r) => r.path.split('/').pop())
      .sort(),
  ).toEqual(SERVERS);
});

test('the state is in PostgreSQL, not beside the stack, and the next plan is clean', async () => {
  expect(existsSync(project.statePath)).toBe(false);
  expect(existsSync(join(project.stackDir, 'terraform.tfstate'))).toBe(false);
  expect((await pg.query("SELECT name FROM homelab.states WHERE data LIKE '%pve_apply%'")).trim()).toBe('default');
  expect((await pg.query("SELECT count(*) FROM homelab.states WHERE data LIKE '%pg-influx-token-3232%'")).trim()).toBe(
    '0',
  );
  expect((await project.plan('plan (clean)')).code).toBe(0);
});

test('a second apply that waits for the lock runs after the first and finds nothing to do', async () => {
  fake.deleteMetricServer('lab-graphite'); // drift, so the first apply has work and holds the lock a while
  const first = project.terraform('apply', '-auto-approve', '-no-color');
  const seen = fake.requests.length;
  await waitFor(() => fake.requests.length > seen, 120_000);
  const waiting = await project.terraform('apply', '-auto-approve', '-no-color', '-lock-timeout=120s');
  expect((await first).code).toBe(0);
  expect(waiting.code).toBe(0);
  expect(waiting.stdout).toMatch(/No changes\.|0 added, 0 changed, 0 destroyed/);
  expect(creations().filter((r) => r.path.endsWith('/lab-graphite'))).toHaveLength(2); // created, then re-created once
});

test('destroy runs every destroy hook with the remote state', async () => {
  await project.must('destroy', project.terraform('destroy', '-auto-approve', '-no-color'));
  expect(Object.keys(fake.metricServers())).toEqual([]);
  expect((await pg.query("SELECT count(*) FROM homelab.states WHERE data LIKE '%lifecycle%'")).trim()).toBe('0');
});
