import { Testing, TerraformStack } from 'cdktf';
import { linuxDomain } from '../../../../handlers/linux/domain';
import { SshHost } from '../../../../constructs/linux/ssh-host';
import { SystemdDropIn } from '../../../../constructs/linux/systemd-drop-in';
import { SystemdUnit } from '../../../../constructs/linux/systemd-unit';
import { renderUnit, type UnitSection } from '../../../../src/linux/render-unit';
import type { Remote } from '../../../../src/linux/ssh';
import { invoke, invokeBatch } from '../../../support/run-handler';
import { stringVariable } from '../../../support/terraform-value';

const INJECTED = "x\n[Service]\nExecStartPre=/bin/sh -c 'id > /root/pwned'";
const PROBLEM =
  'Bad input: spec.content: [Unit] Description must not contain a newline, carriage return, NUL or ' +
  'other control character, got "x\\n[Service]\\nExecStartPre=';
const target = { host: 'h', port: 22, user: 'root', hostKey: 'SHA256:' + 'A'.repeat(43), privateKeyEnv: 'K' };

/** A linux domain whose host records every connection and command, answering none of them. */
const recordingDomain = () => {
  const seen: string[] = [];
  const remote: Remote = {
    run: async (command) => {
      seen.push(command);
      return { code: 0, stdout: '', stderr: '' };
    },
    close: () => undefined,
  };
  const domain = linuxDomain(async () => {
    seen.push('connect');
    return remote;
  });
  return { domain, seen };
};

/** Content holding the variable's token: in a section (renderUnit), or spliced into text. */
const inSections = (token: string) => renderUnit([{ name: 'Unit', lines: [['Description', token]] }]);
const inText = (token: string) => `[Unit]\nDescription=${token}\n\n[Service]\nExecStart=/bin/true\n`;

/** The specs a unit and its drop-in synthesize from a variable in `form`, as the handlers get them at apply. */
const specsAtApply = (value: string, form: (token: string) => string | readonly UnitSection[] = inSections) => {
  const stack = new TerraformStack(Testing.app(), 'test');
  const host = new SshHost(stack, 'n2', target);
  const { token, substitute } = stringVariable(stack, 'agent_description', value);
  const content = form(token);
  const unit = new SystemdUnit(stack, 'agent', { host, name: 'hf-agent.service', content });
  const dropIn = new SystemdDropIn(stack, 'level', { unit, name: '10-level', content });
  return { 'systemd-unit': substitute(unit.spec), 'systemd-drop-in': substitute(dropIn.spec) };
};

// Issue 16 item 1: a variable holding a newline reached the host as a second [Service] run as root.
describe('a Terraform value substituted into sections, at the handler boundary', () => {
  test.each(['systemd-unit', 'systemd-drop-in'] as const)(
    '%s apply refuses a newline in a value before it connects to the host',
    async (kind) => {
      const { domain, seen } = recordingDomain();
      const run = await invoke(domain, kind, 'apply', target, specsAtApply(INJECTED)[kind], { K: 'key' });
      expect(run.code).toBe(1);
      expect(run.stderr).toContain(`${kind} apply: ${PROBLEM}`);
      expect(seen).toEqual([]);
    },
  );

  test('the plan reads the object as unreadable with the same problem, and connects for nothing', async () => {
    const { domain, seen } = recordingDomain();
    const specs = specsAtApply(INJECTED);
    const objects = { agent: { kind: 'systemd-unit', spec: specs['systemd-unit'] } };
    const run = await invokeBatch(domain, target, objects, { K: 'key' });
    expect(run.result?.['agent.in_sync']).toBe('false');
    expect(run.result?.['agent.summary']).toContain(PROBLEM.replace('Bad input: ', ''));
    expect(seen).toEqual([]);
  });

  test('a value that keeps to the rules passes the boundary and reaches the host', async () => {
    const { domain, seen } = recordingDomain();
    await invoke(domain, 'systemd-unit', 'apply', target, specsAtApply('homelab agent')['systemd-unit'], { K: 'key' });
    expect(seen[0]).toBe('connect');
  });
});

// Issue 27 (HIGH): `content: "[Unit]\nDescription=" + desc + ...` with a newline in the variable ran a command as root.
describe('a Terraform value spliced into text, at the handler boundary', () => {
  test.each(['systemd-unit', 'systemd-drop-in'] as const)(
    '%s apply refuses a newline in the value before it connects to the host',
    async (kind) => {
      const { domain, seen } = recordingDomain();
      const run = await invoke(domain, kind, 'apply', target, specsAtApply(INJECTED, inText)[kind], { K: 'key' });
      expect(run.code).toBe(1);
      expect(run.stderr).toContain(
        `${kind} apply: Bad input: spec.content: value 1 must not contain a newline, carriage return, NUL or ` +
          'other control character, got "x\\n[Service]\\nExecStartPre=',
      );
      expect(seen).toEqual([]);
    },
  );

  // An audit (2026-12-05): synth refuses this text, but a spec made by hand (an edited cdk.tf.json) reached the
  // host, and the variable's directive ran as root.
  test.each(['systemd-unit', 'systemd-drop-in'] as const)(
    '%s apply refuses a spec whose value starts a line, before it connects to the host',
    async (kind) => {
      const value = "ExecStartPre=/bin/sh -c 'id > /root/pwned'";
      const content = { pieces: ['[Service]\nExecStart=/bin/true\n', value, '\n'] };
      const { domain, seen } = recordingDomain();
      const spec = { ...specsAtApply('x', inText)[kind], content };
      const run = await invoke(domain, kind, 'apply', target, spec, { K: 'key' });
      expect(run.code).toBe(1);
      expect(run.stderr).toContain(
        `${kind} apply: Bad input: spec.content: value 1 must stand only after a directive's "=" on its line, ` +
          'got one on line 3 after ""',
      );
      expect(seen).toEqual([]);
    },
  );

  test('a value ending in a backslash is refused: systemd would join the next line to it', async () => {
    const { domain, seen } = recordingDomain();
    const run = await invoke(domain, 'systemd-unit', 'apply', target, specsAtApply('agent\\', inText)['systemd-unit'], {
      K: 'key',
    });
    expect(run.stderr).toContain('spec.content: value 1 must not end in a backslash');
    expect(seen).toEqual([]);
  });

  test('a value that keeps to the rules is joined into the text and reaches the host', async () => {
    const spec = specsAtApply('homelab agent', inText)['systemd-unit'];
    expect(spec.content).toEqual({
      pieces: ['[Unit]\nDescription=', 'homelab agent', '\n\n[Service]\nExecStart=/bin/true\n'],
    });
    const { domain, seen } = recordingDomain();
    await invoke(domain, 'systemd-unit', 'apply', target, spec, { K: 'key' });
    expect(seen[0]).toBe('connect');
  });
});
