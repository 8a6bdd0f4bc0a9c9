/**
 * A unit's [Install] links on real systemd 252 against those its [Install] makes: a link added by hand in
 * another target's `.wants/` (under /etc or /run), a link of a unit declared disabled, a missing one, and an
 * instance's link its template's old [Install] left each read as drift, in words, and the apply removes or
 * makes it. `list-unit-files` says `enabled` with any link there (or `disabled`, for a link of another name),
 * so each of these read in sync. A template's rewrite moves its enabled instances' links in the same apply, under
 * /etc and under /run (those enabled until reboot stay so), and a failed apply's undo moves them back.
 */
import { linuxDomain } from '../../../handlers/linux/domain';
import { invoke, invokeBatch, invokeBatchApply } from '../../support/run-handler';
import { quote } from '../../../src/linux/shell';
import {
  appliedMark,
  hostTarget,
  instanceSpec,
  KEY_ENV,
  unitLinks,
  unitSpec,
  useSystemdHost,
} from '../../support/unit-host';

jest.setTimeout(120_000);

const { host, unit } = useSystemdHost();
const env = () => ({ [KEY_ENV]: host().privateKey });
const links = (name: string) => unitLinks(host(), name);

const service = (wantedBy = 'multi-user.target') =>
  `[Unit]\nDescription=links\n[Service]\nExecStart=/bin/sleep infinity\n[Install]\nWantedBy=${wantedBy}\n`;
const ETC = '/etc/systemd/system';
const wants = (target: string, name: string, root = ETC) => `${root}/${target}.target.wants/${name}`;
/** A link made by hand, as an admin would: `ln -s` into a target's .wants/. */
const linkByHand = (link: string, to: string) =>
  host().exec(`mkdir -p ${link.replace(/\/[^/]*$/, '')} && ln -s ${to} ${link}`);

// Regression: list-unit-files said `enabled`, so the plan was clean while graphical.target wanted the unit too.
test.each([
  ['/etc', ETC],
  ['/run', '/run/systemd/system'],
])(
  'a link by hand under %s in a target its [Install] does not name is drift, and the apply removes it',
  async (_, root) => {
    const name = `ln-${root === ETC ? 'e' : 'r'}.service`;
    const spec = unitSpec(name, service());
    expect((await unit.run('apply', spec)).code).toBe(0);
    await linkByHand(wants('graphical', name, root), `${ETC}/${name}`);
    expect((await host().exec(`systemctl list-unit-files --no-legend -- ${name}`)).stdout).toMatch(/enabled/);
    expect((await unit.run('read', spec)).result).toMatchObject({
      in_sync: 'false',
      summary: expect.stringContaining(`links its [Install] does not make: ${wants('graphical', name, root)}`),
    });
    expect((await unit.run('apply', spec)).code).toBe(0);
    expect(await links(name)).toEqual([`${wants('multi-user', name)} -> ${ETC}/${name}`]);
    expect((await unit.run('read', spec)).result?.in_sync).toBe('true');
  },
);

// Regression: a link of another name to its file reads `disabled` in list-unit-files, yet graphical.target starts it.
test('a unit declared disabled with a link of another name to its file is drift; the apply removes it', async () => {
  const spec = unitSpec('ln-d.service', service(), { enabled: false, started: false });
  expect((await unit.run('apply', spec)).code).toBe(0);
  await linkByHand(wants('graphical', 'ln-d-too.service'), `${ETC}/ln-d.service`);
  expect((await host().exec('systemctl list-unit-files --no-legend -- ln-d.service')).stdout).toMatch(/ disabled /);
  expect((await unit.run('read', spec)).result).toMatchObject({
    in_sync: 'false',
    summary: expect.stringContaining(`links of a unit declared disabled: ${wants('graphical', 'ln-d-too.service')}`),
  });
  expect((await unit.run('apply', spec)).code).toBe(0);
  expect(await links('ln-d.service')).toEqual([]);
  expect((await unit.run('read', spec)).result?.in_sync).toBe('true');
});

test('a link its [Install] makes, removed by hand while another keeps it enabled, is drift and made', async () => {
  const spec = unitSpec('ln-m.service', service('multi-user.target graphical.target'));
  expect((await unit.run('apply', spec)).code).toBe(0);
  await host().exec(`rm ${wants('graphical', 'ln-m.service')}`);
  expect((await unit.run('read', spec)).result?.summary).toContain(
    `links its [Install] makes are missing: ${wants('graphical', 'ln-m.service')}`,
  );
  expect((await unit.run('apply', spec)).code).toBe(0);
  expect(await links('ln-m.service')).toHaveLength(2);
  expect((await unit.run('read', spec)).result?.in_sync).toBe('true');
});

