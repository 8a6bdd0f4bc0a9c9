/**
 * A unit, or a template's instance, declared enabled whose [Install] (its template's) names nothing for
 * `systemctl enable` to link is refused at synth, naming the construct, `enabled` and the rule, with every other
 * problem; left out, `enabled` is then false, so the plan promises no enable. Regression: such an instance planned
 * "the apply enables it", enable only warned (systemd: static), and the next plan was clean.
 */
import { Testing, TerraformStack } from 'cdktf';
import type { SshHost } from '../../../../constructs/linux/ssh-host';
import { SystemdUnit } from '../../../../constructs/linux/systemd-unit';
import { renderUnit } from '../../../../src/linux/render-unit';
import { stringVariable } from '../../../support/terraform-value';
import { synthError } from '../synth-error';
import { hostIn } from './on-host';

const STATIC = '[Unit]\nDescription=static\n[Service]\nExecStart=/bin/sleep infinity\n';
const LINKED = `${STATIC}[Install]\nWantedBy=multi-user.target\n`;
const WHY = 'got true (systemctl enable makes no link for it: systemd calls it static)';
const UNIT_RULE =
  "enabled must be false for a unit whose [Install] (its drop-ins' included) names no WantedBy=, RequiredBy=, " +
  `Alias= or Also=, ${WHY}`;
const INSTANCE_RULE =
  "enabled must be false for an instance whose template's [Install] (its drop-ins' included) names no WantedBy=, " +
  `RequiredBy=, Alias= or Also=, ${WHY}`;

/** The host `n2` of `stack`, declared once. */
const host = (stack: TerraformStack) => (stack.node.tryFindChild('n2') as SshHost | undefined) ?? hostIn(stack);

const template = (stack: TerraformStack, content: string | ReturnType<typeof renderUnit> = STATIC) =>
  new SystemdUnit(stack, 'st', { host: host(stack), name: 'st@.service', content });

describe('enabled: true with nothing in [Install] to enable', () => {
  test('an instance of a template without [Install] is refused, with every other problem of the app', () => {
    expect(
      synthError((stack) => {
        const st = template(stack);
        st.instance('a', { enabled: true });
        st.instance('b', { started: 'yes' as never });
        new SystemdUnit(stack, 'plain', { host: host(stack), name: 'plain.service', content: STATIC, enabled: true });
      }),
    ).toBe(
      [
        '3 problems in 3 constructs:',
        // Judged at synth, once the drop-ins declared after the units are known (drop-in-install.test.ts).
        'test/st-b: started must be a boolean, got "yes"',
        `test/st-a: ${INSTANCE_RULE}`,
        `test/plain: ${UNIT_RULE}`,
      ].join('\n'),
    );
  });

  test('a template with a Terraform value in its [Install] is judged by its known text', () => {
    const build = (stack: TerraformStack, where: 'install' | 'unit') => {
      const { token } = stringVariable(stack, 'v', 'multi-user.target');
      const content =
        where === 'install' ? `${STATIC}[Install]\nWantedBy=${token}\n` : `[Unit]\nDescription=${token}\n`;
      return template(stack, content).instance('a', { enabled: true });
    };
    const stack = new TerraformStack(Testing.app(), 'test');
    expect(build(stack, 'install').spec.enabled).toBe(true);
    expect(() => Testing.synth(stack)).not.toThrow();
    expect(synthError((other) => build(other, 'unit'))).toBe(`test/st-a: ${INSTANCE_RULE}`);
  });

  test('sections whose section name is a Terraform value are left to the handler', () => {
    const stack = new TerraformStack(Testing.app(), 'test');
    const { token } = stringVariable(stack, 'section', 'Install');
    const sections = renderUnit([{ name: token, lines: [['WantedBy', 'multi-user.target']] }]);
    expect(template(stack, sections).instance('a', { enabled: true }).spec.enabled).toBe(true);
    expect(() => Testing.synth(stack)).not.toThrow();
  });
});

describe('enabled left out', () => {
  test.each([
    ['without [Install], is false', STATIC, false],
    ['with an [Install] setting, is true', LINKED, true],
  ])('for a unit or an instance whose text is %s', (_, content, enabled) => {
    const stack = new TerraformStack(Testing.app(), 'test');
    const unit = new SystemdUnit(stack, 'plain', { host: host(stack), name: 'plain.service', content });
    expect(unit.spec.enabled).toBe(enabled);
    expect(template(stack, content).instance('a').spec.enabled).toBe(enabled);
    expect(() => Testing.synth(stack)).not.toThrow();
  });

  test('enabled: false is taken whatever [Install] says', () => {
    const stack = new TerraformStack(Testing.app(), 'test');
    expect(template(stack).instance('a', { enabled: false }).spec.enabled).toBe(false);
    expect(() => Testing.synth(stack)).not.toThrow();
  });
});
