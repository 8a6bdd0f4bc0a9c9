/**
 * Real terraform on `cdktf synth` output of examples/systemd.ts against the real systemd host:
 * create, clean plan, a unit stopped by hand named in the plan, one-apply fix, saved plans refused after a hand
 * changed the unit or its drop-ins, `enabled` from a bool variable (and one of the wrong type refused by the
 * handler), destroy, and no private key material in the state, nor any part of a hand-edited file's sha256.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { CdktfProject } from '../support/cdktf-project';
import { startSystemdHost, type SystemdHost } from '../support/systemd-host';

jest.setTimeout(300_000);

let host: SystemdHost;
let project: CdktfProject;
let bootSeconds = 0;
const DESCRIPTION = 'agent "one" ${not_a_ref} %{not_a_directive} \\ end';

const plan = (label: string, ...args: string[]) => project.plan(label, ...args);
const apply = (label: string, ...args: string[]) =>
  project.must(label, project.terraform('apply', '-auto-approve', '-no-color', ...args));
const flat = (text: string) => text.replace(/\s+/g, ' ');
const enablement = async (name: string) => (await host.exec(`systemctl is-enabled -- ${name} || true`)).stdout.trim();
const state = async (name: string) =>
  (await host.exec(`systemctl show -p ActiveState,SubState,UnitFileState -- ${name}`)).stdout;

beforeAll(async () => {
  const booting = Date.now();
  host = await startSystemdHost();
  bootSeconds = (Date.now() - booting) / 1000;
  project = new CdktfProject('build/examples/systemd.js', 'node-check', {
    HOMELAB_SSH_HOST: host.host,
    HOMELAB_SSH_PORT: String(host.port),
    HOMELAB_SSH_HOST_KEY: host.hostKeyFingerprint,
    HOMELAB_SSH_KEY: host.privateKey,
    // The check must still be running when the plan reads it, or the mid-run test proves nothing.
    HOMELAB_EXAMPLE_CHECK_SECONDS: '120',
    // Quotes and template sequences must reach the host as written (jsonencode, escaping).
    TF_VAR_agent_description: DESCRIPTION,
  });
  await project.must('synth', project.synth());
  await project.must('init', project.terraform('init', '-no-color'));
});

afterAll(async () => {
  console.log(`systemd e2e timings (s): host boot ${bootSeconds}, ${project?.report()}`);
  await host?.stop();
  project?.cleanup();
});

test('apply installs the agent and the timer-driven check, and the next plan is clean', async () => {
  await apply('apply (create)');
  expect(await state('hf-agent.service')).toMatch(/ActiveState=active[\s\S]*UnitFileState=enabled/);
  expect(await state('hf-node-check.timer')).toMatch(/ActiveState=active[\s\S]*UnitFileState=enabled/);
  expect(await state('hf-node-check.service')).toMatch(/UnitFileState=static/);
  const file = (await host.exec('cat /etc/systemd/system/hf-agent.service')).stdout;
  expect(file).toContain(`Description=${DESCRIPTION}\n`);
  expect(file).toContain("ExecStart=/bin/sh -c 'exec sleep infinity # ${HOME}'\n");
  expect((await plan('plan (clean)')).code).toBe(0);
});

test('the check mid-run is not drift', async () => {
  await host.exec('systemctl start --no-block hf-node-check.service');
  expect(await state('hf-node-check.service')).toMatch(/ActiveState=activating[\s\S]*SubState=start/);
  expect((await plan('plan (check mid-run)')).code).toBe(0);
  // Still mid-run after the plan, so the plan read it mid-run; then end the run for the tests after.
  expect(await state('hf-node-check.service')).toMatch(/ActiveState=activating[\s\S]*SubState=start/);
  await host.exec('systemctl kill hf-node-check.service; systemctl reset-failed hf-node-check.service || true');
});

test('a unit stopped by hand shows in the plan by name and state, and one apply starts it again', async () => {
  await host.exec('systemctl stop hf-agent.service');
  const drifted = await plan('plan (drift)');
  expect(drifted.code).toBe(2);
  expect(drifted.stdout.replace(/\s+/g, ' ')).toContain(
    `unit hf-agent.service on 127.0.0.1:${host.port} (inactive/dead) differs: ` +
      'running is "inactive/dead", want "running"',
  );
  await apply('apply (fix drift)');
  expect(await state('hf-agent.service')).toMatch(/ActiveState=active/);
  expect((await plan('plan (after fix)')).code).toBe(0);
});

// Regression: a plan that said only "stopped, want running" was followed by an apply that wrote the unit's file over
// a hand edit made after the plan, and started it: the plan's reading now travels to the apply, which refuses it.
test('a saved plan applied after the unit file was edited by hand changes nothing of that unit', async () => {
  const path = '/etc/systemd/system/hf-agent.service';
  await host.exec('systemctl stop hf-agent.service');
  expect((await plan('plan (stopped, saved)', '-out', 'plan.bin')).code).toBe(2);
  await host.exec(`sed -i 's/^Description=.*/Description=by hand/' ${path}`);
  const hand = (await host.exec(`sha256sum ${path}`)).stdout.slice(0, 64);
  const applied = await project.terraform('apply', '-no-color', 'plan.bin');
  expect(applied.code).toBe(1);
  expect(flat(applied.stdout + applied.stderr)).toContain(
    `agent: not applied: hf-agent.service on 127.0.0.1:${host.port} cannot be applied as planned: it was changed ` +
      'after the plan read it',
  );
  expect((await host.exec(`cat ${path}`)).stdout).toContain('Description=by hand\n');
  expect(await state('hf-agent.service')).toMatch(/ActiveState=inactive/);
  expect(flat((await plan('plan (after the refusal)')).stdout)).toMatch(
    /hf-agent\.service .* differs: file is "not the declared content \(\d+ bytes\)", want "sha256:/,
  );
  await apply('apply (as planned)');
  // The state keeps that plan's read and basis of the file edited by hand: nothing of its sha256 (a guess's test).
  const kept = readFileSync(project.statePath, 'utf8');
  expect(kept).toContain('not the declared content (');
  for (let at = 0; at + 8 <= hand.length; at++) expect(kept).not.toContain(hand.slice(at, at + 8));
  expect((await host.exec(`cat ${path}`)).stdout).toContain(`Description=${DESCRIPTION}\n`);
  expect(await state('hf-agent.service')).toMatch(/ActiveState=active/);
  expect((await plan('plan (clean after the refusal)')).code).toBe(0);
});