test('an instance with a link its template does not make is drift, and the apply removes it', async () => {
  const template = unitSpec('ln-t@.service', service(), { enabled: false, started: false });
  const instance = instanceSpec('ln-t@a.service');
  const run = (verb: 'read' | 'apply') =>
    invoke(linuxDomain(), 'systemd-instance', verb, hostTarget(host()), instance, env());
  expect((await unit.run('apply', template)).code).toBe(0);
  expect((await run('apply')).code).toBe(0);
  await linkByHand(wants('graphical', 'ln-t@a.service'), `${ETC}/ln-t@.service`);
  expect((await run('read')).result?.summary).toContain(
    `links its [Install] does not make: ${wants('graphical', 'ln-t@a.service')}`,
  );
  expect((await run('apply')).code).toBe(0);
  expect(await links('ln-t@a.service')).toEqual([`${wants('multi-user', 'ln-t@a.service')} -> ${ETC}/ln-t@.service`]);
  expect((await run('read')).result?.in_sync).toBe('true');
});

// Regression: an instance has no file of its own, so nothing re-enabled it when its template was rewritten: its old
// .wants link stayed, the new target's never came, and the read said in sync.
test("a template's changed WantedBy= moves its enabled instances' links in the same apply, stopped too", async () => {
  const template = (wantedBy: string) => unitSpec('lt@.service', service(wantedBy), { enabled: false, started: false });
  // A stopped instance: the template's digest moves no restartOn, so the plan leaves it out of the apply.
  const stopped = instanceSpec('lt@b.service', { started: false });
  const objects = (wantedBy: string) => ({
    t: { kind: 'systemd-unit', spec: template(wantedBy) },
    b: { kind: 'systemd-instance', spec: stopped, after: ['t'] },
  });
  const plan = async (wantedBy: string) => {
    const read = await invokeBatch(linuxDomain(), hostTarget(host()), objects(wantedBy), env());
    const drifted = (read.result?.['.drifted'] ?? '').split(',').filter((name) => name !== '');
    const all = objects(wantedBy);
    return Object.fromEntries(drifted.map((name) => [name, all[name as keyof typeof all]]));
  };
  const apply = async (wantedBy: string) =>
    invokeBatchApply(linuxDomain(), hostTarget(host()), await plan(wantedBy), env());
  const first = await invokeBatchApply(linuxDomain(), hostTarget(host()), objects('multi-user.target'), env());
  expect(first.code).toBe(0);
  expect(await links('lt@b.service')).toEqual([`${wants('multi-user', 'lt@b.service')} -> ${ETC}/lt@.service`]);
  expect(Object.keys(await plan('graphical.target'))).toEqual(['t']);
  const moved = await apply('graphical.target');
  expect(await links('lt@b.service')).toEqual([`${wants('graphical', 'lt@b.service')} -> ${ETC}/lt@.service`]);
  expect(moved).toMatchObject({ code: 0, stderr: expect.stringContaining('t: reenabled its instances lt@b.service') });
  expect(await plan('graphical.target')).toEqual({});
});

test('an instance the template it follows leaves with an old link reads so, and the apply moves it', async () => {
  const template = unitSpec('lo@.service', service('graphical.target'), { enabled: false, started: false });
  const instance = instanceSpec('lo@a.service', { started: false });
  const run = (verb: 'read' | 'apply') =>
    invoke(linuxDomain(), 'systemd-instance', verb, hostTarget(host()), instance, env());
  expect((await unit.run('apply', template)).code).toBe(0);
  expect((await run('apply')).code).toBe(0);
  // What an earlier version left: the template rewritten under the instance, its links as they were.
  await host().exec(`rm ${wants('graphical', 'lo@a.service')}`);
  await linkByHand(wants('multi-user', 'lo@a.service'), `${ETC}/lo@.service`);
  expect((await run('read')).result?.summary).toMatch(
    new RegExp(
      /links its \[Install\] does not make: .*multi-user.target.wants\/lo@a.service; /.source +
        /links its \[Install\] makes are missing: .*graphical/.source,
    ),
  );
  expect((await run('apply')).code).toBe(0);
  expect(await links('lo@a.service')).toEqual([`${wants('graphical', 'lo@a.service')} -> ${ETC}/lo@.service`]);
});

