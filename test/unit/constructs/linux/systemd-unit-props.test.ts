/**
 * Every prop of SystemdUnit judged as a plain-JavaScript app passes it: a wrong type, a missing
 * required prop and a misspelling each get one message naming the construct, the prop and the rule
 * (never a TypeError), every broken rule is reported at once, and the handler boundary refuses what
 * synth refuses when the value was only known at apply.
 */
import { Testing, TerraformStack, TerraformVariable } from 'cdktf';
import { SystemdUnit } from '../../../../constructs/linux/systemd-unit';
import { parseAs } from '../../../../src/core/parse';
import { unitSpec } from '../../../../src/linux/systemd-unit';
import { synthError as failure } from '../synth-error';
import { hostIn, onHost } from './on-host';

const VALID = { name: 'agent.service', content: '[Service]\nExecStart=/bin/true\n' };

/** The synth error of a unit with `props` over the valid ones. */
const synthError = (props: Record<string, unknown>, withHost = true): string =>
  failure((stack) => new SystemdUnit(stack, 'u', onHost(stack, { ...VALID, ...props }, withHost)));

/** A stack with its host, for the tests that go on after synth. */
const stackWithHost = () => {
  const stack = new TerraformStack(Testing.app(), 'test');
  return { stack, host: hostIn(stack) };
};

describe('SystemdUnit props from plain JavaScript', () => {
  test.each([
    ['name', 42, 'name must be a unit name such as node-check.service, got 42'],
    ['content', 42, 'content must be text, or sections of [key, value] lines, got 42'],
    [
      'content',
      [{ name: 'Service', lines: [['User']] }],
      'content must be text, or sections of [key, value] lines, got [{"name":"Service","lines":[["User"]]}]',
    ],
    ['directory', 5, 'directory must be an absolute path of letters, digits and . _ -, got 5'],
    ['enabled', 'yes', 'enabled must be a boolean, got "yes"'],
    ['started', 1, 'started must be a boolean, got 1'],
    ['restartOn', 'v1', 'restartOn must be a list of strings, got "v1"'],
    ['restartOn', [1], 'restartOn must be a list of strings, got [1]'],
    ['startTimeoutSeconds', '90', 'startTimeoutSeconds must be an integer from 1 to 3600, got "90"'],
    ['unmask', 'no', 'unmask must be a boolean, got "no"'],
    ['retired', 0, 'retired must be a boolean, got 0'],
  ])('%s: a wrong type (%p) names the prop and the rule', (prop, value, says) => {
    expect(synthError({ [prop]: value })).toBe(`test/u: ${says}`);
  });

  test.each([
    ['name', 'name is required: a unit name such as node-check.service'],
    ['content', 'content is required: text, or sections of [key, value] lines'],
  ])('%s: a missing required prop is refused at synth, not at plan', (prop, says) => {
    expect(synthError({ [prop]: undefined })).toBe(`test/u: ${says}`);
  });

  test('a missing host is refused naming it, not a TypeError', () => {
    expect(synthError({}, false)).toBe('test/u: host is required: an SshHost');
    expect(synthError({ host: '10.0.0.2' }, false)).toBe('test/u: host must be an SshHost, got "10.0.0.2"');
  });

  test('a misspelled prop is refused with the closest name', () => {
    expect(synthError({ enabeld: false })).toBe('test/u: enabeld is not a prop of SystemdUnit; did you mean enabled?');
    expect(synthError({ colour: 'red' })).toBe('test/u: colour is not a prop of SystemdUnit');
  });

  test('every broken rule is reported at once', () => {
    expect(synthError({ name: 'probe@.service', started: true, startTimeoutSeconds: 0, unmsk: true })).toBe(
      '3 problems in 1 construct:\ntest/u: unmsk is not a prop of SystemdUnit; did you mean unmask?\n' +
        'test/u: startTimeoutSeconds must be an integer from 1 to 3600, got 0\n' +
        'test/u: started must be false for a template unit (start its instances instead), got true',
    );
  });

  test('a value known only at apply passes synth and is refused by the same rule at the handler', () => {
    const { stack, host } = stackWithHost();
    const seconds = new TerraformVariable(stack, 'seconds', { type: 'number' });
    const unit = new SystemdUnit(stack, 'u', { host, ...VALID, startTimeoutSeconds: seconds.numberValue });
    const spec = { ...unit.spec, startTimeoutSeconds: 0 };
    expect(() => parseAs(unitSpec, spec, 'spec')).toThrow(
      'Bad input: spec.startTimeoutSeconds: must be an integer from 1 to 3600, got 0',
    );
  });

  test('the handler refuses every broken rule of a hand-written spec at once', () => {
    const { stack, host } = stackWithHost();
    const { spec } = new SystemdUnit(stack, 'u', { host, ...VALID });
    expect(() =>
      parseAs(unitSpec, { ...spec, name: 'probe@.service', directory: '/etc/../root', restartOn: 'x' }, 'spec'),
    ).toThrow(
      'Bad input: spec.directory: must be a path without .., got "/etc/../root"; ' +
        'spec.restartOn: must be a sha256 digest, got "x"; ' +
        'spec.started: must be false for a template unit (start its instances instead), got true',
    );
  });
});