test('a saved plan applied after a drop-in was added by hand to the unit neither starts it nor loads it', async () => {
  const dir = '/etc/systemd/system/hf-agent.service.d';
  await host.exec('systemctl stop hf-agent.service');
  expect((await plan('plan (stopped, saved)', '-out', 'plan.bin')).code).toBe(2);
  await host.exec(`mkdir -p ${dir} && printf '[Service]\\nEnvironment=HAND=1\\n' > ${dir}/50-hand.conf`);
  const applied = await project.terraform('apply', '-no-color', 'plan.bin');
  expect(applied.code).toBe(1);
  expect(flat(applied.stdout + applied.stderr)).toContain(
    `agent: not applied: hf-agent.service on 127.0.0.1:${host.port} cannot be applied as planned: its drop-ins ` +
      `changed after the plan read it (${dir}/50-hand.conf was added or changed)`,
  );
  expect(await state('hf-agent.service')).toMatch(/ActiveState=inactive/);
  await host.exec(`rm -r ${dir}`);
  await apply('apply (the drop-in taken away)');
  expect(await state('hf-agent.service')).toMatch(/ActiveState=active/);
  expect((await plan('plan (clean after the drop-in refusal)')).code).toBe(0);
});

test('a saved plan applied after a drop-in was removed by hand from the unit does not start it', async () => {
  const dir = '/etc/systemd/system/hf-agent.service.d';
  await host.exec(`mkdir -p ${dir} && printf '[Service]\\nEnvironment=HAND=1\\n' > ${dir}/50-hand.conf`);
  await host.exec('systemctl daemon-reload && systemctl stop hf-agent.service');
  expect((await plan('plan (stopped with a drop-in, saved)', '-out', 'plan.bin')).code).toBe(2);
  await host.exec(`rm -r ${dir} && systemctl daemon-reload`);
  const applied = await project.terraform('apply', '-no-color', 'plan.bin');
  expect(applied.code).toBe(1);
  expect(flat(applied.stdout + applied.stderr)).toContain(
    `agent: not applied: hf-agent.service on 127.0.0.1:${host.port} cannot be applied as planned: its drop-ins ` +
      'changed after the plan read it (1 drop-in it had then was removed)',
  );
  expect(await state('hf-agent.service')).toMatch(/ActiveState=inactive/);
  await apply('apply (as it is now)');
  expect(await state('hf-agent.service')).toMatch(/ActiveState=active/);
  expect((await plan('plan (clean after the removal refusal)')).code).toBe(0);
});

