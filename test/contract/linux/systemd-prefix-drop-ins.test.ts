/**
 * Prefix drop-ins (`pa-.service.d/` for every `pa-*.service`) on real systemd 252: pid1 loads them, sorted by
 * file name with the unit's own `.d/`, but `systemctl enable` reads no [Install] of theirs (measured here). A unit
 * declared enabled whose only [Install] a prefix drop-in brings is static: the plan said the apply enables it
 * (the host's prefix drop-in, not the batch's, made the read give up judging), the apply's enable only warned, and
 * the unit stayed unlinked. Now the plan and the apply refuse it in the same words, before any change.
 * And a drop-in made by hand after the last daemon-reload in a prefix's directory or its type's (`service.d/`): pid1
 * searches only the directories it saw at its last reload, so `show` lists none of it, NeedDaemonReload=no (asserted
 * here). Regression: the plan was clean while the unit ran without it, which the next reload, anyone's, loads. Now
 * the plan names it, the apply's reload loads it and restarts the unit, and the next plan is clean.
 */
import { type ApplyEntry } from '../../support/run-handler';
import { quote } from '../../../src/linux/shell';
import { unitBatch, unitLinks, unitSpec, useSystemdHost } from '../../support/unit-host';

jest.setTimeout(120_000);

const { host } = useSystemdHost();
const { plan, apply, loadsUnloadedDropIn } = unitBatch(host);
const exec = async (cmd: string) => (await host().exec(cmd)).stdout.trim();
const SERVICE = '[Service]\nExecStart=/bin/sleep infinity\n';
const INSTALL = '[Install]\nWantedBy=multi-user.target\n';

const prefixDropIn = (unit: string, content: string, after: string[] = []): ApplyEntry => ({
  kind: 'systemd-drop-in',
  spec: { unit, name: '10-install', directory: '/etc/systemd/system', content, startTimeoutSeconds: 90 },
  after,
});

test('systemd 252 loads a prefix drop-in by file name, and enable reads no [Install] of it', async () => {
  await host().exec(
    'cd /etc/systemd/system && mkdir -p px-.service.d px-c.service.d && ' +
      `printf '[Unit]\\nDescription=b\\n${SERVICE}' > px-b.service && ` +
      `printf '[Unit]\\nDescription=c\\n${SERVICE}${INSTALL}' > px-c.service && ` +
      `printf '${INSTALL}[Service]\\nEnvironment=P=prefix\\n' > px-.service.d/x.conf && ` +
      "printf '[Service]\\nEnvironment=P=own\\n' > px-c.service.d/a.conf && " +
      "printf '[Install]\\nWantedBy=\\n' > px-.service.d/y.conf && systemctl daemon-reload",
  );
  expect(await exec('systemctl show -p DropInPaths --value px-c.service')).toBe(
    '/etc/systemd/system/px-c.service.d/a.conf /etc/systemd/system/px-.service.d/x.conf ' +
      '/etc/systemd/system/px-.service.d/y.conf',
  );
  // x.conf sorts after a.conf, so the prefix's setting stands over the unit's own drop-in's.
  expect(await exec('systemctl show -p Environment --value px-c.service')).toBe('P=prefix');
  // The prefix's WantedBy= does not link px-b.service, and its empty WantedBy= does not reset px-c.service's.
  expect(await exec('systemctl is-enabled px-b.service')).toBe('static');
  expect(await exec('systemctl enable px-b.service 2>&1; systemctl is-enabled px-b.service')).toMatch(/static$/);
  expect(await exec('systemctl enable px-c.service 2>&1; systemctl is-enabled px-c.service')).toMatch(/enabled$/);
});

// Regression: the plan said the apply enables it, the apply's enable only warned and linked nothing.
test('a unit whose only [Install] is a prefix drop-in of the host is refused by the plan and the apply', async () => {
  const first = {
    u: { kind: 'systemd-unit', spec: unitSpec('pa-b.service', `[Unit]\nDescription=one\n${SERVICE}`) },
    d: prefixDropIn('pa-.service', INSTALL),
  };
  expect(await apply(first)).toMatchObject({ code: 0 });
  expect(await exec('systemctl show -p DropInPaths --value pa-b.service')).toBe(
    '/etc/systemd/system/pa-.service.d/10-install.conf',
  );
  expect(await exec('systemctl is-enabled pa-b.service')).toBe('static');
  const objects = {
    u: {
      kind: 'systemd-unit',
      spec: unitSpec('pa-b.service', `[Unit]\nDescription=two\n${SERVICE}`, { enabled: true }),
    },
    d: prefixDropIn('pa-.service', INSTALL),
  };
  const why =
    'its file names no WantedBy=, RequiredBy=, Alias= or Also= in [Install], nor does a drop-in of it, so it ' +
    'cannot be enabled';
  const planned = (await plan(objects)).result ?? {};
  expect(planned['u.in_sync']).toBe('false');
  expect(JSON.parse(planned['u.diff'] ?? '{}')).toMatchObject({ enabled: { live: why, want: true } });
  const applied = await apply(objects);
  expect(applied.code).not.toBe(0);
  expect(applied.stderr).toContain(`pa-b.service on 127.0.0.1:${host().port} is declared enabled: ${why}`);
  expect(await exec('systemctl show -p Description --value pa-b.service')).toBe('one');
  expect(await unitLinks(host(), 'pa-b.service')).toEqual([]);
});

