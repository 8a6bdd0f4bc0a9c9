/**
 * Enablement through a host's batch apply, against the fake systemd: a unit enabled until reboot alone
 * (`enable --runtime`, links under /run) reads as drift whatever is declared, the apply makes it as
 * declared, and an undo puts back the links that were there, never more; a rewritten enabled unit is
 * re-enabled, so its links follow its new [Install].
 */
import type { UnitSpec } from '../../../../src/linux/systemd-unit';
import { linuxDomain } from '../../../../handlers/linux/domain';
import { type ApplyEntry, invokeBatch, invokeBatchApply } from '../../../support/run-handler';
import { fakeSystemd, TARGET } from './fake-systemd';
import { service, unit } from './unit-specs';

type Host = ReturnType<typeof fakeSystemd>;
const domain = (host: Host) => linuxDomain(async () => host.remote);
const apply = (host: Host, spec: UnitSpec) =>
  invokeBatchApply(domain(host), TARGET, { u: { kind: 'systemd-unit', spec } as ApplyEntry });
const read = async (host: Host, spec: UnitSpec) =>
  (await invokeBatch(domain(host), TARGET, { u: { kind: 'systemd-unit', spec } })).result ?? {};
/** Applied, then `systemctl disable && systemctl enable --runtime` by hand: links under /run alone. */
const runtimeOnly = async (spec: UnitSpec): Promise<Host> => {
  const host = fakeSystemd();
  expect((await apply(host, spec)).code).toBe(0);
  await host.remote.run('sh -s', `systemctl disable -- '${spec.name}'\n`);
  await host.remote.run('sh -s', `systemctl enable --runtime -- '${spec.name}'\n`);
  expect(host.enabled(spec.name)).toBe('enabled-runtime');
  return host;
};
const links = (commands: readonly string[]) =>
  commands.filter((command) => /root: systemctl (re)?(en|dis)able/.test(command));

describe('a unit enabled until reboot alone', () => {
  // Regression: it read in sync with enabled: true, and the next boot would not start it.
  test('declared enabled, reads as drift and is enabled for good', async () => {
    const spec = unit('rt.service');
    const host = await runtimeOnly(spec);
    expect(await read(host, spec)).toMatchObject({
      'u.in_sync': 'false',
      'u.summary': expect.stringMatching(/differs: enabled is "until reboot \(\/run only\)", want true$/),
    });
    const before = host.commands.length;
    expect((await apply(host, spec)).code).toBe(0);
    expect(links(host.commands.slice(before))).toEqual(['root: systemctl enable --no-reload rt.service']);
    expect(host.enabled('rt.service')).toBe('enabled');
    expect((await read(host, spec))['u.in_sync']).toBe('true');
  });

  // Regression: a plain disable left the /run links, the apply failed its read-back, and never converged.
  test('declared disabled, is disabled under /etc and under /run, and converges', async () => {
    const spec = unit('rt.service', service(), { enabled: false });
    const host = await runtimeOnly(spec);
    expect((await read(host, spec))['u.summary']).toMatch(/enabled is "until reboot \(\/run only\)", want false$/);
    const before = host.commands.length;
    expect(await apply(host, spec)).toMatchObject({ code: 0 });
    expect(links(host.commands.slice(before))).toEqual([
      'root: systemctl disable --no-reload rt.service',
      'root: systemctl disable --no-reload --runtime rt.service',
    ]);
    expect(host.enabled('rt.service')).toBe('disabled');
    expect((await read(host, spec))['u.in_sync']).toBe('true');
  });

  // Regression: the undo ran `systemctl enable`, making /etc links the host never had.
  test('declared disabled, whose apply fails, is enabled until reboot again, never for good', async () => {
    const host = await runtimeOnly(unit('rt.service'));
    const before = host.commands.length;
    const run = await apply(host, unit('rt.service', service('/bin/false'), { enabled: false }));
    expect(run.code).toBe(1);
    expect(run.stderr).toMatch(/restored the previous unit file and its links; the unit is now/);
    expect(host.enabled('rt.service')).toBe('enabled-runtime');
    expect(links(host.commands.slice(before))).toEqual([
      'root: systemctl disable --no-reload rt.service',
      'root: systemctl disable --no-reload --runtime rt.service',
      'root: systemctl disable --no-reload rt.service',
      'root: systemctl enable --no-reload --runtime rt.service',
    ]);
  });

  test('declared enabled, whose apply fails, gets its /run links back and none under /etc', async () => {
    const host = await runtimeOnly(unit('rt.service'));
    const before = host.commands.length;
    const run = await apply(host, unit('rt.service', service('/bin/false')));
    expect(run.code).toBe(1);
    expect(host.enabled('rt.service')).toBe('enabled-runtime');
    // Its file rewritten, it is re-enabled (its /run links, an old [Install]'s, go), then linked back as it was.
    expect(links(host.commands.slice(before))).toEqual([
      'root: systemctl disable --no-reload --runtime rt.service',
      'root: systemctl reenable --no-reload rt.service',
      'root: systemctl disable --no-reload rt.service',
      'root: systemctl enable --no-reload --runtime rt.service',
    ]);
  });
});

describe('an enabled unit whose file changed', () => {
  // Regression: `enable` only adds links, so the link of the old WantedBy= stayed beside the new one.
  test('is re-enabled, so its links follow its new [Install]', async () => {
    const host = fakeSystemd();
    expect((await apply(host, unit('wb.service'))).code).toBe(0);
    const before = host.commands.length;
    const run = await apply(host, unit('wb.service', service().replace('multi-user', 'graphical')));
    expect(run.code).toBe(0);
    expect(run.stderr).toMatch(/^u: reenabled$/m);
    // Unlinked under /run first: a reenable acts under /etc alone, where an old [Install]'s /run links stayed.
    expect(links(host.commands.slice(before))).toEqual([
      'root: systemctl disable --no-reload --runtime wb.service',
      'root: systemctl reenable --no-reload wb.service',
    ]);
  });

  test('whose apply fails, is disabled and enabled again from the file put back', async () => {
    const host = fakeSystemd();
    expect((await apply(host, unit('wb.service'))).code).toBe(0);
    const before = host.commands.length;
    const run = await apply(host, unit('wb.service', service('/bin/false').replace('multi-user', 'graphical')));
    expect(run.stderr).toMatch(/restored the previous unit file and its links/);
    expect(links(host.commands.slice(before))).toEqual([
      'root: systemctl disable --no-reload --runtime wb.service',
      'root: systemctl reenable --no-reload wb.service',
      'root: systemctl disable --no-reload wb.service',
      'root: systemctl enable --no-reload wb.service',
    ]);
    expect(host.enabled('wb.service')).toBe('enabled');
  });
});
