/**
 * States written by earlier versions under the stack of this one, for metric servers, whose lifecycle now
 * records what it found (input: what it found, a newline and the object's JSON text, kept as created by
 * `ignore_changes`): one from 0.2.0 (input `{object, found}`), one from 0.1.0 (input the JSON text of
 * `{identity, target}`) and one from before the slim lifecycle (input `{kind, target, identity}`, its hook
 * reading `self.input.target` and `self.input.identity`). The stored input is kept, so the first plan
 * changes nothing, no hook runs, every server stays the stack's and destroy removes it; a server a 0.2.0
 * lifecycle found stays refused and its destroy leaves it; and a destroy run before the upgrade removes
 * each server from the target its old state names.
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
  lifecycle?: unknown;
  provisioner: Array<{ 'local-exec': { command: string; environment: Record<string, string> } }>;
}

type Earlier = '0.2.0' | '0.1.0' | 'before the slim lifecycle';

/** Rewrites each lifecycle of the synthesized stack as `version` wrote it. */
const asEarlierVersion = (project: CdktfProject, version: Earlier): void => {
  const file = join(project.stackDir, 'cdk.tf.json');
  const stack = JSON.parse(readFileSync(file, 'utf8'));
  const resources = stack.resource.terraform_data as Record<string, Lifecycle>;
  for (const [name, resource] of Object.entries(resources)) {
    if (!name.endsWith('_lifecycle')) continue;
    const [found = '', text = ''] = String(resource.input).split('\n');
    if (version === '0.2.0') {
      resource.input = { object: text, found };
      continue;
    }
    delete resource.lifecycle;
    resource.input = text;
    if (version === '0.1.0') continue;
    const hook = resource.provisioner[0]!['local-exec'];
    // That version spliced the kind into its command; this one passes it in the environment (issue 27).
    const kind = hook.environment.HOMELAB_KIND!;
    hook.command = hook.command.replace('"$HOMELAB_KIND"', kind);
    const { identity } = JSON.parse(text);
    resource.input = { kind, target: hook.environment.HOMELAB_TARGET, identity: JSON.stringify(identity) };
    hook.environment = { HOMELAB_TARGET: '${self.input.target}', HOMELAB_IDENTITY: '${self.input.identity}' };
  }
  writeFileSync(file, JSON.stringify(stack, null, 2));
};

/** A project synthesized by this version, its lifecycles rewritten as `version` wrote them, initialized. */
const earlierProject = async (version: Earlier): Promise<CdktfProject> => {
  const connection = { PROXMOX_VE_ENDPOINT: fake.url, PROXMOX_VE_CA_FILE: cert.certFile };
  const project = new CdktfProject('build/examples/metrics.js', 'metrics', { ...SECRETS, ...connection });
  projects.push(project);
  await project.must('synth', project.synth());
  await project.must('init', project.terraform('init', '-no-color'));
  asEarlierVersion(project, version);
  return project;
};

/** A project whose state holds the three servers, applied from the earlier version's lifecycles. */
const appliedByEarlierVersion = async (version: Earlier): Promise<CdktfProject> => {
  const project = await earlierProject(version);
  await project.must('apply (earlier version)', project.terraform('apply', '-auto-approve', '-no-color'));
  const state = readFileSync(project.statePath, 'utf8');
  if (version === '0.2.0') expect(state).toMatch(/"found": ""/);
  else expect(state).not.toMatch(/"found"/);
  if (version === 'before the slim lifecycle') expect(state).toMatch(/"kind": "metric-server"/);
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

test.each<Earlier>(['0.2.0', '0.1.0', 'before the slim lifecycle'])(
  "after an upgrade from %s the first plan changes nothing, the servers stay the stack's, destroy removes them",
  async (version) => {
    const project = await appliedByEarlierVersion(version);
    expect((await project.plan('plan (upgrade)')).code).toBe(0);
    expect(benchServers()).toEqual(SERVERS);
    const destroyed = await project.must('destroy', project.terraform('destroy', '-auto-approve', '-no-color'));
    expect(destroyed.stdout).toMatch(/metric server "lab-influx": deleting/);
    expect(destroyed.stdout).not.toMatch(/left in place/);
    expect(benchServers()).toEqual([]);
  },
);

test("a destroy before the upgrade's first apply removes each server the earlier version's state names", async () => {
  const project = await appliedByEarlierVersion('before the slim lifecycle');
  expect(benchServers()).toEqual(SERVERS);
  const destroyed = await project.must(
    'destroy (not upgraded)',
    project.terraform('destroy', '-auto-approve', '-no-color'),
  );
  expect(destroyed.stdout).toMatch(/metric server "lab-graphite": deleting/);
  expect(benchServers()).toEqual([]);
});

test('a server a 0.2.0 lifecycle found stays refused after the upgrade, and its destroy leaves it', async () => {
  const hand = { type: 'graphite', server: '192.0.2.9', port: 2003 };
  fake.setMetricServer('lab-graphite', hand);
  const project = await earlierProject('0.2.0');
  const applied = await project.terraform('apply', '-auto-approve', '-no-color');
  expect(applied.code).toBe(1); // the apply refuses the server it found
  expect(readFileSync(project.statePath, 'utf8')).toMatch(/"found": "exists on PVE cluster/);
  await project.must('synth (this version)', project.synth());
  const planned = await project.plan('plan (upgrade, found)');
  // The record 0.2.0 stored in `found` still names it: the apply would refuse it, and nothing is replaced.
  expect(planned.stdout.replace(/\s+/g, ' ')).toContain(
    'the apply will refuse 1 of the 3 objects, which existed before this stack declared them: ' +
      '- graphite: exists on PVE cluster',
  );
  expect(planned.stdout).not.toMatch(/_lifecycle (must be replaced|will be destroyed)/);
  const destroyed = await project.must('destroy', project.terraform('destroy', '-auto-approve', '-no-color'));
  expect(destroyed.stdout).toMatch(/left in place: it existed before this stack declared it/);
  expect(fake.metricServers()).toEqual({ 'lab-graphite': hand });
  fake.deleteMetricServer('lab-graphite');
});
