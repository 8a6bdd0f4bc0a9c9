/**
 * A state written by the version before the slim lifecycle (input `{kind, target, identity}`, its hook reading
 * `self.input.target` and `self.input.identity`), under the stack of this version: the first plan updates each
 * lifecycle in place and replaces nothing, so no destroy hook runs and every object stays; and a destroy run
 * before that apply removes each object from the target its old state names.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { type FakePve, startFakePve } from '../fakes/pve/server';
import { CdktfProject } from '../support/cdktf-project';
import { makeCert, type TestCert } from '../support/tls';

const SERVERS = ['lab-graphite', 'lab-influx', 'lab-otel'];
const SECRETS = {
  PROXMOX_VE_API_TOKEN: 'root@pam!homelab=e2e-pve-secret-4242',
  INFLUX_TOKEN: 'e2e-influx-token-7171',
  OTEL_HEADERS: '{"Authorization":"Bearer e2e-otel-bearer-9393"}',
};

jest.setTimeout(300_000);

let fake: FakePve;
let cert: TestCert;
const projects: CdktfProject[] = [];

interface Lifecycle {
  input: unknown;
  provisioner: Array<{ 'local-exec': { command: string; environment: Record<string, string> } }>;
}

/** Rewrites each lifecycle of the synthesized stack as the version before wrote it. */
const asEarlierVersion = (project: CdktfProject): void => {
  const file = join(project.stackDir, 'cdk.tf.json');
  const stack = JSON.parse(readFileSync(file, 'utf8'));
  const resources = stack.resource.terraform_data as Record<string, Lifecycle>;
  for (const [name, resource] of Object.entries(resources)) {
    if (!name.endsWith('_lifecycle')) continue;
    const hook = resource.provisioner[0]!['local-exec'];
    const { identity } = JSON.parse(resource.input as string);
    const kind = hook.command.split(' ').at(-2);
    resource.input = { kind, target: hook.environment.HOMELAB_TARGET, identity: JSON.stringify(identity) };
    hook.environment = { HOMELAB_TARGET: '${self.input.target}', HOMELAB_IDENTITY: '${self.input.identity}' };
  }
  writeFileSync(file, JSON.stringify(stack, null, 2));
};

/** A project whose state holds the three servers, applied from the earlier version's lifecycles. */
const appliedByEarlierVersion = async (): Promise<CdktfProject> => {
  const connection = { PROXMOX_VE_ENDPOINT: fake.url, PROXMOX_VE_CA_FILE: cert.certFile };
  const project = new CdktfProject('build/examples/metrics.js', 'metrics', { ...SECRETS, ...connection });
  projects.push(project);
  await project.must('synth', project.synth());
  await project.must('init', project.terraform('init', '-no-color'));
  asEarlierVersion(project);
  await project.must('apply (earlier version)', project.terraform('apply', '-auto-approve', '-no-color'));
  expect(readFileSync(project.statePath, 'utf8')).toMatch(/"kind": "metric-server"/);
  await project.must('synth (this version)', project.synth());
  return project;
};

const benchServers = () => Object.keys(fake.metricServers()).sort();

beforeAll(async () => {
  cert = makeCert();
  const tokens = { 'root@pam!homelab': { secret: 'e2e-pve-secret-4242', privileges: 'modify' as const } };
  fake = await startFakePve({ tls: { key: cert.key, cert: cert.cert }, tokens });
});

afterAll(async () => {
  for (const project of projects) console.log(`lifecycle upgrade e2e timings (s): ${project.report()}`);
  await fake?.stop();
  for (const project of projects) project.cleanup();
  cert?.cleanup();
});

test('the first plan after the upgrade updates each lifecycle in place; its apply runs no hook', async () => {
  const project = await appliedByEarlierVersion();
  const planned = await project.plan('plan (upgrade)', '-out', 'plan.bin');
  expect(planned.code).toBe(2);
  expect(planned.stdout).toMatch(/Plan: 0 to add, 3 to change, 0 to destroy\./);
  for (const name of ['graphite', 'influx', 'otel']) {
    expect(planned.stdout).toContain(`terraform_data.${name}_lifecycle will be updated in-place`);
  }
  expect(await project.plannedObjects('plan.bin')).toEqual([]);
  const applied = await project.must('apply (upgrade)', project.terraform('apply', '-no-color', 'plan.bin'));
  expect(applied.stdout).not.toMatch(/local-exec/);
  expect(benchServers()).toEqual(SERVERS);
  expect((await project.plan('plan (after upgrade)')).code).toBe(0);
  const destroyed = await project.must('destroy', project.terraform('destroy', '-auto-approve', '-no-color'));
  expect(destroyed.stdout).toMatch(/metric server "lab-influx": deleting/);
  expect(benchServers()).toEqual([]);
});

test("a destroy before the upgrade's first apply removes each server the earlier version's state names", async () => {
  const project = await appliedByEarlierVersion();
  expect(benchServers()).toEqual(SERVERS);
  const destroyed = await project.must(
    'destroy (not upgraded)',
    project.terraform('destroy', '-auto-approve', '-no-color'),
  );
  expect(destroyed.stdout).toMatch(/metric server "lab-graphite": deleting/);
  expect(benchServers()).toEqual([]);
});
