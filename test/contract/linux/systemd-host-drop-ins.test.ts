/**
 * A drop-in only the host has (made by hand, not the stack's) that empties the [Install] of a unit the stack
 * declares enabled, on real systemd 252: `systemctl enable` reads it (measured here), so the unit cannot be
 * enabled. The plan said the apply removes its link, or writes and enables it, and the apply changed the host
 * (reenabled it, losing its link for good; wrote, started or restarted it) before its read back failed. Now the
 * plan and the apply read the host's drop-ins with the batch's, and both refuse it in the same words, naming the
 * host's drop-in, before any change. A drop-in made after the last daemon-reload, which `show` does not list for a
 * loaded unit, is read too: the plan names it and the apply's reload loads it, as the plan said.
 */
import { quote } from '../../../src/linux/shell';
import { instanceSpec, unitBatch, unitLinks, unitSpec, useSystemdHost } from '../../support/unit-host';

jest.setTimeout(120_000);

const { host } = useSystemdHost();
const { plan, apply, loadsUnloadedDropIn } = unitBatch(host);
const exec = async (cmd: string) => (await host().exec(cmd)).stdout.trim();
const OWN = (description: string) =>
  `[Unit]\nDescription=${description}\n[Service]\nExecStart=/bin/sleep infinity\n` +
  '[Install]\nWantedBy=multi-user.target\n';
const unit = (name: string, description: string) => ({
  u: { kind: 'systemd-unit', spec: unitSpec(name, OWN(description), { enabled: true }) },
});

/** Writes `<unit>.d/<file>` on the host, by hand, with `[Install]` `WantedBy=` empty, and reloads systemd. */
const emptyByHand = async (name: string, file = 'zz-off.conf'): Promise<string> => {
  const path = `/etc/systemd/system/${name}.d/${file}`;
  await host().exec(`mkdir -p /etc/systemd/system/${name}.d && printf '[Install]\\nWantedBy=\\n' > ${quote(path)}`);
  await host().exec('systemctl daemon-reload');
  return path;
};

/** A path as the plan and the apply print it: a tab as a space, as every message line (src/core/printable.ts). */
const shown = (path: string) => path.replace(/\t/g, ' ');

const why = (path: string) =>
  `its [Install] names no WantedBy=, RequiredBy=, Alias= or Also= once the host's drop-in ${shown(path)}, not the ` +
  "stack's, is read (remove it to end this), so it cannot be enabled";

/** The plan says the apply's refusal; the apply refuses in the same words, and the host reads as before. */
const refusedAlike = async (objects: ReturnType<typeof unit>, path: string, name: string) => {
  const before = await exec(
    `systemctl show -p Description,ActiveEnterTimestamp,MainPID ${name}; ls -l /etc/systemd/system`,
  );
  const links = await unitLinks(host(), name);
  const planned = (await plan(objects)).result ?? {};
  expect(planned['u.in_sync']).toBe('false');
  expect(JSON.parse(planned['u.diff'] ?? '{}')).toMatchObject({ enabled: { live: why(path), want: true } });
  const applied = await apply(objects);
  expect(applied.code).not.toBe(0);
  expect(applied.stderr).toContain(`${name} on 127.0.0.1:${host().port} is declared enabled: ${why(path)}`);
  expect(applied.stderr).toContain('nothing was changed');
  expect(applied.stderr).not.toMatch(/^u: (wrote|enabled|reenabled|started|restarted)/m);
  expect(
    await exec(`systemctl show -p Description,ActiveEnterTimestamp,MainPID ${name}; ls -l /etc/systemd/system`),
  ).toBe(before);
  expect(await unitLinks(host(), name)).toEqual(links);
};

// Regression: the plan said "links its [Install] does not make"; the apply's reenable removed the link, its undo's
// enable made none, and the unit no longer started at boot.
test('an enabled unit whose [Install] a host drop-in empties keeps its link: plan and apply refuse it', async () => {
  expect(await apply(unit('ha.service', 'one'))).toMatchObject({ code: 0 });
  const path = await emptyByHand('ha.service');
  // The links stay, and list-unit-files still says enabled; enable reads the drop-in (measured).
  expect(await exec('systemctl is-enabled ha.service')).toBe('enabled');
  await refusedAlike(unit('ha.service', 'one'), path, 'ha.service');
  await refusedAlike(unit('ha.service', 'two'), path, 'ha.service');
  expect(await unitLinks(host(), 'ha.service')).toEqual([
    '/etc/systemd/system/multi-user.target.wants/ha.service -> /etc/systemd/system/ha.service',
  ]);
});

