import { Testing, TerraformStack, TerraformVariable } from 'cdktf';
import { entryOf } from '../batch-apply';
import { SshHost } from '../../../../constructs/linux/ssh-host';
import { SystemdDropIn } from '../../../../constructs/linux/systemd-drop-in';
import { SystemdUnit } from '../../../../constructs/linux/systemd-unit';
import { renderUnit, type UnitSection } from '../../../../src/linux/render-unit';

type UnitContent = string | readonly UnitSection[];

const CONTROL = 'must not contain a newline, carriage return, NUL or other control character';
const INJECTED = "x\n[Service]\nExecStartPre=/bin/sh -c 'id > /root/pwned'";

const stackWithHost = () => {
  const stack = new TerraformStack(Testing.app(), 'test');
  const host = new SshHost(stack, 'n2', { host: '10.0.0.2', hostKey: 'SHA256:' + 'A'.repeat(43), privateKeyEnv: 'K' });
  return { stack, host };
};

const unitOf = (content: UnitContent) => {
  const { stack, host } = stackWithHost();
  return new SystemdUnit(stack, 'agent', { host, name: 'hf-agent.service', content });
};

const dropInOf = (content: UnitContent) => {
  const { stack, host } = stackWithHost();
  return new SystemdDropIn(stack, 'level', { host, unit: 'ssh.service', name: '10-level', content });
};

/** Declares the unit or drop-in `build` makes, then synthesizes its stack. */
const synthOf = (build: () => SystemdUnit | SystemdDropIn) => () => Testing.synth(TerraformStack.of(build()));

const description = (value: string): UnitSection[] => [{ name: 'Unit', lines: [['Description', value]] }];

// Issue 16 item 1: a newline in a renderUnit value added a [Service] whose ExecStartPre ran as root.
describe('the content of a unit or drop-in at synth', () => {
  test.each([
    ['a unit from renderUnit', () => unitOf(renderUnit(description(INJECTED))), 'test/agent'],
    ['a unit from sections', () => unitOf(description(INJECTED)), 'test/agent'],
    ['a drop-in from renderUnit', () => dropInOf(renderUnit(description(INJECTED))), 'test/level'],
  ])('%s with a newline in a value is refused naming the construct, the key and the rule', (_, build, path) => {
    expect(synthOf(build)).toThrow(
      `${path}: content [Unit] Description ${CONTROL}, got "x\\n[Service]\\nExecStartPre=`,
    );
  });

  test('every broken rule of the sections is reported in one error', () => {
    const sections: UnitSection[] = [
      { name: 'Unit', lines: [['Description', INJECTED]] },
      { name: 'Service', lines: [['User', 'nobody\\']] },
    ];
    expect(synthOf(() => unitOf(renderUnit(sections)))).toThrow(
      new RegExp(
        `^2 problems in 1 construct:\ntest/agent: content \\[Unit\\] Description ${CONTROL}, got .*\n` +
          'test/agent: content \\[Service\\] User must not end in a backslash ' +
          '\\(systemd would join the next line to it\\), got "nobody\\\\\\\\"$',
      ),
    );
  });

  test('sections known at synth are shipped as their text', () => {
    const sections = description('homelab agent');
    expect(unitOf(renderUnit(sections)).spec.content).toBe('[Unit]\nDescription=homelab agent\n');
    expect(dropInOf(sections).spec.content).toBe('[Unit]\nDescription=homelab agent\n');
  });

  test('text written as text is shipped as written', () => {
    const text = '[Unit]\nDescription=by hand\n';
    expect(unitOf(text).spec.content).toBe(text);
  });
});

