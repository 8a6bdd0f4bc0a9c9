/**
 * Every prop of SystemdDropIn judged as a plain-JavaScript app passes it: a wrong type, a missing
 * required prop or host and a misspelling each get one message naming the construct, the prop and
 * the rule (never a TypeError), every broken rule is reported at once, and the handler boundary
 * refuses what synth refuses when the value was only known at apply.
 */
import { Testing, TerraformStack, TerraformVariable } from 'cdktf';
import { SshHost } from '../../../../constructs/linux/ssh-host';
import { SystemdDropIn } from '../../../../constructs/linux/systemd-drop-in';
import { SystemdUnit } from '../../../../constructs/linux/systemd-unit';
import { parseAs } from '../../../../src/core/parse';
import { dropInSpec } from '../../../../src/linux/systemd-drop-in';
import { synthError as failure } from '../synth-error';
import { hostIn, onHost } from './on-host';

const VALID = { unit: 'ssh.service', name: '10-limits', content: '[Service]\nLimitNOFILE=65536\n' };

/** The synth error of a drop-in with `props` over the valid ones. */
const synthError = (props: Record<string, unknown>, withHost = true): string =>
  failure((stack) => new SystemdDropIn(stack, 'd', onHost(stack, { ...VALID, ...props }, withHost)));

const NAME_RULE = 'letters, digits and _ . @ - (no leading dot, at most 100)';
const UNIT_RULE = 'a unit name, or a SystemdUnit or instance of the stack';

describe('SystemdDropIn props from plain JavaScript', () => {
  test.each([
    ['unit', 42, `unit must be ${UNIT_RULE}, got 42`],
    ['name', 42, `name must be ${NAME_RULE}, got 42`],
    ['content', 42, 'content must be text, or sections of [key, value] lines, got 42'],
    ['directory', 'etc', 'directory must be an absolute path of letters, digits and . _ -, got "etc"'],
    ['startTimeoutSeconds', '90', 'startTimeoutSeconds must be an integer from 1 to 3600, got "90"'],
    ['retired', 1, 'retired must be a boolean, got 1'],
    ['host', 'n2', 'host must be an SshHost, got "n2"'],
  ])('%s: a wrong type names the prop and the rule', (prop, value, says) => {
    expect(synthError({ [prop]: value })).toBe(`test/d: ${says}`);
  });

  test.each([
    ['unit', `unit is required: ${UNIT_RULE}`],
    ['name', `name is required: ${NAME_RULE}`],
    ['content', 'content is required: text, or sections of [key, value] lines'],
  ])('%s: a missing required prop is refused at synth, not at plan', (prop, says) => {
    expect(synthError({ [prop]: undefined })).toBe(`test/d: ${says}`);
  });

  test('a unit named by its name without a host is refused naming the host, not a TypeError', () => {
    expect(synthError({}, false)).toBe('test/d: host must be set when unit is a unit name, got undefined');
  });

  test.each([
    [
      'another drop-in',
      (stack: TerraformStack) => new SystemdDropIn(stack, 'd0', onHost(stack, VALID)),
      'a SystemdDropIn',
    ],
    ['an object with a spec', () => ({ spec: { name: 'a.service' } }), '{"spec":{"name":"a.service"}}'],
  ])('a unit given as %s is refused naming the unit, not a TypeError', (_, unit, got) => {
    const error = failure((stack) => new SystemdDropIn(stack, 'd', { ...VALID, unit: unit(stack) } as never));
    expect(error).toBe(`test/d: unit must be ${UNIT_RULE}, got ${got}`);
  });

  // An audit (2026-12-05): the host given won, so the drop-in went to a host without its unit.
  test("a host beside a unit construct on another host is refused, naming the unit's", () => {
    const error = failure((stack) => {
      const unit = new SystemdUnit(stack, 'u', { host: hostIn(stack), name: 'hf.service', content: VALID.content });
      const other = new SshHost(stack, 'n3', { host: '10.0.0.3', insecureAcceptAnyHostKey: true });
      new SystemdDropIn(stack, 'd', { ...VALID, unit, host: other });
    });
    expect(error).toBe('test/d: host must be left unset or be test/n2, the host of unit test/u');
  });

  test('a misspelled prop is refused with the closest name', () => {
    expect(synthError({ nmae: '10-x' })).toBe('test/d: nmae is not a prop of SystemdDropIn; did you mean name?');
  });

  test('every broken rule is reported at once', () => {
    expect(synthError({ unit: 'ssh', name: '.hidden', startTimeoutSeconds: 0 })).toBe(
      '3 problems in 1 construct:\ntest/d: unit must be a unit name (a name ending in a unit type (.service, ' +
        '.socket, .device, .mount, .automount, .swap, .target, .path, .timer, .slice, .scope)), or a SystemdUnit or ' +
        `instance of the stack, got "ssh"\ntest/d: name must be ${NAME_RULE}, got ".hidden"\n` +
        'test/d: startTimeoutSeconds must be an integer from 1 to 3600, got 0',
    );
  });

  test('a value known only at apply passes synth and is refused by the same rule at the handler', () => {
    const stack = new TerraformStack(Testing.app(), 'test');
    const host = hostIn(stack);
    const seconds = new TerraformVariable(stack, 'seconds', { type: 'number' });
    const { spec } = new SystemdDropIn(stack, 'd', { host, ...VALID, startTimeoutSeconds: seconds.numberValue });
    expect(() => parseAs(dropInSpec, { ...spec, startTimeoutSeconds: 0 }, 'spec')).toThrow(
      'Bad input: spec.startTimeoutSeconds: must be an integer from 1 to 3600, got 0',
    );
  });

  test('the handler refuses every broken rule of a hand-written spec at once', () => {
    const spec = { ...VALID, unit: 'ssh', name: '../x', directory: '/etc/systemd/system', startTimeoutSeconds: 90 };
    expect(() => parseAs(dropInSpec, spec, 'spec')).toThrow(
      'Bad input: spec.unit: must be a unit name (a name ending in a unit type',
    );
    expect(() => parseAs(dropInSpec, spec, 'spec')).toThrow(`; spec.name: must be ${NAME_RULE}, got "../x"`);
  });
});