// Regression: a drop-in whose file name holds a space was read as two words that are no file: the plan missed it.
test.each([
  ['hs.service', 'my override.conf'],
  ['ht.service', 'q\'u"o.conf'],
  ['hu.service', 't\tb.conf'],
])(
  'an enabled %s whose [Install] the host drop-in "%s" empties is refused by plan and apply alike',
  async (name, file) => {
    expect(await apply(unit(name, 'one'))).toMatchObject({ code: 0 });
    await refusedAlike(unit(name, 'one'), await emptyByHand(name, file), name);
  },
);

// Regression: the plan said the unit is absent; the apply wrote, enabled and started it, then removed it.
test('a unit the host has a drop-in of that empties its [Install] is refused before it is written', async () => {
  const path = await emptyByHand('hb.service');
  await refusedAlike(unit('hb.service', 'one'), path, 'hb.service');
  expect(await exec('test -e /etc/systemd/system/hb.service && echo there || echo absent')).toBe('absent');
});

test("an instance whose template's [Install] a host drop-in of the template empties is refused before it", async () => {
  const path = await emptyByHand('hq@.service');
  const objects = {
    t: { kind: 'systemd-unit', spec: unitSpec('hq@.service', OWN('t'), { enabled: false, started: false }) },
    u: { kind: 'systemd-instance', spec: instanceSpec('hq@a.service'), after: ['t'] },
  };
  const words =
    "its template hq@.service's [Install] names no WantedBy=, RequiredBy=, Alias= or Also= once the host's " +
    `drop-in ${path}, not the stack's, is read (remove it to end this), so it cannot be enabled`;
  const planned = (await plan(objects)).result ?? {};
  expect(JSON.parse(planned['u.diff'] ?? '{}')).toMatchObject({ enabled: { live: words, want: true } });
  const applied = await apply(objects);
  expect(applied.stderr).toContain(`hq@a.service on 127.0.0.1:${host().port} is declared enabled: ${words}`);
  expect(applied.stderr).not.toMatch(/^u: (enabled|started)/m);
  expect(await exec('systemctl show -p ActiveState --value hq@a.service')).toBe('inactive');
});

// Regression: the plan said "static ... so it cannot be enabled"; the apply enabled nothing, restarted the unit,
// then failed on its read back.
test('a static unit whose [Install] a host drop-in empties is refused in the words the plan read', async () => {
  const declared = { u: { kind: 'systemd-unit', spec: unitSpec('hc.service', OWN('one'), { enabled: false }) } };
  expect(await apply(declared)).toMatchObject({ code: 0 });
  const path = await emptyByHand('hc.service');
  expect(await exec('systemctl is-enabled hc.service')).toBe('static');
  await refusedAlike(unit('hc.service', 'one'), path, 'hc.service');
});

test("a host drop-in that sorts before the stack's [Install] does not stop the enable", async () => {
  await emptyByHand('hd.service', '00-off.conf');
  const objects = {
    ...unit('hd.service', 'one'),
    d: {
      kind: 'systemd-drop-in',
      spec: {
        unit: 'hd.service',
        name: '10-install',
        directory: '/etc/systemd/system',
        content: '[Install]\nWantedBy=multi-user.target\n',
        startTimeoutSeconds: 90,
      },
      after: ['u'],
    },
  };
  expect(await apply(objects)).toMatchObject({ code: 0, stderr: expect.stringMatching(/^u: enabled$/m) });
  expect(await exec('systemctl is-enabled hd.service')).toBe('enabled');
  expect((await plan(objects)).result).toMatchObject({ '.drifted': '', '.in_sync': 'true' });
});

/**
 * Writes `<dir>/zz.conf` by hand with `text` after the last daemon-reload: `show` does not list it and says
 * NeedDaemonReload=no (asserted, systemd 252), while the apply's reload and `enable` read it.
 */
const byHand = async (name: string, dir: string, text: string, file = 'zz.conf'): Promise<string> => {
  const path = `/etc/systemd/system/${dir}/${file}`;
  await host().exec(`mkdir -p /etc/systemd/system/${dir} && printf '${text}' > ${quote(path)}`);
  expect(await exec(`systemctl show -p DropInPaths,NeedDaemonReload ${name}`)).toBe(
    'DropInPaths=\nNeedDaemonReload=no',
  );
  return path;
};

// Regression: both plans said in sync; after a reload, the unit read as the one the apply refuses.
test.each([
  ['its own', 'ua.service', 'ua.service.d', 'one', 'zz.conf'],
  ['its own, the file rewritten', 'ub.service', 'ub.service.d', 'two', 'zz.conf'],
  ['its own, a space in its name', 'ue.service', 'ue.service.d', 'one', 'my override.conf'],
])(
  'a drop-in of %s made after the reload that empties [Install] is refused by plan and apply alike',
  async (...[, name, dir, description, file]) => {
    expect(await apply(unit(name, 'one'))).toMatchObject({ code: 0 });
    const path = await byHand(name, dir, '[Install]\\nWantedBy=\\n', file);
    const links = await unitLinks(host(), name);
    const planned = (await plan(unit(name, description))).result ?? {};
    expect(JSON.parse(planned['u.diff'] ?? '{}')).toMatchObject({ enabled: { live: why(path), want: true } });
    const applied = await apply(unit(name, description));
    expect(applied.stderr).toContain(`${name} on 127.0.0.1:${host().port} is declared enabled: ${why(path)}`);
    expect(applied.stderr).not.toMatch(/^u: (wrote|enabled|reenabled|started|restarted)/m);
    expect(await unitLinks(host(), name)).toEqual(links);
  },
);

