/**
 * restartOn holding a Terraform value: Terraform takes its digest over the values it substitutes, so a
 * changed variable restarts the unit. Synth's digest was taken over cdktf's placeholder, the same whatever
 * the variable held, and a unit, or an instance of a template holding a value, never restarted.
 */
import { Testing, TerraformStack, TerraformVariable } from 'cdktf';
import { digestOf, sha256Hex } from '../../../../src/core/canonical';
import { SystemdUnit } from '../../../../constructs/linux/systemd-unit';
import { hostIn } from './on-host';

const TEMPLATE = '[Service]\nExecStart=/bin/sleep infinity\n';

/** A stack with a host and a string variable `a`. */
const stackWithVariable = () => {
  const stack = new TerraformStack(Testing.app(), 'test');
  const variable = new TerraformVariable(stack, 'a', { type: 'string' });
  return { stack, host: hostIn(stack), value: variable.stringValue };
};

describe('restartOn holding a Terraform value', () => {
  test('a unit restarts on the digest Terraform takes of the variable', () => {
    const { stack, host, value } = stackWithVariable();
    new SystemdUnit(stack, 'u', { host, name: 'a.service', content: TEMPLATE, restartOn: ['v', value] });
    expect(Testing.synth(stack)).toContain('\\"restartOn\\" = sha256(jsonencode([\\"v\\", var.a]))');
  });

  test('a list variable is digested whole, and known text around a value stays beside it', () => {
    const { stack, host, value } = stackWithVariable();
    const list = new TerraformVariable(stack, 'l', { type: 'list(string)' }).listValue;
    new SystemdUnit(stack, 'u', { host, name: 'a.service', content: TEMPLATE, restartOn: list });
    new SystemdUnit(stack, 'w', { host, name: 'w.service', content: TEMPLATE, restartOn: [`v=${value}%{x}`] });
    const synth = Testing.synth(stack);
    expect(synth).toContain('\\"restartOn\\" = sha256(jsonencode(var.l))');
    expect(synth).toContain('\\"restartOn\\" = sha256(jsonencode([join(\\"\\", [\\"v=\\", var.a, \\"%%{x}\\"])]))');
  });

  test("an instance restarts on the digest Terraform takes of its template's content holding a variable", () => {
    const { stack, host, value } = stackWithVariable();
    const content = `[Service]\nExecStart=/bin/echo ${value}\n`;
    new SystemdUnit(stack, 'p', { host, name: 'p@.service', content }).instance('x');
    expect(Testing.synth(stack)).toContain(
      '\\"restartOn\\" = sha256(jsonencode([join(\\"\\", [\\"template \\", ' +
        'sha256(join(\\"\\", [\\"[Service]\\\\nExecStart=/bin/echo \\", var.a, \\"\\\\n\\"]))])]))',
    );
  });

  test('known values keep the digest synth takes, so a stack without variables restarts nothing', () => {
    const stack = new TerraformStack(Testing.app(), 'test');
    const host = hostIn(stack);
    const unit = new SystemdUnit(stack, 'u', { host, name: 'a.service', content: TEMPLATE, restartOn: ['v'] });
    const template = new SystemdUnit(stack, 'p', { host, name: 'p@.service', content: TEMPLATE });
    const instance = template.instance('x', { restartOn: ['v'] });
    expect(unit.spec.restartOn).toBe(digestOf(['v']));
    expect(instance.spec.restartOn).toBe(digestOf(['v', `template ${sha256Hex(TEMPLATE)}`]));
  });
});