describe('sections holding a Terraform value', () => {
  const synthWithVariable = (build: (stack: TerraformStack, host: SshHost, value: string) => void) => {
    const { stack, host } = stackWithHost();
    const variable = new TerraformVariable(stack, 'agent_description', { type: 'string' });
    build(stack, host, variable.stringValue);
    return JSON.parse(Testing.synth(stack));
  };

  test('keep their structure in the spec, so the handler checks the value Terraform substitutes', () => {
    const resources = synthWithVariable((stack, host, value) => {
      const unit = new SystemdUnit(stack, 'agent', {
        host,
        name: 'hf-agent.service',
        content: renderUnit(description(value)),
      });
      new SystemdDropIn(stack, 'level', { unit, name: '10-level', content: renderUnit(description(value)) });
    });
    const structure = '"content" = [{"name" = "Unit", "lines" = [["Description", var.agent_description]]}]';
    // The host's batch apply carries each object's spec to the handler in its trigger entry.
    expect(entryOf(resources, 'n2', 'agent').text).toContain(structure);
    expect(entryOf(resources, 'n2', 'level').text).toContain(structure);
  });

  test('have the known parts around the value checked at synth', () => {
    expect(() =>
      synthWithVariable((stack, host, value) => {
        new SystemdUnit(stack, 'agent', {
          host,
          name: 'hf-agent.service',
          content: description(`${value}\nUser=root`),
        });
      }),
    ).toThrow(`test/agent: content [Unit] Description ${CONTROL}`);
  });
});

// Issue 27 (HIGH): a variable spliced into text content added a root directive; the sections form refused it.
describe('text holding a Terraform value', () => {
  const synthText = (text: (value: string) => string, dropIn = false) => {
    const { stack, host } = stackWithHost();
    const value = new TerraformVariable(stack, 'desc', { type: 'string' }).stringValue;
    if (dropIn)
      new SystemdDropIn(stack, 'level', { host, unit: 'ssh.service', name: '10-level', content: text(value) });
    else new SystemdUnit(stack, 'agent', { host, name: 'hf-agent.service', content: text(value) });
    return JSON.parse(Testing.synth(stack));
  };

  test.each([false, true])(
    'ships as pieces, text and value apart, for the handler to judge (drop-in: %s)',
    (dropIn) => {
      const resources = synthText((value) => `[Unit]\nDescription=${value} agent\n`, dropIn);
      const entry = entryOf(resources, 'n2', dropIn ? 'level' : 'agent').text;
      expect(entry).toContain('"content" = {"pieces" = ["[Unit]\\nDescription=", var.desc, " agent\\n"]}');
    },
  );

  test('is refused at synth where a value would name a section or a key, every line at once', () => {
    expect(() => synthText((value) => `[${value}]\nExecStart=/bin/true\n${value}=1\n`)).toThrow(
      new RegExp(
        '^2 problems in 1 construct:\ntest/agent: content value 1 must stand only after a directive\'s "=" on ' +
          'its line, got one on line 1 after "\\[": put it in sections .*\n' +
          'test/agent: content value 2 must stand .* on line 3 after ""',
      ),
    );
  });

  // systemd ends a line at a lone CR too: after one, a value starts a line of its own (an audit, 2026-12-05).
  test('is refused at synth after a carriage return, where systemd starts a new line', () => {
    expect(() => synthText((value) => `[Service]\nEnvironment=A=1\r${value}\n`)).toThrow(
      'test/agent: content value 1 must stand only after a directive\'s "=" on its line, got one on line 3 after ""',
    );
  });
});

// systemd refuses a whole file over a header with anything after its `]` (measured, systemd 252: "Bad message").
describe('a section header with text after it, at synth', () => {
  const HEADER = 'must be a section header alone, "[Name]" with nothing after its "]"';
  test.each([
    ['a unit', () => unitOf('[Unit]\nDescription=x\n[Install] # on boot\nWantedBy=multi-user.target\n'), 'test/agent'],
    ['a drop-in', () => dropInOf('[Service]x\nNice=5\n'), 'test/level'],
  ])('%s is refused naming the construct, content, the line and the rule', (_, build, path) => {
    expect(synthOf(build)).toThrow(`${path}: content line ${path === 'test/agent' ? 3 : 1} ${HEADER}`);
  });
});