// Regression: the plan said in sync (or only that the file differs); the apply's reload loaded the drop-in and
// restarted the unit with the host's ExecStart=, or left it running the old one under a clean plan.
test.each([
  ['uc.service', 'zz.conf'],
  ['uf.service', 'my override.conf'],
  ['ug.service', 'q\'u"o\tb.conf'],
])(
  'a drop-in made after the reload that changes running %s (%s) is named by the plan, loaded by apply',
  async (name, file) => {
    const objects = unit(name, 'one');
    expect(await apply(objects)).toMatchObject({ code: 0 });
    const text = '[Service]\\nExecStart=\\nExecStart=/bin/sleep 12345\\n';
    const path = await byHand(name, `${name}.d`, text, file);
    await loadsUnloadedDropIn(objects, shown(path));
    expect(await exec(`ps -o args= -p $(systemctl show -p MainPID --value ${name})`)).toBe('/bin/sleep 12345');
    expect((await plan(objects)).result).toMatchObject({ '.in_sync': 'true' });
  },
);

test('a drop-in whose name holds a space, loaded by a reload, that changes a running unit restarts it', async () => {
  const objects = unit('uh.service', 'one');
  expect(await apply(objects)).toMatchObject({ code: 0 });
  const path = await byHand(
    'uh.service',
    'uh.service.d',
    '[Service]\\nExecStart=\\nExecStart=/bin/sleep 23456\\n',
    'a b.conf',
  );
  await host().exec('systemctl daemon-reload');
  expect(await exec('systemctl show -p DropInPaths --value uh.service')).toBe(`"${path}"`);
  const planned = (await plan(objects)).result ?? {};
  expect(planned['u.summary']).toContain('restart pending: its process started before its content changed');
  expect(await apply(objects)).toMatchObject({ code: 0, stderr: expect.stringMatching(/^u: restarted$/m) });
  expect(await exec('ps -o args= -p $(systemctl show -p MainPID --value uh.service)')).toBe('/bin/sleep 23456');
  expect((await plan(objects)).result).toMatchObject({ '.in_sync': 'true' });
});

test("an instance's drop-in of its template made after the reload is named by the plan", async () => {
  const template = unitSpec('ud@.service', OWN('t'), { enabled: false, started: false });
  const objects = {
    t: { kind: 'systemd-unit', spec: template },
    u: {
      kind: 'systemd-instance',
      spec: instanceSpec('ud@a.service', { enabled: false }),
      after: ['t'],
    },
  };
  expect(await apply(objects)).toMatchObject({ code: 0 });
  const path = await byHand('ud@a.service', 'ud@.service.d', '[Unit]\\nDescription=by hand\\n');
  const planned = (await plan(objects)).result ?? {};
  expect(planned['u.summary']).toContain(`systemd has not loaded the host's drop-in ${path}`);
  expect(await apply(objects)).toMatchObject({ code: 0 });
  expect(await exec('systemctl show -p Description --value ud@a.service')).toBe('by hand');
  expect((await plan(objects)).result).toMatchObject({ '.in_sync': 'true' });
});

// Regression: systemd loads a drop-in named `a<LF>b.conf` (`show` prints `"…/a\nb.conf"`), the read's list of files
// one a line read it as two that are no file, and the plan said in sync while the unit ran without it (measured).
test('a loaded drop-in whose name holds a newline fails the plan, naming the file', async () => {
  const objects = unit('un.service', 'one');
  expect(await apply(objects)).toMatchObject({ code: 0 });
  await host().exec(
    "mkdir -p /etc/systemd/system/un.service.d && printf '[Service]\\nEnvironment=N=1\\n' >" +
      ' "/etc/systemd/system/un.service.d/$(printf \'a\\nb\').conf" && systemctl daemon-reload',
  );
  expect(await exec('systemctl show -p Environment --value un.service')).toBe('N=1');
  expect(await plan(objects)).toMatchObject({
    code: 1,
    stderr: expect.stringContaining(
      'systemd loaded "/etc/systemd/system/un.service.d/a\\nb.conf", whose name holds a newline, which this read ' +
        'cannot digest: refusing to guess what the unit runs (rename that file)',
    ),
  });
});
