/**
 * A drop-in's [Install] counts as its unit's own for `systemctl enable` (measured, systemd 252: a unit without
 * [Install] and `<unit>.d/x.conf` with `WantedBy=multi-user.target` was linked), so synth counts the drop-ins the
 * stack declares for the unit on its host. Regression: such a unit declared enabled was refused at synth, and its
 * `enabled` left out was false.
 */
import { Testing, TerraformStack } from 'cdktf';
import type { SshHost } from '../../../../constructs/linux/ssh-host';
import { SshHost as Host } from '../../../../constructs/linux/ssh-host';
import { SystemdDropIn } from '../../../../constructs/linux/systemd-drop-in';
import { SystemdUnit } from '../../../../constructs/linux/systemd-unit';
import { synthError } from '../synth-error';
import { hostIn } from './on-host';

const STATIC = '[Unit]\nDescription=static\n[Service]\nExecStart=/bin/sleep infinity\n';
const LINKED = `${STATIC}[Install]\nWantedBy=multi-user.target\n`;
const INSTALL = '[Install]\nWantedBy=multi-user.target\n';
const UNIT_RULE =
  "enabled must be false for a unit whose [Install] (its drop-ins' included) names no WantedBy=, RequiredBy=, " +
  'Alias= or Also=, got true (systemctl enable makes no link for it: systemd calls it static)';

const host = (stack: TerraformStack) => (stack.node.tryFindChild('n2') as SshHost | undefined) ?? hostIn(stack);
const plain = (stack: TerraformStack, props: { enabled?: boolean; content?: string } = {}) =>
  new SystemdUnit(stack, 'plain', { host: host(stack), name: 'plain.service', content: STATIC, ...props });

describe("a unit whose own text has no [Install], with a drop-in of the stack's adding one", () => {
  test('declared enabled, synthesizes, the drop-in naming it by construct or by name on its host', () => {
    for (const by of ['construct', 'name'] as const) {
      const stack = new TerraformStack(Testing.app(), 'test');
      const unit = plain(stack, { enabled: true });
      new SystemdDropIn(stack, 'install', {
        ...(by === 'construct' ? { unit } : { unit: 'plain.service', host: host(stack) }),
        name: '10-install',
        content: INSTALL,
      });
      expect(() => Testing.synth(stack)).not.toThrow();
      expect(unit.spec.enabled).toBe(true);
    }
  });

  test('enabled left out is true in the synthesized spec, as the drop-in is declared after the unit', () => {
    const stack = new TerraformStack(Testing.app(), 'test');
    const unit = plain(stack);
    expect(unit.spec.enabled).toBe(false);
    new SystemdDropIn(stack, 'install', { unit, name: '10-install', content: INSTALL });
    expect(unit.spec.enabled).toBe(true);
    expect(Testing.synth(stack)).toContain('\\"enabled\\":true');
  });

  test('an instance counts the drop-ins of its template and of itself', () => {
    const stack = new TerraformStack(Testing.app(), 'test');
    const template = new SystemdUnit(stack, 'st', { host: host(stack), name: 'st@.service', content: STATIC });
    const a = template.instance('a', { enabled: true });
    const b = template.instance('b');
    const c = template.instance('c');
    new SystemdDropIn(stack, 'of-template', { unit: template, name: 'install', content: INSTALL });
    new SystemdDropIn(stack, 'of-c', { unit: c, name: 'x', content: '[Unit]\nDescription=c\n' });
    expect(() => Testing.synth(stack)).not.toThrow();
    expect([a, b, c].map((instance) => instance.spec.enabled)).toEqual([true, true, true]);
  });
});

describe('drop-ins that do not make a unit enableable', () => {
  test.each([
    ['a drop-in on another host', 'other-host'],
    ['a retired drop-in', 'retired'],
    ['a drop-in without [Install]', 'no-install'],
    ['a drop-in for another unit', 'other-unit'],
  ])('%s leaves the unit refused', (_, kind) => {
    expect(
      synthError((stack) => {
        plain(stack, { enabled: true });
        const other = new Host(stack, 'n3', { host: '10.0.0.3', insecureAcceptAnyHostKey: true });
        new SystemdDropIn(stack, 'd', {
          unit: kind === 'other-unit' ? 'another.service' : 'plain.service',
          host: kind === 'other-host' ? other : host(stack),
          name: 'install',
          content: kind === 'no-install' ? '[Service]\nNice=5\n' : INSTALL,
          retired: kind === 'retired',
        });
      }),
    ).toBe(`test/plain: ${UNIT_RULE}`);
  });

  test("a drop-in's empty WantedBy= resets the unit's own, as systemd does: refused, and left out false", () => {
    const build = (stack: TerraformStack, enabled?: boolean) => {
      const unit = plain(stack, { content: LINKED, enabled });
      new SystemdDropIn(stack, 'reset', { unit, name: 'reset', content: '[Install]\nWantedBy=\n' });
      return unit;
    };
    expect(synthError((stack) => build(stack, true))).toBe(`test/plain: ${UNIT_RULE}`);
    const stack = new TerraformStack(Testing.app(), 'test');
    expect(build(stack).spec.enabled).toBe(false);
    expect(() => Testing.synth(stack)).not.toThrow();
  });

  // Regression: the refusal said its drop-ins count, to an app whose prefix drop-in brings the [Install].
  test("a prefix's drop-in with [Install] leaves the unit refused, and the refusal names it", () => {
    const prefix = '; it reads no [Install] of a drop-in of a prefix of the name, which only pid1 loads';
    const rule = (sort: string, paths: string) =>
      `${UNIT_RULE.replace('a unit', sort).slice(0, -1)}${prefix}: ${paths})`;
    expect(
      synthError((stack) => {
        new SystemdUnit(stack, 'u', { host: host(stack), name: 'pa-b-c.service', content: STATIC, enabled: true });
        new SystemdDropIn(stack, 'd', { unit: 'pa-.service', host: host(stack), name: 'install', content: INSTALL });
        new SystemdDropIn(stack, 'e', { unit: 'pa-b-.service', host: host(stack), name: 'x', content: INSTALL });
        new SystemdDropIn(stack, 'f', { unit: 'pa-.service', host: host(stack), name: 'y', content: STATIC });
      }),
    ).toBe(`test/u: ${rule('a unit', 'pa-.service.d/install.conf, pa-b-.service.d/x.conf')}`);
    expect(
      synthError((stack) => {
        const template = new SystemdUnit(stack, 't', { host: host(stack), name: 'pa-t@.service', content: STATIC });
        template.instance('x', { enabled: true });
        new SystemdDropIn(stack, 'd', { unit: 'pa-.service', host: host(stack), name: 'install', content: INSTALL });
      }),
    ).toBe(
      `test/t-x: ${rule('an instance', 'pa-.service.d/install.conf').replace(
        'whose [Install]',
        "whose template's [Install]",
      )}`,
    );
  });
});