// Regression: the host's prefix drop-in read as a drop-in of the unit the batch does not write, so the plan said
// "so it cannot be enabled" while the apply wrote the unit's own drop-in and enabled it.
test("a static unit whose new drop-in brings [Install] is enabled by the apply, a prefix's drop-in by", async () => {
  const unit = unitSpec('pb-c.service', `[Unit]\nDescription=c\n${SERVICE}`);
  expect(await apply({ u: { kind: 'systemd-unit', spec: unit } })).toMatchObject({ code: 0 });
  await host().exec(
    "mkdir -p /etc/systemd/system/pb-.service.d && printf '[Service]\\nNice=1\\n' > " +
      '/etc/systemd/system/pb-.service.d/x.conf && systemctl daemon-reload',
  );
  const objects = {
    u: { kind: 'systemd-unit', spec: { ...unit, enabled: true } },
    d: prefixDropIn('pb-c.service', INSTALL, ['u']),
  };
  const planned = (await plan(objects)).result ?? {};
  expect(JSON.parse(planned['u.diff'] ?? '{}')).toMatchObject({
    enabled: {
      live:
        'static: pb-c.service on the host names no WantedBy=, RequiredBy=, Alias= or Also= in [Install] yet; ' +
        "the apply writes its drop-in's [Install] and enables it",
      want: true,
    },
  });
  expect(await apply(objects)).toMatchObject({ code: 0, stderr: expect.stringMatching(/^u: enabled$/m) });
  expect(await exec('systemctl is-enabled pb-c.service')).toBe('enabled');
  expect((await plan(objects)).result).toMatchObject({ '.drifted': '', '.in_sync': 'true' });
});

const enabledUnit = (name: string, install = '') => ({
  u: {
    kind: 'systemd-unit',
    spec: unitSpec(name, `[Service]\nExecStart=/bin/sleep infinity\n[Install]\nWantedBy=multi-user.target\n${install}`),
  },
});

afterEach(async () => {
  await host().exec('rm -rf /etc/systemd/system/service.d && systemctl daemon-reload');
});

// And of an Alias= name's (pid1 loads every name's `.d/`: dropin.c takes the unit's aliases too; measured).
test.each([
  ['a prefix of its name', 'up-a.service', 'up-.service.d', 'PREFIX', ''],
  ['its type', 'ut-a.service', 'service.d', 'TYPE', ''],
  ['an Alias= name of it', 'ua-a.service', 'ua-al.service.d', 'ALIAS', 'Alias=ua-al.service\n'],
])('a drop-in of %s made after the reload is named by the plan and loaded by the apply', async (...row) => {
  const [, name, dir, key, install] = row;
  const objects = enabledUnit(name, install);
  expect(await apply(objects)).toMatchObject({ code: 0 });
  expect((await plan(objects)).result).toMatchObject({ '.in_sync': 'true' });
  const path = `/etc/systemd/system/${dir}/zz-hand.conf`;
  await host().exec(
    `mkdir -p ${quote(`/etc/systemd/system/${dir}`)} && printf '[Service]\\nEnvironment=${key}=1\\n' >${quote(path)}`,
  );
  expect(await exec(`systemctl show -p DropInPaths,NeedDaemonReload ${name}`)).toBe(
    'DropInPaths=\nNeedDaemonReload=no',
  );
  await loadsUnloadedDropIn(objects, path);
  const pid = await exec(`systemctl show -p MainPID --value ${name}`);
  expect(await exec(`tr '\\0' '\\n' </proc/${pid}/environ`)).toContain(`${key}=1`);
  expect((await plan(objects)).result).toMatchObject({ '.in_sync': 'true' });
});
