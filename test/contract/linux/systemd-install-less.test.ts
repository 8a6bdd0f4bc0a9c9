/**
 * An instance declared enabled whose template has no [Install] setting, on real systemd 252: `systemctl enable`
 * only warns of such a unit ("The unit files have no installation config ...") and `is-enabled` answers `static`,
 * so the plan said the apply enables it, the apply did not, and the next plan was clean. Now the plan says in
 * words that it cannot be enabled, and the apply refuses it in the same words before any change to it. A drop-in of
 * the batch that brings (or empties) the [Install] changes what the plan says and what the apply does alike.
 */
import { linuxDomain } from '../../../handlers/linux/domain';
import { type ApplyEntry, invokeBatch, invokeBatchApply } from '../../support/run-handler';
import { hostTarget, instanceSpec, KEY_ENV, unitLinks, unitSpec, useSystemdHost } from '../../support/unit-host';

jest.setTimeout(120_000);

const { host, unit } = useSystemdHost();
const env = () => ({ [KEY_ENV]: host().privateKey });
const STATIC = '[Unit]\nDescription=static\n[Service]\nExecStart=/bin/sleep infinity\n';
const CANNOT = (template: string) =>
  `static: its template ${template} on the host names no WantedBy=, RequiredBy=, Alias= or Also= in [Install], ` +
  'so it cannot be enabled';
const RULE =
  "enabled must be false for an instance whose template's [Install] (its drop-ins' included) names no WantedBy=, " +
  'RequiredBy=, Alias= or Also=, got true (systemctl enable makes no link for it: systemd calls it static); ' +
  'nothing was changed: declare it enabled false, or give its file (an instance: its template) or a drop-in of it ' +
  'an [Install] WantedBy=';

type Objects = Readonly<Record<string, ApplyEntry>>;
const plan = (objects: Objects) => invokeBatch(linuxDomain(), hostTarget(host()), objects, env());
const apply = (objects: Objects) => invokeBatchApply(linuxDomain(), hostTarget(host()), objects, env());

// Regression: the first plan said "the apply enables and starts it", enable only warned, and the next plan was clean.
test('an instance of a template the stack writes is refused before any change, and reads as drift after', async () => {
  const objects = {
    t: { kind: 'systemd-unit', spec: unitSpec('sw@.service', STATIC, { enabled: false, started: false }) },
    i: { kind: 'systemd-instance', spec: instanceSpec('sw@a.service'), after: ['t'] },
  };
  const applied = await apply(objects);
  expect(applied.code).not.toBe(0);
  expect(applied.stderr).toContain(
    'i: not applied: sw@a.service on 127.0.0.1:' +
      `${host().port} is declared enabled: its template sw@.service names no WantedBy=, RequiredBy=, Alias= or ` +
      `Also= in [Install], nor does a drop-in of it, so it cannot be enabled: ${RULE}`,
  );
  expect(applied.stderr).toMatch(/^t: wrote \/etc\/systemd\/system\/sw@\.service$/m);
  expect((await unit.show('sw@a.service')).ActiveState).toBe('inactive');
  const next = (await plan(objects)).result ?? {};
  expect(next).toMatchObject({ '.drifted': 'i', 'i.in_sync': 'false' });
  expect(JSON.parse(next['i.diff'] ?? '{}')).toEqual({
    enabled: { live: CANNOT('sw@.service'), want: true },
    running: { live: 'inactive/dead', want: 'running' },
  });
});

test('an instance of a template only the host has reads in words, and the apply refuses it in the same', async () => {
  await host().exec(`printf '%s' '${STATIC}' > /etc/systemd/system/sh@.service && systemctl daemon-reload`);
  const said = await host().exec('systemctl is-enabled sh@a.service');
  expect(said.stdout.trim()).toBe('static');
  const objects = { i: { kind: 'systemd-instance', spec: instanceSpec('sh@a.service') } };
  const first = (await plan(objects)).result ?? {};
  expect(first['i.in_sync']).toBe('false');
  expect(first['i.summary']).toContain(`enabled is "${CANNOT('sh@.service')}", want true`);
  const applied = await apply(objects);
  expect(applied.code).not.toBe(0);
  expect(applied.stderr).toContain(`is declared enabled: ${CANNOT('sh@.service')}: ${RULE}`);
  expect((await unit.show('sh@a.service')).ActiveState).toBe('inactive');
  expect(await unitLinks(host(), 'sh@a.service')).toEqual([]);
});

test('declared disabled, the instance starts and the next plan is clean', async () => {
  const objects = {
    t: { kind: 'systemd-unit', spec: unitSpec('sd@.service', STATIC, { enabled: false, started: false }) },
    i: { kind: 'systemd-instance', spec: instanceSpec('sd@a.service', { enabled: false }), after: ['t'] },
  };
  expect(await apply(objects)).toMatchObject({ code: 0 });
  expect((await unit.show('sd@a.service')).ActiveState).toBe('active');
  expect((await host().exec('systemctl is-enabled sd@a.service')).stdout.trim()).toBe('static');
  expect((await plan(objects)).result).toMatchObject({ '.drifted': '', '.in_sync': 'true' });
});

