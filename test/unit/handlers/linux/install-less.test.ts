/**
 * The batch apply refuses, before any change to it, a template's instance declared enabled whose template (as the
 * batch writes it) has nothing in [Install] to enable, in the words of the rule synth uses; the template and the
 * batch's other objects are applied. Regression: the apply ran `systemctl enable`, which only warned (static).
 */
import type { InstanceSpec } from '../../../../src/linux/systemd-instance';
import { linuxDomain } from '../../../../handlers/linux/domain';
import { type ApplyEntry, invokeBatchApply } from '../../../support/run-handler';
import { fakeSystemd, TARGET } from './fake-systemd';
import { DIR, service, unit } from './unit-specs';

const STATIC = '[Service]\nExecStart=/bin/sleep infinity\n';
const FIX =
  'declare it enabled false, or give its file (an instance: its template) or a drop-in of it an [Install] WantedBy=';
const instance = (name: string, enabled: boolean): InstanceSpec => {
  const { content: _, ...controlled } = unit(name, STATIC, { enabled });
  return { ...controlled, template: `${name.split('@')[0]}@.service` };
};

const applyWith = async (template: string, enabled: boolean) => {
  const host = fakeSystemd();
  const objects: Record<string, ApplyEntry> = {
    t: { kind: 'systemd-unit', spec: unit('st@.service', template, { enabled: false, started: false }) },
    i: { kind: 'systemd-instance', spec: instance('st@a.service', enabled), after: ['t'] },
    other: { kind: 'systemd-unit', spec: unit('other.service', service()) },
  };
  const run = await invokeBatchApply(
    linuxDomain(async () => host.remote),
    TARGET,
    objects,
  );
  const touched = host.commands.filter((c) => c.includes('st@a.service') && !/systemctl show|intent|cat /.test(c));
  return { host, run, touched };
};

describe('an instance declared enabled of a template without [Install], in a batch apply', () => {
  test('is refused before any change to it, in the words of the rule, and the rest is applied', async () => {
    const { host, run, touched } = await applyWith(STATIC, true);
    expect(run.code).not.toBe(0);
    expect(run.stderr).toContain(
      'i: not applied: st@a.service on h:22 is declared enabled: its template st@.service names no WantedBy=, ' +
        'RequiredBy=, Alias= or Also= in [Install], nor does a drop-in of it, so it cannot be enabled: enabled must ' +
        "be false for an instance whose template's [Install] (its drop-ins' included) names no WantedBy=, " +
        'RequiredBy=, Alias= or Also=, got true (systemctl enable makes no link for it: systemd calls it static); ' +
        `nothing was changed: ${FIX}`,
    );
    expect(touched).toEqual([]);
    expect(host.files.has('/etc/systemd/system/st@.service')).toBe(true);
    expect(host.state('other.service')).toBe('active/running');
  });

  // A hand-written spec that leaves enabled out: the boundary, which cannot see the template, defaults it to true.
  test('left out of a hand-written spec, is refused saying to declare it enabled false', async () => {
    const host = fakeSystemd();
    const { enabled: _, ...leftOut } = instance('st@a.service', true);
    const run = await invokeBatchApply(
      linuxDomain(async () => host.remote),
      TARGET,
      {
        t: { kind: 'systemd-unit', spec: unit('st@.service', STATIC, { enabled: false, started: false }) },
        i: { kind: 'systemd-instance', spec: leftOut as InstanceSpec, after: ['t'] },
      },
    );
    expect(run.stderr).toMatch(
      /^i: not applied: st@a\.service on h:22 is declared enabled: .*nothing was changed: declare it enabled false/m,
    );
  });

  test('is applied when declared disabled, and started', async () => {
    const { host, run } = await applyWith(STATIC, false);
    expect(run).toMatchObject({ code: 0 });
    expect(host.state('st@a.service')).toBe('active/running');
  });

  test('is enabled when the template has an [Install] setting', async () => {
    const { run } = await applyWith(service(), true);
    expect(run).toMatchObject({ code: 0, stderr: expect.stringMatching(/^i: enabled$/m) });
  });
});

/**
 * A plain unit's spec is no longer refused at the boundary (it cannot see the drop-ins); the batch apply judges it
 * with the batch's drop-ins. Regression: a unit whose drop-in of the batch adds WantedBy= could not be enabled.
 */
describe('a unit declared enabled whose own text has no [Install], in a batch apply', () => {
  const applyUnit = async (dropIn: string | undefined) => {
    const host = fakeSystemd();
    const objects: Record<string, ApplyEntry> = {
      u: { kind: 'systemd-unit', spec: unit('plain.service', STATIC, { enabled: true }) },
      ...(dropIn === undefined
        ? {}
        : {
            d: {
              kind: 'systemd-drop-in',
              spec: {
                unit: 'plain.service',
                name: '10-install',
                directory: DIR,
                content: dropIn,
                startTimeoutSeconds: 90,
              },
              after: ['u'],
            },
          }),
    };
    const run = await invokeBatchApply(
      linuxDomain(async () => host.remote),
      TARGET,
      objects,
    );
    return { host, run };
  };

  test('is enabled when a drop-in of the batch adds WantedBy=', async () => {
    const { run } = await applyUnit('[Install]\nWantedBy=multi-user.target\n');
    expect(run).toMatchObject({ code: 0, stderr: expect.stringMatching(/^u: enabled$/m) });
  });

  test('is refused before any change, saying how to fix it, when no drop-in of the batch has one', async () => {
    for (const dropIn of [undefined, '[Service]\nNice=5\n']) {
      const { host, run } = await applyUnit(dropIn);
      expect(run.code).not.toBe(0);
      expect(run.stderr).toContain(
        'u: not applied: plain.service on h:22 is declared enabled: its file names no WantedBy=, RequiredBy=, ' +
          'Alias= or Also= in [Install], nor does a drop-in of it, so it cannot be enabled: enabled must be false ' +
          "for a unit whose [Install] (its drop-ins' included) names no WantedBy=, RequiredBy=, Alias= or Also=, " +
          `got true (systemctl enable makes no link for it: systemd calls it static); nothing was changed: ${FIX}`,
      );
      expect(host.files.has('/etc/systemd/system/plain.service')).toBe(false);
    }
  });
});
