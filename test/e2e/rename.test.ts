/**
 * Renaming constructs (README, Removing an object) on real terraform (or tofu), on the real systemd host and the
 * real kube-apiserver: the removal app's unit, its drop-in, its template (so its instance) and a Repo get new
 * construct ids, the same objects. The plan only moves their lifecycles (a destroy hook would delete the unit or
 * Repo, a new lifecycle would record it as found), the apply restarts nothing and recreates nothing, the plan after
 * is clean, and terraform destroy deletes them through the new names.
 */
import type { CdktfProject } from '../support/cdktf-project';
import { useKubeApiServer } from '../support/kube-apiserver';
import { crPath } from '../support/kube-crds';
import { kubeExpect, kubeRequest } from '../support/kube-http';
import type { SystemdHost } from '../support/systemd-host';
import { type RemovalTargets, startRemovalTargets } from './removal-targets';

jest.setTimeout(600_000);

const server = useKubeApiServer();
let targets: RemovalTargets | undefined;
let host: SystemdHost;
let project: CdktfProject;

/** Old construct name to new: an instance's name is its template's and its own. */
const RENAMED = [
  ['unit', 'unit2'],
  ['unit-env', 'unit-env2'],
  ['tpl', 'tpl2'],
  ['tpl-a', 'tpl2-a'],
  ['dropped', 'dropped2'],
];
const UNITS = ['rm-unit.service', 'rm-tpl@a.service'];
const synth = (step: string) => project.must(`synth (${step})`, project.synth({ HOMELAB_REMOVAL_STEP: step }));
const apply = (label: string) => project.must(label, project.terraform('apply', '-auto-approve', '-no-color'));
/** What says a unit was not restarted: its run's InvocationID and MainPID, and its state. */
const runOf = async (unit: string) =>
  (await host.exec(`systemctl show -p ActiveState,InvocationID,MainPID ${unit}`)).stdout.trim();
const repoPath = () => crPath(server().namespace, 'repos', 'dropped');
const repo = () => kubeExpect<{ metadata: { uid: string } }>(server().admin, 'GET', repoPath(), undefined, [200]);
const onHost = async (path: string) => (await host.exec(`test -e ${path} && echo yes || echo no`)).stdout.trim();

beforeAll(async () => {
  targets = await startRemovalTargets(server(), 'rename-secret');
  ({ host, project } = targets);
});

afterAll(() => targets?.stop('rename'));

test('renamed units, drop-in, instance and Repo move their lifecycles: nothing restarted or recreated', async () => {
  await apply('apply (create)');
  const runs = await Promise.all(UNITS.map(runOf));
  expect(runs.every((run) => /ActiveState=active/.test(run))).toBe(true);
  const uid = (await repo()).metadata.uid;

  await synth('renamed');
  const planned = await project.plan('plan (renamed)');
  for (const [from, to] of RENAMED) {
    expect(planned.stdout).toContain(`terraform_data.${from}_lifecycle has moved to terraform_data.${to}_lifecycle`);
  }
  // Only the batch applies, keyed by name, are replaced; no lifecycle is created, destroyed or replaced.
  const changed = [...planned.stdout.matchAll(/# (terraform_data\.\S+) (will be|must be) (\w+)/g)].map((m) => m[1]);
  expect(changed.every((address) => /_apply$/.test(address!))).toBe(true);
  expect(planned.stdout).not.toMatch(/not created by this stack|will be adopted/);

  const applied = await apply('apply (renamed)');
  expect(applied.stdout).not.toMatch(/_lifecycle: Destroying/);
  expect(applied.stdout).toMatch(/root@\S+: every object is in sync, nothing to apply/);
  expect(applied.stdout).toMatch(/Kubernetes cluster kube: every object is in sync, nothing to apply/);
  expect(await Promise.all(UNITS.map(runOf))).toEqual(runs);
  expect((await repo()).metadata.uid).toBe(uid);
  expect((await project.plan('plan (renamed, applied)')).code).toBe(0);
  // Once applied, prune-record drops the old names, and the synth after (no moved block) still plans nothing.
  const pruned = await project.must('prune-record', project.cli('prune-record'));
  expect(pruned.stderr).toMatch(/removal: dropped dropped, tpl, tpl-a, unit, unit-env: /);
  await synth('renamed');
  expect((await project.plan('plan (pruned)')).code).toBe(0);

  const destroyed = await project.must('destroy', project.terraform('destroy', '-auto-approve', '-no-color'));
  for (const [, to] of RENAMED)
    expect(destroyed.stdout).toContain(`terraform_data.${to}_lifecycle: Destruction complete`);
  for (const path of ['rm-unit.service', 'rm-unit.service.d', 'rm-tpl@.service']) {
    expect([path, await onHost(`/etc/systemd/system/${path}`)]).toEqual([path, 'no']);
  }
  expect(await runOf('rm-unit.service')).toMatch(/ActiveState=inactive/);
  expect((await kubeRequest(server().admin, 'GET', repoPath())).status).toBe(404);
});