test('enabled from a bool variable: its value plans clean, another is drift in words, an apply converges', async () => {
  expect((await plan('plan (agent_enabled=true)', '-var', 'agent_enabled=true')).code).toBe(0);
  const drifted = await plan('plan (agent_enabled=false)', '-var', 'agent_enabled=false');
  expect(drifted.code).toBe(2);
  expect(flat(drifted.stdout)).toContain(
    `unit hf-agent.service on 127.0.0.1:${host.port} (active/running) differs: enabled is true, want false`,
  );
  await apply('apply (agent_enabled=false)', '-var', 'agent_enabled=false');
  // systemctl show keeps UnitFileState as it was until a daemon-reload (seen here: "enabled" after the disable).
  expect(await enablement('hf-agent.service')).toBe('disabled');
  expect(await state('hf-agent.service')).toMatch(/ActiveState=active/);
  expect((await plan('plan (agent_enabled=false, after apply)', '-var', 'agent_enabled=false')).code).toBe(0);
});

// As an app that gave a string variable to enabled synthesizes it: Terraform jsonencodes the string as it is.
test('enabled given a string is refused by the handler naming the unit and the field, never coerced', async () => {
  const file = join(project.stackDir, 'cdk.tf.json');
  const synthesized = readFileSync(file, 'utf8');
  const stack = JSON.parse(synthesized);
  stack.variable.agent_enabled = { type: 'string' };
  writeFileSync(file, JSON.stringify(stack));
  try {
    const refused = 'spec.enabled: must be a boolean, got "false"';
    const read = await plan('plan (agent_enabled a string)', '-var', 'agent_enabled=false');
    expect(read.code).toBe(2);
    expect(flat(read.stdout)).toContain(`- agent: cannot be read: Bad input: ${refused}`);
    const applied = await project.terraform('apply', '-auto-approve', '-no-color', '-var', 'agent_enabled=false');
    expect(applied.code).toBe(1);
    expect(flat(applied.stderr)).toContain(`agent: not applied: Bad input: ${refused}`);
    expect(await enablement('hf-agent.service')).toBe('disabled');
  } finally {
    writeFileSync(file, synthesized);
  }
  // The variable's default again: one apply enables the agent, as the destroy below expects it.
  await apply('apply (agent_enabled default)');
  expect(await enablement('hf-agent.service')).toBe('enabled');
});

test('the state holds the key variable name but no private key material', () => {
  const text = readFileSync(project.statePath, 'utf8');
  expect(text).toContain('HOMELAB_SSH_KEY');
  expect(text).not.toContain('PRIVATE KEY');
  const body = host.privateKey.split('\n').filter((line) => line.length > 40)[0] ?? '';
  expect(body.length).toBeGreaterThan(40);
  expect(text).not.toContain(body);
});

test('destroy leaves no unit file and no enabled link', async () => {
  const destroyed = await project.must('destroy', project.terraform('destroy', '-auto-approve', '-no-color'));
  expect(destroyed.stdout).toMatch(/hf-agent.service on 127.0.0.1:\d+: stopped, disabled and removed/);
  const left = await host.exec('ls /etc/systemd/system/hf-* /etc/systemd/system/*.wants/hf-* 2>/dev/null; true');
  expect(left.stdout).toBe('');
  expect(await state('hf-agent.service')).toMatch(/ActiveState=inactive/);
});
