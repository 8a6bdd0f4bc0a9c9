/**
 * Every prop of SystemdUnitInstance judged as a plain-JavaScript app passes it, through
 * `instance()` and the constructor alike: a wrong type, a missing template or instance and a
 * misspelling each get one message naming the construct, the prop and the rule (never a TypeError),
 * every broken rule is reported at once, and the handler boundary refuses what synth refuses when
 * the value was only known at apply.
 */
import { Testing, TerraformStack, TerraformVariable } from 'cdktf';
import { SystemdUnitInstance } from '../../../../constructs/linux/systemd-instance';
import { SystemdUnit } from '../../../../constructs/linux/systemd-unit';
import { parseAs } from '../../../../src/core/parse';
import { instanceSpec } from '../../../../src/linux/systemd-instance';
import { synthError as failure } from '../synth-error';
import { hostIn } from './on-host';

const stackWithTemplate = (name = 'probe@.service') => {
  const stack = new TerraformStack(Testing.app(), 'test');
  const template = new SystemdUnit(stack, 'probe', {
    host: hostIn(stack),
    name,
    content: '[Service]\nExecStart=/bin/true\n',
  });
  return { stack, template };
};

/** The synth error of `probe.instance(instance, options)`. */
const synthError = (instance: unknown, options: Record<string, unknown> = {}): string =>
  failure((stack) =>
    new SystemdUnit(stack, 'probe', { host: hostIn(stack), name: 'probe@.service', content: 'x' }).instance(
      instance as string,
      options as never,
    ),
  );

describe('SystemdUnitInstance props from plain JavaScript', () => {
  test.each([
    ['enabled', 'yes', 'enabled must be a boolean, got "yes"'],
    ['started', 1, 'started must be a boolean, got 1'],
    ['restartOn', 'v1', 'restartOn must be a list of strings, got "v1"'],
    ['startTimeoutSeconds', 0, 'startTimeoutSeconds must be an integer from 1 to 3600, got 0'],
    ['unmask', 'no', 'unmask must be a boolean, got "no"'],
    ['retired', 'no', 'retired must be a boolean, got "no"'],
  ])('%s: a wrong type names the prop and the rule', (prop, value, says) => {
    expect(synthError('tty9', { [prop]: value })).toBe(`test/probe-tty9: ${says}`);
  });

  test('instance: a wrong type or a missing one is refused naming the rule', () => {
    const rule = 'instance must be made of letters, digits and : _ . \\ - @';
    expect(synthError(9)).toBe(`test/probe-9: ${rule}, got 9`);
    expect(synthError('a b')).toBe(`test/probe-a b: ${rule}, got "a b"`);
    expect(synthError(undefined)).toBe(
      'test/probe-undefined: instance is required: made of letters, digits and : _ . \\ - @',
    );
    expect(synthError('x'.repeat(250))).toMatch(/instance must be short enough for a unit name \(at most 255 ch/);
  });

  test('a missing or wrong template is refused naming it, not a TypeError', () => {
    const { stack, template } = stackWithTemplate();
    new SystemdUnitInstance(stack, 'i', { instance: 'a' } as never);
    new SystemdUnitInstance(stack, 'j', { instance: 'a', template: template.host } as never);
    expect(() => Testing.synth(stack)).toThrow(
      '2 problems in 2 constructs:\ntest/i: template is required: a SystemdUnit named foo@.service\n' +
        'test/j: template must be a SystemdUnit named foo@.service, got a SshHost',
    );
  });

  test('a unit that is not a template is refused as the template, naming its name', () => {
    const { stack, template } = stackWithTemplate('plain.service');
    template.instance('a');
    expect(() => Testing.synth(stack)).toThrow(
      'test/probe-a: template must be a template unit (foo@.service), got "plain.service"',
    );
  });

  // An audit (2026-12-05): cdktf threw its own "There is already a Construct with name" at once.
  test('one instance declared twice is a problem naming the template and the instance', () => {
    const { stack, template } = stackWithTemplate();
    const first = template.instance('a');
    expect(template.instance('a')).toBe(first);
    expect(() => Testing.synth(stack)).toThrow(
      'test/probe: instance must be declared once per name, got test/probe-a twice',
    );
  });

  // An audit (2026-12-05): the message named the prop `name`, which no app sets.
  test('an instance given as a Terraform value is refused naming instance', () => {
    const { stack, template } = stackWithTemplate();
    template.instance(new TerraformVariable(stack, 'tty', { type: 'string' }).stringValue);
    expect(() => Testing.synth(stack)).toThrow(
      /: instance must be a plain value known at synth, got a Terraform reference \(it names the unit\)$/,
    );
  });

  test('a misspelled prop is refused with the closest name', () => {
    expect(synthError('tty9', { startd: false })).toBe(
      'test/probe-tty9: startd is not a prop of SystemdUnitInstance; did you mean started?',
    );
  });

  test('every broken rule is reported at once', () => {
    expect(synthError('tty9', { enabled: 'yes', unmask: 1 })).toBe(
      '2 problems in 1 construct:\ntest/probe-tty9: enabled must be a boolean, got "yes"\n' +
        'test/probe-tty9: unmask must be a boolean, got 1',
    );
  });

  test('a value known only at apply passes synth and is refused by the same rule at the handler', () => {
    const { stack, template } = stackWithTemplate();
    const seconds = new TerraformVariable(stack, 'seconds', { type: 'number' });
    const { spec } = template.instance('tty9', { startTimeoutSeconds: seconds.numberValue });
    expect(() => parseAs(instanceSpec, { ...spec, startTimeoutSeconds: 3601 }, 'spec')).toThrow(
      'Bad input: spec.startTimeoutSeconds: must be an integer from 1 to 3600, got 3601',
    );
  });

  test('the handler refuses an instance of another template, and a template that is not one', () => {
    const { template } = stackWithTemplate();
    const { spec } = template.instance('tty9');
    expect(() => parseAs(instanceSpec, { ...spec, template: 'other@.service' }, 'spec')).toThrow(
      'Bad input: spec.name: must be an instance of other@.service, got "probe@tty9.service"',
    );
    expect(() => parseAs(instanceSpec, { ...spec, template: 'plain.service' }, 'spec')).toThrow(
      'Bad input: spec.template: must be a template unit (foo@.service), got "plain.service"',
    );
  });
});