// Regression: systemd 252 links a unit whose [Install] only a drop-in has (measured), and such a unit declared
// enabled was refused at synth and at the boundary; now the batch's drop-in counts and one apply converges.
test("a unit whose [Install] is its drop-in's is enabled by one apply, and the next plan is clean", async () => {
  const objects = {
    u: { kind: 'systemd-unit', spec: unitSpec('di.service', STATIC, { enabled: true }) },
    d: {
      kind: 'systemd-drop-in',
      spec: {
        unit: 'di.service',
        name: '10-install',
        directory: '/etc/systemd/system',
        content: '[Install]\nWantedBy=multi-user.target\n',
        startTimeoutSeconds: 90,
      },
      after: ['u'],
    },
  };
  expect((await plan(objects)).result).toMatchObject({ 'u.in_sync': 'false' });
  const applied = await apply(objects);
  expect(applied).toMatchObject({ code: 0, stderr: expect.stringMatching(/^u: enabled$/m) });
  expect((await host().exec('systemctl is-enabled di.service')).stdout.trim()).toBe('enabled');
  expect(await unitLinks(host(), 'di.service')).toEqual([
    '/etc/systemd/system/multi-user.target.wants/di.service -> /etc/systemd/system/di.service',
  ]);
  expect((await plan(objects)).result).toMatchObject({ '.drifted': '', '.in_sync': 'true' });
});

const installDropIn = (unit: string, content: string) => ({
  kind: 'systemd-drop-in',
  spec: { unit, name: '10-install', directory: '/etc/systemd/system', content, startTimeoutSeconds: 90 },
  after: ['u'],
});

// Regression: a unit the stack had applied, static on the host, declared enabled with a new drop-in that adds
// [Install]: the first plan said "static: ... so it cannot be enabled", which is not what the apply does.
test('a static unit of the host whose new drop-in brings [Install] reads as the apply enables it', async () => {
  expect(await apply({ u: { kind: 'systemd-unit', spec: unitSpec('ds.service', STATIC) } })).toMatchObject({ code: 0 });
  expect((await host().exec('systemctl is-enabled ds.service')).stdout.trim()).toBe('static');
  const objects = {
    u: { kind: 'systemd-unit', spec: unitSpec('ds.service', STATIC, { enabled: true }) },
    d: installDropIn('ds.service', '[Install]\nWantedBy=multi-user.target\n'),
  };
  const first = (await plan(objects)).result ?? {};
  expect(first['u.in_sync']).toBe('false');
  expect(JSON.parse(first['u.diff'] ?? '{}')).toEqual({
    enabled: {
      live:
        'static: ds.service on the host names no WantedBy=, RequiredBy=, Alias= or Also= in [Install] yet; ' +
        "the apply writes its drop-in's [Install] and enables it",
      want: true,
    },
  });
  const applied = await apply(objects);
  expect(applied).toMatchObject({ code: 0, stderr: expect.stringMatching(/^u: enabled$/m) });
  expect((await host().exec('systemctl is-enabled ds.service')).stdout.trim()).toBe('enabled');
  expect((await plan(objects)).result).toMatchObject({ '.drifted': '', '.in_sync': 'true' });
});

// Regression: an enabled unit whose new drop-in empties WantedBy= read in sync, while the apply refuses it.
test("a unit whose new drop-in cancels its [Install] reads in the apply's refusal words", async () => {
  const own =
    '[Unit]\nDescription=own\n[Service]\nExecStart=/bin/sleep infinity\n[Install]\nWantedBy=multi-user.target\n';
  expect(await apply({ u: { kind: 'systemd-unit', spec: unitSpec('dc.service', own) } })).toMatchObject({ code: 0 });
  expect((await host().exec('systemctl is-enabled dc.service')).stdout.trim()).toBe('enabled');
  const objects = {
    u: { kind: 'systemd-unit', spec: unitSpec('dc.service', own, { enabled: true }) },
    d: installDropIn('dc.service', '[Install]\nWantedBy=\n'),
  };
  const why =
    'its file names no WantedBy=, RequiredBy=, Alias= or Also= in [Install], nor does a drop-in of it, so it ' +
    'cannot be enabled';
  const first = (await plan(objects)).result ?? {};
  expect(first['u.in_sync']).toBe('false');
  expect(JSON.parse(first['u.diff'] ?? '{}')).toEqual({ enabled: { live: why, want: true } });
  const applied = await apply(objects);
  expect(applied.code).not.toBe(0);
  expect(applied.stderr).toContain(`dc.service on 127.0.0.1:${host().port} is declared enabled: ${why}`);
  expect((await host().exec('systemctl is-enabled dc.service')).stdout.trim()).toBe('enabled');
});

// Regression (measured, systemd 252): a unit whose [Install] holds UpheldBy= alone planned "is absent", and the apply
// wrote, enabled (252 ignores the key and links nothing), started, failed its read back and undid it all. The read
// now reads the host's version when a declared text names UpheldBy=, and both refuse it first, in the same words.
test('a unit whose [Install] holds UpheldBy= alone is refused on systemd 252 by the plan and the apply', async () => {
  const content = '[Service]\nExecStart=/bin/sleep infinity\n[Install]\nUpheldBy=multi-user.target\n';
  const objects = { u: { kind: 'systemd-unit', spec: unitSpec('uu.service', content, { enabled: true }) } };
  const why =
    'its file names no WantedBy=, RequiredBy=, Alias= or Also= in [Install], nor does a drop-in of it, so it cannot ' +
    'be enabled (its UpheldBy= makes links from systemd 254 on, and the host runs systemd 252)';
  const planned = (await plan(objects)).result ?? {};
  expect(planned['u.in_sync']).toBe('false');
  expect(planned['u.summary']).toContain(why);
  const applied = await apply(objects);
  expect(applied.code).not.toBe(0);
  expect(applied.stderr).toContain(`uu.service on 127.0.0.1:${host().port} is declared enabled: ${why}`);
  expect(applied.stderr).not.toMatch(/^u: (wrote|enabled|started)/m);
  expect((await host().exec('test -e /etc/systemd/system/uu.service')).code).not.toBe(0);
});
