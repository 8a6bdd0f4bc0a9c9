/**
 * Removing a construct deletes its object (README, Removing an object), on the real binaries: one
 * stack with an object of every kind that has something to delete, on the fake PVE, the real systemd
 * host and the real kube-apiserver. Deleting the constructs plans `will be destroyed` for each, the
 * apply deletes each on its target (a bridge before its bond, both before the node's reload), the
 * next plan is clean; `forget: true` leaves its object in place, and so does deleting it afterwards.
 */
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { FakePve } from '../fakes/pve/server';
import type { CdktfProject } from '../support/cdktf-project';
import { useKubeApiServer } from '../support/kube-apiserver';
import { crPath } from '../support/kube-crds';
import { kubeRequest } from '../support/kube-http';
import type { SystemdHost } from '../support/systemd-host';
import { type RemovalTargets, startRemovalTargets } from './removal-targets';

jest.setTimeout(600_000);

const server = useKubeApiServer();
let targets: RemovalTargets | undefined;
let fake: FakePve;
let host: SystemdHost;
let project: CdktfProject;

/** Every object the 'removed' step takes out of the code, forgotten `left` included, as prune-record lists them. */
const TOMBSTONES = 'bond, bridge, dropped, gone, left, pool-env, stay-env, tpl, tpl-a, unit, unit-env';
const synth = (step: string) => project.must(`synth (${step})`, project.synth({ HOMELAB_REMOVAL_STEP: step }));
const apply = (label: string) => project.must(label, project.terraform('apply', '-auto-approve', '-no-color'));
/** Whether the host has `path`. */
const onHost = async (path: string) => (await host.exec(`test -e ${path} && echo yes || echo no`)).stdout.trim();
const flat = (text: string) => text.replace(/\s+/g, ' ');
/** The hand-started instance's InvocationID and its process's environment. */
const poolRun = async () => {
  const unit = 'rm-pool@hand.service';
  const invocation = (await host.exec(`systemctl show -p InvocationID --value -- ${unit}`)).stdout.trim();
  const pid = `$(systemctl show -p MainPID --value -- ${unit})`;
  const env = (await host.exec(`tr '\\0' '\\n' < /proc/${pid}/environ`)).stdout;
  return { invocation, env };
};
const repoStatus = async (key: string) =>
  (await kubeRequest(server().admin, 'GET', crPath(server().namespace, 'repos', key))).status;
beforeAll(async () => {
  targets = await startRemovalTargets(server(), 'removal-secret');
  ({ fake, host, project } = targets);
});

afterAll(() => targets?.stop('removal'));

test('the first apply creates every object and the synth records each', async () => {
  await apply('apply (create)');
  expect(Object.keys(fake.metricServers()).sort()).toEqual(['gone', 'keep', 'left']);
  expect(fake.interfacesFiles('n1').running).toMatch(/iface vmbr5[\s\S]*bridge-ports bond0/);
  expect(await onHost('/etc/systemd/system/rm-unit.service.d/10-env.conf')).toBe('yes');
  expect(await onHost('/etc/systemd/system/multi-user.target.wants/rm-tpl@a.service')).toBe('yes');
  expect(await repoStatus('dropped')).toBe(200);
  const record = JSON.parse(readFileSync(join(project.dir, 'cdktf-homelab.record.json'), 'utf8'));
  expect(Object.values(record.stacks.removal.objects).every((o) => (o as { state: string }).state === 'declared')).toBe(
    true,
  );
  expect((await project.plan('plan (after create)')).code).toBe(0);
});

