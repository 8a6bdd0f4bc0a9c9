/**
 * A unit's and a drop-in's content on real systemd 252 over SSH when a Terraform value fills a
 * section: a value that would add lines writes nothing and runs nothing; one that keeps to the rules
 * is written as rendered. And why the rules exist: how systemd reads such a file when it is written.
 */
import { Testing, TerraformStack } from 'cdktf';
import { SshHost } from '../../../constructs/linux/ssh-host';
import { SystemdDropIn } from '../../../constructs/linux/systemd-drop-in';
import { SystemdUnit } from '../../../constructs/linux/systemd-unit';
import { linuxDomain } from '../../../handlers/linux/domain';
import { renderUnit } from '../../../src/linux/render-unit';
import { invoke } from '../../support/run-handler';
import { stringVariable } from '../../support/terraform-value';
import { hostTarget, KEY_ENV, useSystemdHost } from '../../support/unit-host';

jest.setTimeout(120_000);

const { host, unit } = useSystemdHost();
const INJECTED = "x\n[Service]\nExecStartPre=/bin/sh -c 'id -u > /root/pwned'";

/** What a unit and its drop-in synthesize with `value` in a Description, as the handlers get them at apply. */
const specsAtApply = (name: string, value: string) => {
  const stack = new TerraformStack(Testing.app(), 'test');
  const node = new SshHost(stack, 'node', {
    host: '127.0.0.1',
    hostKey: host().hostKeyFingerprint,
    privateKeyEnv: KEY_ENV,
  });
  const { token, substitute } = stringVariable(stack, 'description', value);
  const agent = new SystemdUnit(stack, 'agent', {
    host: node,
    name,
    content: renderUnit([
      { name: 'Unit', lines: [['Description', token]] },
      { name: 'Service', lines: [['ExecStart', '/bin/sleep infinity']] },
    ]),
  });
  const dropIn = new SystemdDropIn(stack, 'level', {
    unit: agent,
    name: '10-level',
    content: renderUnit([{ name: 'Unit', lines: [['Description', token]] }]),
  });
  return { unit: substitute(agent.spec), dropIn: substitute(dropIn.spec) };
};

const apply = (kind: 'systemd-unit' | 'systemd-drop-in', spec: object) =>
  invoke(linuxDomain(), kind, 'apply', hostTarget(host()), spec, { [KEY_ENV]: host().privateKey });
const exists = async (path: string) => (await host().exec(`test -e ${path}`)).code === 0;

// Issue 16 item 1: the variable's newline gave the unit a second [Service] whose command ran as root.
test('a unit whose Terraform value holds a newline is refused, and nothing is written or run', async () => {
  const { unit: spec } = specsAtApply('hf-inject.service', INJECTED);
  const applied = await apply('systemd-unit', spec);
  expect(applied.code).toBe(1);
  expect(applied.stderr).toContain('spec.content: [Unit] Description must not contain a newline');
  expect(await exists('/etc/systemd/system/hf-inject.service')).toBe(false);
  expect(await exists('/root/pwned')).toBe(false);
  expect((await unit.show('hf-inject.service')).LoadState).toBe('not-found');
});

test("a drop-in whose Terraform value holds a newline is refused, and its unit's file is not touched", async () => {
  const good = specsAtApply('hf-agent.service', 'homelab agent');
  expect((await apply('systemd-unit', good.unit)).code).toBe(0);
  const applied = await apply('systemd-drop-in', specsAtApply('hf-agent.service', INJECTED).dropIn);
  expect(applied.code).toBe(1);
  expect(applied.stderr).toContain('spec.content: [Unit] Description must not contain a newline');
  expect(await exists('/etc/systemd/system/hf-agent.service.d/10-level.conf')).toBe(false);
  expect(await exists('/root/pwned')).toBe(false);
});

test('a Terraform value that keeps to the rules is written as renderUnit renders it', async () => {
  const value = 'agent "one" ${not_a_ref} \\ end';
  const { unit: spec, dropIn } = specsAtApply('hf-agent.service', value);
  expect((await apply('systemd-unit', spec)).code).toBe(0);
  expect((await apply('systemd-drop-in', dropIn)).code).toBe(0);
  expect((await host().exec('cat /etc/systemd/system/hf-agent.service')).stdout).toBe(
    `[Unit]\nDescription=${value}\n\n[Service]\nExecStart=/bin/sleep infinity\n`,
  );
  expect((await host().exec('cat /etc/systemd/system/hf-agent.service.d/10-level.conf')).stdout).toBe(
    `[Unit]\nDescription=${value}\n`,
  );
  expect((await unit.show('hf-agent.service', 'Description')).Description).toBe('agent "one" ${not_a_ref} \\ end');
});

test('systemd ends a line at a carriage return and joins a line ending in a backslash to the next', async () => {
  const file =
    '[Unit]\nDescription=a\\\nAfter=swallowed.target\n\n' +
    '[Service]\nEnvironment=A=1\rUser=nobody\nExecStart=/bin/sleep infinity\n';
  await host().exec(`printf %s '${file}' > /etc/systemd/system/hf-raw.service && systemctl daemon-reload`);
  const seen = await unit.show('hf-raw.service', 'Description,After,User,Environment');
  expect(seen).toMatchObject({ Description: 'a After=swallowed.target', User: 'nobody', Environment: 'A=1' });
  expect(seen.After).not.toContain('swallowed.target');
  await host().exec('rm /etc/systemd/system/hf-raw.service && systemctl daemon-reload');
});
