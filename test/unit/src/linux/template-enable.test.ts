/**
 * Whether `systemctl enable` of a template can link anything (src/linux/template-enable.ts): without
 * DefaultInstance= it makes only its aliases and Also=, and a WantedBy= of a target that is no template fails it
 * (measured, systemd 252). Regression: such a template declared enabled planned an enable the apply failed.
 */
import { Testing, TerraformStack } from 'cdktf';
import { SystemdUnit } from '../../../../constructs/linux/systemd-unit';
import { templateEnabledProblems, templateLinksNothing } from '../../../../src/linux/template-enable';
import { cannotEnable } from '../../../../src/linux/unit-enable';
import { synthError } from '../../constructs/synth-error';
import { hostIn } from '../../constructs/linux/on-host';

const SERVICE = '[Service]\nExecStart=/bin/sleep infinity\n';
const WANTED = `${SERVICE}[Install]\nWantedBy=multi-user.target\n`;

test.each([
  ['WantedBy= alone', WANTED, [], true],
  ['RequiredBy= alone', `${SERVICE}[Install]\nRequiredBy=multi-user.target\n`, [], true],
  ['no [Install]', SERVICE, [], true],
  ['WantedBy= and Alias=', `${WANTED}Alias=a-al@.service\n`, [], false],
  ['WantedBy= and Also=', `${WANTED}Also=b.socket\n`, [], false],
  ['WantedBy= and DefaultInstance=', `${WANTED}DefaultInstance=x\n`, [], false],
  [
    'DefaultInstance= alone (measured: static, enable links nothing)',
    `${SERVICE}[Install]\nDefaultInstance=x\n`,
    [],
    true,
  ],
  [
    'a drop-in that empties WantedBy= beside DefaultInstance=',
    `${WANTED}DefaultInstance=x\n`,
    [{ name: 'x', content: '[Install]\nWantedBy=\n' }],
    true,
  ],
  [
    'a WantedBy= of a template target (not measured: left to systemd)',
    `${SERVICE}[Install]\nWantedBy=t@.target\n`,
    [],
    false,
  ],
  ['a drop-in that adds Alias=', WANTED, [{ name: '10-alias', content: '[Install]\nAlias=a-al@.service\n' }], false],
  [
    'a drop-in that empties Alias=',
    `${WANTED}Alias=a-al@.service\n`,
    [{ name: 'x', content: '[Install]\nAlias=\n' }],
    true,
  ],
  ['a Terraform value in Alias=', { pieces: [`${WANTED}Alias=`, '${v}', '\n'] }, [], false],
])('%s: links nothing is %s', (_, content, dropIns, nothing) => {
  expect(templateLinksNothing(content, undefined, dropIns)).toBe(nothing);
});

test('the plan and the apply judge a template declared enabled by it; a unit and a disabled template are not', () => {
  const spec = { name: 'a@.service', enabled: true };
  const status = { unitFileState: 'disabled' };
  expect(cannotEnable(spec, WANTED, [], status)).toMatch(
    /names no Alias=, Also=, nor DefaultInstance= beside a WantedBy= or RequiredBy=, so it cannot/,
  );
  expect(cannotEnable(spec, `${WANTED}DefaultInstance=x\n`, [], status)).toBeUndefined();
  expect(cannotEnable({ ...spec, enabled: false }, WANTED, [], status)).toBeUndefined();
  expect(templateEnabledProblems('a.service', true, SERVICE)).toEqual([]);
});

test('synth refuses enabled: true on such a template, naming the construct, the prop and the rule', () => {
  expect(
    synthError((stack) => {
      const host = hostIn(stack);
      new SystemdUnit(stack, 'w', { host, name: 'w@.service', content: WANTED, enabled: true });
      new SystemdUnit(stack, 'ok', {
        host,
        name: 'ok@.service',
        content: `${WANTED}DefaultInstance=x\n`,
        enabled: true,
      });
    }),
  ).toBe(
    "test/w: enabled must be false for a template whose [Install] (its drop-ins' included) names no Alias=, Also=, " +
      'nor DefaultInstance= beside a WantedBy= or RequiredBy=, got true (systemctl enable of a template without ' +
      'DefaultInstance= makes only its aliases: a WantedBy= of a target that is no template fails it)',
  );
  // One cause, one problem: a template with no installation config at all gets the static rule's alone.
  const only = synthError((stack) => {
    const content = `${SERVICE}[Install]\nDefaultInstance=x\n`;
    new SystemdUnit(stack, 'd', { host: hostIn(stack), name: 'd@.service', content, enabled: true });
  });
  expect(only).toMatch(/^test\/d: enabled must be false for a unit whose \[Install\].*systemd calls it static\)$/);
  const stack = new TerraformStack(Testing.app(), 'left-out');
  const left = new SystemdUnit(stack, 'w', { host: hostIn(stack), name: 'w@.service', content: WANTED });
  expect(left.spec.enabled).toBe(false);
  expect(() => Testing.synth(stack)).not.toThrow();
});