test('deleted constructs are planned for deletion and deleted on their targets; the plan after is clean', async () => {
  // Started by hand, so no stack declares it: the destroy of its template's drop-in restarts it without the drop-in.
  expect((await host.exec('systemctl start rm-pool@hand.service')).code).toBe(0);
  const handRun = await poolRun();
  expect(handRun.env).toContain('POOL=1');
  await synth('removed');
  const planned = await project.plan('plan (removal)', '-out', 'plan.bin');
  expect(planned.code).toBe(2);
  const destroyed = [...planned.stdout.matchAll(/# terraform_data\.(\S+)_lifecycle will be destroyed/g)].map(
    (m) => m[1],
  );
  expect(destroyed.sort()).toEqual(
    ['bond', 'bridge', 'dropped', 'gone', 'pool-env', 'stay-env', 'tpl', 'tpl-a', 'unit', 'unit-env'].sort(),
  );
  // The restart the drop-in's destroy does is in the plan, by the instance's name.
  expect(flat(planned.stdout)).toContain(
    `- pool-env: drop-in /etc/systemd/system/rm-pool@.service.d/10-env.conf on 127.0.0.1:${host.port}, if this ` +
      'plan destroys it: its destroy restarts rm-pool@hand.service without it (running, and no stack declares it)',
  );
  expect(planned.stdout).toMatch(
    /terraform_data\.left_lifecycle will (no longer be managed|be removed from the OpenTofu state)/,
  );
  expect(planned.stdout).toMatch(/n1: settled, bond0, vmbr5 to be deleted if this plan destroys them/);
  // Before the apply every tombstone's lifecycle is still in the state: prune-record drops none of them.
  const early = await project.must('prune-record (before the apply)', project.cli('prune-record'));
  expect(early.stderr).toContain(`removal: kept ${TOMBSTONES}: still in the state, apply first`);
  expect(early.stderr).toContain('prune-record: nothing to drop');
  const mark = fake.requests.length;
  const applied = await project.must('apply (removal)', project.terraform('apply', '-no-color', 'plan.bin'));
  expect(Object.keys(fake.metricServers()).sort()).toEqual(['keep', 'left']);
  const writes = fake.requests.slice(mark).filter((r) => r.method !== 'GET' && r.path.includes('/nodes/n1/network'));
  expect(writes.map((r) => `${r.method} ${r.path.replace('/api2/json/nodes/n1/network', '')}`)).toEqual([
    'DELETE /vmbr5',
    'DELETE /bond0',
    'PUT ',
  ]);
  expect(fake.interfacesFiles('n1').running).not.toMatch(/vmbr5|bond0/);
  for (const path of [
    'rm-unit.service',
    'rm-unit.service.d',
    'rm-tpl@.service',
    'multi-user.target.wants/rm-tpl@a.service',
  ]) {
    expect([path, await onHost(`/etc/systemd/system/${path}`)]).toEqual([path, 'no']);
  }
  expect(await onHost('/etc/systemd/system/rm-stay.service')).toBe('yes');
  // As the plan said: a new process, without the drop-in's setting.
  const restarted = await poolRun();
  expect(restarted.invocation).not.toBe(handRun.invocation);
  expect(restarted.env).not.toContain('POOL=1');
  expect(applied.stdout).toContain('restarted rm-pool@hand.service without it (no stack declares it)');
  expect(await onHost('/etc/systemd/system/rm-stay.service.d/10-env.conf')).toBe('no');
  // Its content changed in the same apply that removed its drop-in: applied, not refused as changed since the plan.
  expect(applied.stdout).not.toContain('cannot be applied as planned');
  // Let through by the trace its destroy left of the file (drop-in-traces.ts), which the batch apply then cleared.
  expect(await onHost('/var/lib/cdktf-homelab/removed/etc/systemd/system/rm-stay.service.d')).toBe('no');
  // And the trace of the destroyed unit's drop-in went with that unit (its drop-in destroyed first, no batch apply).
  expect(await onHost('/var/lib/cdktf-homelab/removed/etc/systemd/system/rm-unit.service.d')).toBe('no');
  expect(await repoStatus('dropped')).toBe(404);
  expect(await repoStatus('kept')).toBe(200);
  expect(applied.stdout).not.toMatch(/left/);
  // In the reverse of the apply order, and each before its target's batch apply runs.
  const ended = (name: string) => applied.stdout.indexOf(`terraform_data.${name}: Destruction complete`);
  const began = (name: string, verb = 'Destroying') => applied.stdout.indexOf(`terraform_data.${name}: ${verb}...`);
  const orders: Array<[string, string, string?]> = [
    ['unit-env_lifecycle', 'unit_lifecycle'],
    ['tpl-a_lifecycle', 'tpl_lifecycle'],
    ['bridge_lifecycle', 'bond_lifecycle'],
    ['bond_lifecycle', 'pve_apply', 'Creating'],
    ['unit_lifecycle', 'host_apply', 'Creating'],
    ['stay-env_lifecycle', 'host_apply', 'Creating'],
  ];
  for (const [first, then, verb] of orders) {
    expect([first, then, ended(first) >= 0 && ended(first) < began(then, verb)]).toEqual([first, then, true]);
  }
  expect((await project.plan('plan (after removal)')).code).toBe(0);
  await synth('removed');
  expect((await project.plan('plan (second synth)')).code).toBe(0);
});

test('a forgotten object stays on its target, and deleting its construct afterwards plans nothing', async () => {
  await synth('deleted');
  expect((await project.plan('plan (forgotten deleted)')).code).toBe(0);
  expect(fake.metricServers().left).toBeDefined();
  expect(existsSync(join(project.dir, 'cdktf-homelab.record.json'))).toBe(true);
});

test('prune-record drops the tombstones an apply has done; the synth after writes no removed block', async () => {
  const pruned = await project.must('prune-record', project.cli('prune-record'));
  expect(pruned.stderr).toContain(`removal: dropped ${TOMBSTONES}: their lifecycles left the state`);
  const record = JSON.parse(readFileSync(join(project.dir, 'cdktf-homelab.record.json'), 'utf8'));
  const states = Object.values(record.stacks.removal.objects).map((o) => (o as { state: string }).state);
  expect(new Set(states)).toEqual(new Set(['declared']));
  await synth('deleted');
  const synthesized = JSON.parse(readFileSync(join(project.stackDir, 'cdk.tf.json'), 'utf8'));
  expect(synthesized.removed ?? []).toEqual([]);
  // A network apply's spec names the interfaces whose removal it reloaded: without them its node's apply resource
  // is replaced once, and its handler finds nothing to do (README, Removing an object).
  const after = await project.plan('plan (after prune-record)');
  expect(after.code).toBe(2);
  expect(after.stdout).toContain('# terraform_data.pve_apply must be replaced');
  expect(after.stdout).toContain('Plan: 1 to add, 0 to change, 1 to destroy.');
  const mark = fake.requests.length;
  expect((await apply('apply (after prune-record)')).stdout).toContain('every object is in sync, nothing to apply');
  expect(fake.requests.slice(mark).filter((r) => r.method !== 'GET')).toEqual([]);
  expect((await project.plan('plan (after prune-record, applied)')).code).toBe(0);
  expect((await project.must('prune-record (again)', project.cli('prune-record'))).stderr).toContain(
    'no removed or forgotten object in the record; nothing to drop',
  );
});
