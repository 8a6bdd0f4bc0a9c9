import { Testing, TerraformStack } from 'cdktf';
import { SshHost } from '../../../../constructs/linux/ssh-host';
import { SystemdDropIn } from '../../../../constructs/linux/systemd-drop-in';
import { SystemdUnit } from '../../../../constructs/linux/systemd-unit';
import { parsedEntry } from '../batch-apply';

const KEY = 'SHA256:' + 'A'.repeat(43);
const TEMPLATE =
  '[Unit]\nDescription=probe %i\n\n[Service]\nExecStart=/bin/sleep infinity\n\n[Install]\nWantedBy=multi-user.target\n';

const stackWithTemplate = (templateRetired = false) => {
  const stack = new TerraformStack(Testing.app(), 'test');
  const host = new SshHost(stack, 'n2', { host: '10.0.0.2', hostKey: KEY });
  const probe = new SystemdUnit(stack, 'probe', {
    host,
    name: 'probe@.service',
    content: TEMPLATE,
    retired: templateRetired,
  });
  return { stack, host, probe };
};

describe('SystemdUnit templates and their instances', () => {
  test('a template defaults to neither enabled nor started', () => {
    const { stack } = stackWithTemplate();
    const { spec } = parsedEntry(JSON.parse(Testing.synth(stack)), 'n2', 'probe');
    expect(spec).toMatchObject({ name: 'probe@.service', enabled: false, started: false });
  });

  test('an instance has no content, names its template, and is applied after the template', () => {
    const { stack, probe } = stackWithTemplate();
    probe.instance('tty9', { startTimeoutSeconds: 30 });
    const synth = JSON.parse(Testing.synth(stack));
    const instance = parsedEntry(synth, 'n2', 'probe-tty9');
    expect(instance.kind).toBe('systemd-instance');
    expect(instance.after).toEqual(['probe']);
    expect(instance.spec).toEqual({
      name: 'probe@tty9.service',
      template: 'probe@.service',
      directory: '/etc/systemd/system',
      enabled: true,
      started: true,
      restartOn: expect.stringMatching(/^[0-9a-f]{64}$/),
      startTimeoutSeconds: 30,
      unmask: false,
    });
    expect(synth.resource.terraform_data['probe-tty9_lifecycle'].depends_on).toEqual([
      'terraform_data.probe_lifecycle',
    ]);
  });

  test("a change to the template moves its instances' restartOn, so running instances restart", () => {
    const restartOn = (content: string) => {
      const stack = new TerraformStack(Testing.app(), 'test');
      const host = new SshHost(stack, 'n2', { host: '10.0.0.2', hostKey: KEY });
      new SystemdUnit(stack, 'probe', { host, name: 'probe@.service', content }).instance('a');
      return parsedEntry(JSON.parse(Testing.synth(stack)), 'n2', 'probe-a').spec.restartOn;
    };
    expect(restartOn(TEMPLATE)).not.toBe(restartOn(`${TEMPLATE}# v2\n`));
  });

  test('retiring a template whose instances the stack still declares is refused at synth, validations or not', () => {
    const { stack, probe } = stackWithTemplate(true);
    probe.instance('tty9');
    new SystemdUnit(stack, 'bad', { host: probe.host, name: 'bad', content: '' });
    expect(() => Testing.synth(stack)).toThrow(
      new RegExp(
        '^2 problems in 2 constructs:\ntest/bad: name must be .*\ntest/probe: retired must be false while the stack ' +
          'declares instances of the template, got true with probe@tty9.service: retire those first or together$',
      ),
    );
  });

  test('a template retired together with its instances synthesizes', () => {
    const { stack, probe } = stackWithTemplate(true);
    probe.instance('tty9', { retired: true });
    expect(() => Testing.synth(stack, true)).not.toThrow();
  });

  test.each([
    ['a plain unit', 'plain.service', /template must be a template unit/],
    ['an instance with a space', 'probe@.service', /instance must be made of/],
  ])('rejects %s at synth', (_, name, message) => {
    const stack = new TerraformStack(Testing.app(), 'test');
    const host = new SshHost(stack, 'n2', { host: '10.0.0.2', hostKey: KEY });
    const unit = new SystemdUnit(stack, 'u', { host, name, content: TEMPLATE, started: false, enabled: false });
    unit.instance(name === 'plain.service' ? 'x' : 'a b');
    expect(() => Testing.synth(stack)).toThrow(message);
  });
});

describe('SystemdDropIn', () => {
  test('a drop-in for a unit of the stack takes its host and is applied after it', () => {
    const { stack, host } = stackWithTemplate();
    const agent = new SystemdUnit(stack, 'agent', {
      host,
      name: 'agent.service',
      content: '[Service]\nExecStart=/bin/true\n',
    });
    new SystemdDropIn(stack, 'limits', {
      unit: agent,
      name: '10-limits',
      content: [{ name: 'Service', lines: [['LimitNOFILE', '65536']] }],
    });
    const synth = JSON.parse(Testing.synth(stack));
    expect(parsedEntry(synth, 'n2', 'limits').after).toEqual(['agent']);
    expect(parsedEntry(synth, 'n2', 'limits').spec).toEqual({
      unit: 'agent.service',
      name: '10-limits',
      directory: '/etc/systemd/system',
      content: '[Service]\nLimitNOFILE=65536\n',
      startTimeoutSeconds: 90,
    });
    expect(synth.resource.terraform_data.limits_lifecycle.depends_on).toEqual(['terraform_data.agent_lifecycle']);
  });

  test.each([
    ['a unit name without a host', { unit: 'ssh.service' }, /host must be set when unit is a unit name/],
    ['a name with a slash', { name: '../x', host: true }, /name must be letters, digits/],
    ['a hidden name', { name: '.x', host: true }, /name must be letters, digits/],
    ['a bad unit name', { unit: 'ssh', host: true }, /unit must be a unit name/],
  ])('rejects %s at synth', (_, over, message) => {
    const { stack, host } = stackWithTemplate();
    const { host: withHost, ...rest } = over as { host?: boolean; unit?: string; name?: string };
    new SystemdDropIn(stack, 'd', {
      unit: 'sshd.service',
      name: '10-x',
      content: '',
      ...rest,
      ...(withHost ? { host } : {}),
    });
    expect(() => Testing.synth(stack)).toThrow(message);
  });
});
