/**
 * A unit's [Install] links on real systemd 252, as the plan reads them and the apply leaves them: one
 * enabled until reboot alone (`enable --runtime`, links under /run) is neither enabled nor disabled, the
 * apply makes it as declared, and a failed apply's undo puts back the links that were there, never more;
 * a changed [Install] moves the links with it.
 */
import { linuxDomain } from '../../../handlers/linux/domain';
import { invoke } from '../../support/run-handler';
import { hostTarget, instanceSpec, KEY_ENV, unitLinks, unitSpec, useSystemdHost } from '../../support/unit-host';

jest.setTimeout(120_000);

const { host, unit } = useSystemdHost();
const env = () => ({ [KEY_ENV]: host().privateKey });

const service = (exec = '/bin/sleep infinity', wantedBy = 'multi-user.target') =>
  `[Unit]\nDescription=links\n[Service]\nExecStart=${exec}\n[Install]\nWantedBy=${wantedBy}\n`;

/** Every link to the unit under /etc and /run, as `<path> -> <target>`, sorted. */
const links = async (name: string): Promise<string[]> =>
  (await host().exec(`find /etc/systemd/system /run/systemd/system -lname '*/${name}' -printf '%p -> %l\\n'`)).stdout
    .split('\n')
    .filter((line) => line !== '')
    .sort();

/** Disabled, then enabled with --runtime by hand: links under /run alone. */
const enableUntilReboot = (name: string) =>
  host().exec(`systemctl disable -- ${name} && systemctl enable --runtime -- ${name}`);

const RUNTIME_ONLY = /differs: enabled is "until reboot \(\/run only\)", want (true|false)$/;

// Regression: `enabled-runtime` read as enabled, so the plan was clean for a unit the next boot would not start.
test('a unit enabled until reboot alone reads as drift, and the apply enables it for good', async () => {
  const spec = unitSpec('en-a.service', service());
  expect((await unit.run('apply', spec)).code).toBe(0);
  await enableUntilReboot('en-a.service');
  expect((await unit.run('read', spec)).result).toMatchObject({ in_sync: 'false', summary: RUNTIME_ONLY });
  expect((await unit.run('apply', spec)).code).toBe(0);
  expect(await links('en-a.service')).toEqual([
    '/etc/systemd/system/multi-user.target.wants/en-a.service -> /etc/systemd/system/en-a.service',
    '/run/systemd/system/multi-user.target.wants/en-a.service -> /etc/systemd/system/en-a.service',
  ]);
  expect((await unit.run('read', spec)).result?.in_sync).toBe('true');
});

// Regression: the disable left the /run links and failed its read-back on every apply, never converging.
test('declared disabled, it is disabled under /etc and /run alike, and reads in sync', async () => {
  const spec = unitSpec('en-b.service', service(), { enabled: false });
  expect((await unit.run('apply', { ...spec, enabled: true })).code).toBe(0);
  await enableUntilReboot('en-b.service');
  expect((await unit.run('read', spec)).result?.summary).toMatch(RUNTIME_ONLY);
  expect(await unit.run('apply', spec)).toMatchObject({ code: 0 });
  expect(await links('en-b.service')).toEqual([]);
  expect((await unit.run('read', spec)).result?.in_sync).toBe('true');
});

// Regression: the undo ran `systemctl enable`, making /etc links the host never had.
test('a failed apply that disabled it puts its /run links back, and makes none under /etc', async () => {
  expect((await unit.run('apply', unitSpec('en-c.service', service()))).code).toBe(0);
  await enableUntilReboot('en-c.service');
  const before = await links('en-c.service');
  const run = await unit.run('apply', unitSpec('en-c.service', service('/bin/false'), { enabled: false }));
  expect(run.code).not.toBe(0);
  expect(run.stderr).toMatch(/restored the previous unit file and its links/);
  expect(await links('en-c.service')).toEqual(before);
  expect((await unit.show('en-c.service')).UnitFileState).toBe('enabled-runtime');
});

test('an instance enabled until reboot alone reads so from is-enabled, as a unit from list-unit-files', async () => {
  const template = unitSpec('en-t@.service', service(), { enabled: false, started: false });
  const instance = instanceSpec('en-t@a.service');
  const run = (verb: 'read' | 'apply', spec = instance) =>
    invoke(linuxDomain(), 'systemd-instance', verb, hostTarget(host()), spec, env());
  expect((await unit.run('apply', template)).code).toBe(0);
  expect((await run('apply')).code).toBe(0);
  await enableUntilReboot('en-t@a.service');
  expect((await run('read')).result?.summary).toMatch(RUNTIME_ONLY);
  const off = { ...instance, enabled: false };
  expect((await run('read', off)).result?.summary).toMatch(RUNTIME_ONLY);
  expect((await run('apply', off)).code).toBe(0);
  expect(await links('en-t@a.service')).toEqual([]);
  expect((await run('read', off)).result?.in_sync).toBe('true');
});