// Regression: UpheldBy= made the read fall back to list-unit-files, so a link by hand read in sync. systemd 252's
// enable makes no .upholds/ link (254 does), so one there is stray too, and the apply's reenable removes it.
test('a unit with UpheldBy= has its links compared: links by hand in .wants/ and .upholds/ are drift', async () => {
  const name = 'ln-u.service';
  const spec = unitSpec(name, service('multi-user.target\nUpheldBy=graphical.target'));
  expect((await unit.run('apply', spec)).code).toBe(0);
  expect(await links(name)).toEqual([`${wants('multi-user', name)} -> ${ETC}/${name}`]);
  await linkByHand(wants('graphical', name), `${ETC}/${name}`);
  await linkByHand(`${ETC}/graphical.target.upholds/${name}`, `${ETC}/${name}`);
  expect((await unit.run('read', spec)).result).toMatchObject({
    in_sync: 'false',
    summary: expect.stringContaining(
      `links its [Install] does not make: ${ETC}/graphical.target.upholds/${name}, ${wants('graphical', name)}`,
    ),
  });
  expect((await unit.run('apply', spec)).code).toBe(0);
  expect(await links(name)).toEqual([`${wants('multi-user', name)} -> ${ETC}/${name}`]);
  expect((await unit.run('read', spec)).result?.in_sync).toBe('true');
});

// Regression: a specifier but %n %N %p %i made the read fall back to list-unit-files, so a link by hand read in sync.
test('[Install] specifiers of the host resolve as enable resolves them, so a link by hand is drift', async () => {
  const name = 'ln-s-x.service';
  const targets = 'h-%H.target l-%l.target q-%q.target m-%m.target b-%b.target v-%v.target o-%o.target w-%w.target';
  const spec = unitSpec(name, service(`${targets}\nWantedBy=a-%a.target u-%u.target G-%G.target j-%j.target`));
  expect((await unit.run('apply', spec)).code).toBe(0);
  const made = (await links(name)).map((line) => line.slice(ETC.length + 1, line.indexOf('.target.wants')));
  const facts = await host().exec('hostname; cat /etc/machine-id /proc/sys/kernel/random/boot_id; uname -r');
  const [hostname, machineId, bootId, release] = facts.stdout.trim().split('\n');
  expect(made).toContain(`h-${hostname}`);
  expect(made).toEqual(
    expect.arrayContaining([`m-${machineId}`, `b-${bootId?.replaceAll('-', '')}`, `v-${release}`, 'o-debian', 'w-12']),
  );
  expect(made).toEqual(expect.arrayContaining(['a-x86-64', 'u-root', 'G-0', 'j-x']));
  expect((await unit.run('read', spec)).result?.in_sync).toBe('true');
  await linkByHand(wants('graphical', name), `${ETC}/${name}`);
  await host().exec(`rm ${wants(`h-${hostname}`, name)}`);
  expect((await unit.run('read', spec)).result?.summary).toMatch(
    new RegExp(
      `links its \\[Install\\] does not make: ${wants('graphical', name)}; ` +
        `links its \\[Install\\] makes are missing: ${wants(`h-${hostname}`, name)}`,
    ),
  );
  expect((await unit.run('apply', spec)).code).toBe(0);
  expect((await unit.run('read', spec)).result?.in_sync).toBe('true');
});

// Regression: enable refuses %I and links the rest; list-unit-files then said `enabled` and the read in sync.
test('an [Install] that enable refuses reads "cannot compare links", never in sync', async () => {
  const spec = unitSpec('ln-r.service', service('multi-user.target x-%I.target'), { started: false });
  // As an admin's enable leaves it: the file, the stack's mark, and the links enable made before it failed.
  await host().exec(`printf '%s' ${quote(spec.content ?? '')} > ${ETC}/ln-r.service && ${appliedMark(spec)}`);
  expect((await host().exec('systemctl daemon-reload; systemctl enable ln-r.service')).stderr).toMatch(/%I/);
  expect((await host().exec('systemctl list-unit-files --no-legend -- ln-r.service')).stdout).toMatch(/ enabled /);
  expect((await unit.run('read', spec)).result).toMatchObject({
    in_sync: 'false',
    summary: expect.stringContaining(
      'cannot compare links: WantedBy=x-%I.target: systemctl enable refuses it (%I is no specifier of [Install])',
    ),
  });
});

// Regression: an instance's Alias= made the read fall back to list-unit-files, so its alias, gone, read in sync.
test("an instance's Alias= is compared: one removed by hand is drift, and the apply makes it", async () => {
  const template = unitSpec('la@.service', service('multi-user.target\nAlias=la-al@%i.service'), {
    enabled: false,
    started: false,
  });
  const instance = instanceSpec('la@a.service', { started: false });
  const run = (verb: 'read' | 'apply') =>
    invoke(linuxDomain(), 'systemd-instance', verb, hostTarget(host()), instance, env());
  expect((await unit.run('apply', template)).code).toBe(0);
  expect((await run('apply')).code).toBe(0);
  const aliases = () => host().exec(`find ${ETC} -maxdepth 1 -type l -lname '*la@.service' -printf '%p -> %l\\n'`);
  expect((await aliases()).stdout.trim()).toBe(`${ETC}/la-al@a.service -> ${ETC}/la@.service`);
  await host().exec(`rm ${ETC}/la-al@a.service`);
  expect((await run('read')).result).toMatchObject({
    in_sync: 'false',
    summary: expect.stringContaining(`links its [Install] makes are missing: ${ETC}/la-al@a.service`),
  });
  expect((await run('apply')).code).toBe(0);
  expect((await aliases()).stdout.trim()).toBe(`${ETC}/la-al@a.service -> ${ETC}/la@.service`);
  expect((await run('read')).result?.in_sync).toBe('true');
});

const RUN = '/run/systemd/system';
/** A template and instances the stack does not declare: one enabled until reboot alone, one both for good and so. */
const withRuntimeInstances = async (prefix: string) => {
  const template = (wantedBy: string) =>
    unitSpec(`${prefix}@.service`, service(wantedBy), { enabled: false, started: false });
  expect(
    (
      await invokeBatchApply(
        linuxDomain(),
        hostTarget(host()),
        { t: { kind: 'systemd-unit', spec: template('multi-user.target') } },
        env(),
      )
    ).code,
  ).toBe(0);
  const [runtime, both] = [`${prefix}@r.service`, `${prefix}@b.service`];
  await host().exec(
    `systemctl enable --runtime ${runtime} && systemctl enable ${both} && systemctl enable --runtime ${both}`,
  );
  return { template, runtime, both };
};
const isEnabled = async (...names: string[]) =>
  (await host().exec(`systemctl is-enabled ${names.join(' ')}; true`)).stdout.trim().split('\n');

// Regression: a reenable would enable an instance enabled until reboot for good, so the apply left it alone with the
// /run link of the template's old [Install], and took the /run links of one enabled both ways.
test("a template's changed WantedBy= moves its instances' links under /run too, where they stay", async () => {
  const { template, runtime, both } = await withRuntimeInstances('lr');
  const objects = { t: { kind: 'systemd-unit', spec: template('graphical.target') } };
  const moved = await invokeBatchApply(linuxDomain(), hostTarget(host()), objects, env());
  expect(moved.code).toBe(0);
  expect(await links(runtime)).toEqual([`${wants('graphical', runtime, RUN)} -> ${ETC}/lr@.service`]);
  expect(await links(both)).toEqual([
    `${wants('graphical', both)} -> ${ETC}/lr@.service`,
    `${wants('graphical', both, RUN)} -> ${ETC}/lr@.service`,
  ]);
  expect(await isEnabled(runtime, both)).toEqual(['enabled-runtime', 'enabled']);
  expect(moved.stderr).toContain(`t: reenabled under /run (until reboot) its instances ${both}, ${runtime}`);
  expect((await invokeBatch(linuxDomain(), hostTarget(host()), objects, env())).result?.['.in_sync']).toBe('true');
});

test("a failed apply's undo puts its instances' links back under /etc and /run, as they were", async () => {
  const { template, runtime, both } = await withRuntimeInstances('lu');
  const before = [await links(runtime), await links(both)];
  const failing = unitSpec('lu-fails.service', '[Service]\nExecStart=/bin/false\n');
  const run = await invokeBatchApply(
    linuxDomain(),
    hostTarget(host()),
    {
      f: { kind: 'systemd-unit', spec: failing },
      t: { kind: 'systemd-unit', spec: template('graphical.target'), after: ['f'] },
    },
    env(),
  );
  expect(run.code).not.toBe(0);
  expect([await links(runtime), await links(both)]).toEqual(before);
  expect(await isEnabled(runtime, both)).toEqual(['enabled-runtime', 'enabled']);
  expect(run.stderr).toMatch(
    new RegExp(
      `^t: not applied: .*restored the previous unit file and re-enabled its instances ${both}, ${runtime}$`,
      'm',
    ),
  );
});