// Regression: the rewritten file got `enable`, which only adds: both .wants links stayed, and the read said in sync.
test('a WantedBy= changed moves its link to the new target, and an undo moves it back', async () => {
  const wants = (target: string) =>
    `/etc/systemd/system/${target}.target.wants/en-w.service -> /etc/systemd/system/en-w.service`;
  expect((await unit.run('apply', unitSpec('en-w.service', service()))).code).toBe(0);
  const graphical = unitSpec('en-w.service', service(undefined, 'graphical.target'));
  expect((await unit.run('apply', graphical)).code).toBe(0);
  expect(await links('en-w.service')).toEqual([wants('graphical')]);
  expect((await unit.run('read', graphical)).result?.in_sync).toBe('true');
  const failing = unitSpec('en-w.service', service('/bin/false', 'multi-user.target'));
  const run = await unit.run('apply', failing);
  expect(run.code).not.toBe(0);
  expect(run.stderr).toMatch(/restored the previous unit file and its links/);
  expect(await links('en-w.service')).toEqual([wants('graphical')]);
});

// Regression: a unit enabled under /etc and at runtime under /run (list-unit-files: `enabled`) got only its /etc
// links back from a failed apply's undo: the apply's disable (and now its reenable) took the /run ones too.
test.each([
  ['disabled', { enabled: false }],
  ['rewrote (so re-enabled)', {}],
])('a failed apply that %s a unit enabled under /etc and /run puts both back', async (_, over) => {
  const name = `en-r${Object.keys(over).length}.service`;
  expect((await unit.run('apply', unitSpec(name, service()))).code).toBe(0);
  await host().exec(`systemctl enable --runtime -- ${name}`);
  expect((await host().exec(`systemctl list-unit-files --no-legend -- ${name}`)).stdout).toMatch(/ enabled /);
  const before = await unitLinks(host(), name);
  expect(before).toHaveLength(2);
  expect((await unit.run('read', unitSpec(name, service()))).result?.in_sync).toBe('true');
  const run = await unit.run('apply', unitSpec(name, service('/bin/false'), over));
  expect(run.code).not.toBe(0);
  expect(run.stderr).toMatch(/restored the previous unit file and its links/);
  expect(await unitLinks(host(), name)).toEqual(before);
});

// Regression (measured): the plan of a rewrite said only that the file differs, and the apply's reenable (the root
// helper's `disable --runtime` first) took the unit's /run links, which an `enable --runtime` by hand had made, and
// made none again: the plan after it was in sync. Now the apply links them again under /run as its new [Install]
// makes them, as it does for a template's instances.
test('a rewrite of a unit enabled under /etc and /run keeps both, each following its new [Install]', async () => {
  const wants = (root: string, target: string) =>
    `${root}/systemd/system/${target}.target.wants/en-k.service -> /etc/systemd/system/en-k.service`;
  expect((await unit.run('apply', unitSpec('en-k.service', service()))).code).toBe(0);
  await host().exec('systemctl enable --runtime -- en-k.service');
  expect(await links('en-k.service')).toEqual([wants('/etc', 'multi-user'), wants('/run', 'multi-user')]);
  const graphical = unitSpec('en-k.service', service(undefined, 'graphical.target'));
  const applied = await unit.run('apply', graphical);
  expect(applied).toMatchObject({
    code: 0,
    stderr: expect.stringContaining('reenabled under /run (until reboot) too'),
  });
  expect(await links('en-k.service')).toEqual([wants('/etc', 'graphical'), wants('/run', 'graphical')]);
  expect((await unit.run('read', graphical)).result?.in_sync).toBe('true');
});

test('a failed apply that moved the /etc and /run links of such a unit to a new target puts both back', async () => {
  expect((await unit.run('apply', unitSpec('en-m.service', service()))).code).toBe(0);
  await host().exec('systemctl enable --runtime -- en-m.service');
  const before = await links('en-m.service');
  expect(before).toHaveLength(2);
  const run = await unit.run('apply', unitSpec('en-m.service', service('/bin/false', 'graphical.target')));
  expect(run).toMatchObject({ code: 1, stderr: expect.stringContaining('reenabled under /run (until reboot) too') });
  expect(run.stderr).toMatch(/restored the previous unit file and its links/);
  expect(await links('en-m.service')).toEqual(before);
});
