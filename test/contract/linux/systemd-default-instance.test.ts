/**
 * A template's DefaultInstance= links on real systemd 252 where list-unit-files' one word stood for them: a template
 * declared disabled (the apply's `systemctl disable <template>` unlinked every instance), one whose [Install] names
 * Alias= too, and one whose DefaultInstance= holds a specifier. Each reads its default instance's links in words,
 * the apply acts on those alone, and the next plan is in sync with the other instances' links kept. Where only the
 * template's own disable will do, the batch's instance declared enabled is enabled again after it.
 */
import { unitBatch, unitLinks, unitSpec, useSystemdHost } from '../../support/unit-host';
import { batch, ETC, templateLinks as links, to, wants } from '../../support/template-batch';
import { restartOnPath } from '../../../src/linux/unit-file';

jest.setTimeout(120_000);

const { host } = useSystemdHost();
const { plan, apply } = unitBatch(host);

// Regression: the plan said `enabled is true, want false` (list-unit-files says `enabled` for any link named for its
// default instance: measured), and the apply's `systemctl disable dc@.service` unlinked dc@b.service too (measured).
test('a template declared disabled: a link named for its default instance is drift, unlinked alone', async () => {
  const objects = batch('dc', 'WantedBy=multi-user.target\nDefaultInstance=a\n', false);
  expect(await apply(objects)).toMatchObject({ code: 0 });
  const hand = wants('basic', 'dc@a.service');
  expect((await host().exec(`mkdir -p ${ETC}/basic.target.wants && ln -s ${ETC}/dc@.service ${hand}`)).code).toBe(0);
  expect((await plan(objects)).result).toMatchObject({
    't.in_sync': 'false',
    't.summary': expect.stringContaining(`links of a unit declared disabled: ${hand}`),
    'i.in_sync': 'true',
  });
  const applied = await apply(objects);
  expect(applied).toMatchObject({ code: 0, stderr: expect.stringMatching(/^t: disabled its default instance dc@a/m) });
  expect(await unitLinks(host(), 'dc@a.service')).toEqual([]);
  expect(await unitLinks(host(), 'dc@b.service')).toEqual([wants('multi-user', 'dc@b.service')].map(to('dc')));
  expect((await plan(objects)).result).toMatchObject({ '.in_sync': 'true' });
});

const templateLinks = async (prefix: string): Promise<string> => links(host(), prefix);

// Regression: each read in sync, list-unit-files saying `enabled` while the template alias `enable` makes (or any
// other of its links) was there (measured, systemd 252).
test.each([
  ['its link removed by hand', 'dr', 'rm', 'links its [Install] makes are missing: '],
  ['its template alias removed by hand', 'ds', 'rm-alias', 'links its [Install] makes are missing: '],
  ['a link by hand in a target its [Install] does not name', 'dt', 'add', 'links its [Install] does not make: '],
])(
  'a template with Alias= and DefaultInstance=: %s is drift; one apply makes its links',
  async (_, p, change, says) => {
    const objects = batch(p, `WantedBy=multi-user.target\nAlias=${p}-al@.service\nDefaultInstance=a\n`, true);
    expect(await apply(objects)).toMatchObject({ code: 0 });
    const made = await templateLinks(p);
    expect(made).toContain(`${ETC}/${p}-al@.service -> `);
    const path = {
      rm: wants('multi-user', `${p}@a.service`),
      'rm-alias': `${ETC}/${p}-al@.service`,
      add: wants('basic', `${p}@a.service`),
    }[change];
    const edit = change === 'add' ? `mkdir -p ${ETC}/basic.target.wants && ln -s ${ETC}/${p}@.service` : 'rm';
    expect((await host().exec(`${edit} ${path}`)).code).toBe(0);
    expect((await plan(objects)).result).toMatchObject({
      't.in_sync': 'false',
      't.summary': expect.stringContaining(`${says}${path}`),
      'i.in_sync': 'true',
    });
    const applied = await apply(objects);
    expect(applied).toMatchObject({
      code: 0,
      stderr: expect.stringMatching(new RegExp(`^t: relinked its default instance ${p}@a`, 'm')),
    });
    expect(await templateLinks(p)).toBe(made);
    expect((await plan(objects)).result).toMatchObject({ '.in_sync': 'true' });
  },
);

// Regression: read in sync, list-unit-files saying `indirect` for the instance's link left (measured, systemd 252).
test('a DefaultInstance= with a specifier: its link removed by hand is drift; one apply makes it', async () => {
  const objects = batch('dh', 'WantedBy=multi-user.target\nDefaultInstance=%H-%p\n', true);
  expect(await apply(objects)).toMatchObject({ code: 0 });
  const hostname = (await host().exec('cat /proc/sys/kernel/hostname')).stdout.trim();
  const instance = `dh@${hostname}-dh.service`;
  const made = await templateLinks('dh');
  expect(made).toContain(`${wants('multi-user', instance)} -> `);
  expect((await host().exec(`rm ${wants('multi-user', instance)}`)).code).toBe(0);
  expect((await plan(objects)).result).toMatchObject({
    't.in_sync': 'false',
    't.summary': expect.stringContaining(`links its [Install] makes are missing: ${wants('multi-user', instance)}`),
    'i.in_sync': 'true',
  });
  const applied = await apply(objects);
  expect(applied).toMatchObject({
    code: 0,
    stderr: expect.stringContaining(`t: reenabled its default instance ${instance}`),
  });
  expect(await templateLinks('dh')).toBe(made);
  expect((await plan(objects)).result).toMatchObject({ '.in_sync': 'true' });
});

// Regression: the plan read `i` in sync, the apply ran `systemctl disable de@.service`, the only verb that removes its
// alias, which unlinked de@b.service too, and `i` failed its apply (`enabled is false, want true`) after the template's
// disable: measured, systemd 252. Its enable after that disable makes its links and its own alias (measured).
test.each([
  ['a template alias', 'de', 'Alias=de-al@.service'],
  ['an alias of its instance', 'df', 'Alias=df-al@%i.service'],
])(
  'a template declared disabled with %s its enable made, an instance declared enabled: both end as declared',
  async (_, p, alias) => {
    const install = `WantedBy=multi-user.target\n${alias}\nDefaultInstance=a\n`;
    expect(await apply(batch(p, install, true))).toMatchObject({ code: 0 });
    expect(await templateLinks(p)).toContain(`${wants('multi-user', `${p}@a.service`)} -> `);
    const objects = batch(p, install, false);
    expect((await plan(objects)).result).toMatchObject({
      't.in_sync': 'false',
      't.summary': expect.stringContaining(
        `the apply disables ${p}@.service, which unlinks every instance: only its disable removes its alias ` +
          `(measured); the apply then enables ${p}@b.service again, which this batch declares enabled and its ` +
          `systemctl disable ${p}@.service unlinks (measured)`,
      ),
      'i.in_sync': 'false',
      'i.summary': expect.stringContaining(
        `(inactive/dead): its template ${p}@.service, which this batch declares disabled, is disabled by its name`,
      ),
    });
    const applied = await apply(objects);
    expect(applied).toMatchObject({
      code: 0,
      stderr: expect.stringMatching(/^t: disabled\n(.*\n)*i: enabled again after its template's disable/m),
    });
    const own = [`${ETC}/${p}-al@b.service`, wants('multi-user', `${p}@b.service`)];
    expect(await templateLinks(p)).toBe(own.map((path) => `${to(p)(path)}\n`).join(''));
    expect((await plan(objects)).result).toMatchObject({ '.in_sync': 'true' });
  },
);

// Regression: a template declared disabled whose file the apply rewrites is disabled by its name too, which unlinked
// dg@b.service, declared enabled: `i: reenabled`, `t: disabled`, then `i: not applied: ... enabled is false,
// want true` (measured, systemd 252).
test('a template declared disabled, its file rewritten: its instance enabled follows its new [Install]', async () => {
  const install = 'WantedBy=multi-user.target\nDefaultInstance=a\n';
  expect(await apply(batch('dg', install, true))).toMatchObject({ code: 0 });
  const objects = batch('dg', `${install}WantedBy=basic.target\n`, false);
  expect((await plan(objects)).result).toMatchObject({
    't.summary': expect.stringContaining('the apply then enables dg@b.service again'),
    'i.in_sync': 'false',
  });
  const applied = await apply(objects);
  expect(applied).toMatchObject({ code: 0, stderr: expect.stringMatching(/^i: enabled again after its template/m) });
  const own = [wants('basic', 'dg@b.service'), wants('multi-user', 'dg@b.service')];
  expect(await templateLinks('dg')).toBe(own.map((path) => `${to('dg')(path)}\n`).join(''));
  expect((await plan(objects)).result).toMatchObject({ '.in_sync': 'true' });
});

// Regression: the template's record removed (not created by this stack), the plan still said `the apply then enables
// dj@b.service again` of both, and read dj@b.service not in sync; the apply refused the template and, after it, the
// instance, so nothing was enabled again (measured, systemd 252).
test('a template declared disabled the apply refuses: neither plan says its instance is enabled again', async () => {
  const install = 'WantedBy=multi-user.target\nAlias=dj-al@.service\nDefaultInstance=a\n';
  expect(await apply(batch('dj', install, true))).toMatchObject({ code: 0 });
  const made = await templateLinks('dj');
  expect((await host().exec(`rm ${restartOnPath({ name: 'dj@.service' })}`)).code).toBe(0);
  const objects = batch('dj', install, false);
  const { result } = await plan(objects);
  expect(result).toMatchObject({
    't.in_sync': 'false',
    't.summary': expect.stringContaining('not created by this stack: the apply will refuse it'),
    'i.in_sync': 'true',
  });
  expect(result?.['t.summary']).not.toContain('again');
  expect(await apply(objects)).toMatchObject({ code: 1, stderr: expect.stringMatching(/^t: not applied: exists/m) });
  expect(await templateLinks('dj')).toBe(made);
});

// Regression: the undo disabled the default instance and enabled the template again wherever it was enabled, so the
// alias the relink made (its removal by hand undone) stayed, and the link removed by hand came back: a failed apply
// left a change behind (measured, systemd 252).
test.each([
  ['its template alias removed by hand', 'dk', 'rm-alias'],
  ['its link removed by hand', 'dl', 'rm'],
])("a failed apply's undo of a relink puts back the links as they were: %s", async (_, p, change) => {
  const objects = batch(p, `WantedBy=multi-user.target\nAlias=${p}-al@.service\nDefaultInstance=a\n`, true);
  expect(await apply(objects)).toMatchObject({ code: 0 });
  const path = change === 'rm' ? wants('multi-user', `${p}@a.service`) : `${ETC}/${p}-al@.service`;
  expect((await host().exec(`rm ${path}`)).code).toBe(0);
  const before = await templateLinks(p);
  const failing = unitSpec(`${p}-fails.service`, '[Service]\nExecStart=/bin/false\n');
  const run = await apply({ f: { kind: 'systemd-unit', spec: failing }, t: { ...objects.t, after: ['f'] } });
  expect(run).toMatchObject({
    code: 1,
    stderr: expect.stringMatching(new RegExp(`^t: relinked [^]*^t: not applied`, 'm')),
  });
  expect(await templateLinks(p)).toBe(before);
});

// Regression: read in sync, the alias not compared, while pid 1 gave every instance its name too (`Names=dm@b.service
// dm-k@b.service`) and only the template's disable removes it, with every instance's links (measured, systemd 252).
// Without DefaultInstance= too (`tk-k@z.service` loads tk@.service, `Names=tk@z.service tk-k@z.service ...`).
test.each([
  ['with DefaultInstance=', 'dm', 'DefaultInstance=a'],
  ['without DefaultInstance=, with Alias=', 'tk', 'Alias=tk-al@.service'],
])(
  'a template %s and an alias of another name by hand: the apply refuses it, its removal ends it',
  async (_, p, more) => {
    const objects = batch(p, `WantedBy=multi-user.target\n${more}\n`, true);
    expect(await apply(objects)).toMatchObject({ code: 0 });
    const alias = `${ETC}/${p}-k@.service`;
    expect((await host().exec(`ln -s ${ETC}/${p}@.service ${alias} && systemctl daemon-reload`)).code).toBe(0);
    const names = (await host().exec(`systemctl show -p Names ${p}-k@z.service`)).stdout;
    expect(names).toMatch(new RegExp(`^Names=(.* )?${p}@z.service( |$)`, 'm'));
    const made = await templateLinks(p);
    expect((await plan(objects)).result).toMatchObject({
      't.in_sync': 'false',
      't.summary': expect.stringContaining(
        `cannot compare links: ${alias}, an alias its [Install] does not make, which systemd gives every instance ` +
          `as a name too and only systemctl disable ${p}@.service removes, with every instance's links (measured); ` +
          'the apply refuses it, removing that alias by hand ends it',
      ),
      'i.in_sync': 'true',
    });
    const applied = await apply(objects);
    expect(applied).toMatchObject({ code: 1, stderr: expect.stringContaining(`remove it by hand (rm ${alias})`) });
    expect(await templateLinks(p)).toBe(made);
    expect((await host().exec(`rm ${alias} && systemctl daemon-reload`)).code).toBe(0);
    expect((await plan(objects)).result).toMatchObject({ '.in_sync': 'true' });
  },
);

// Regression: the template's disable (its alias there) unlinks dn@b.service, which the apply refuses (a copy of its
// name in /etc shadows its template); both plans said the apply then enables dn@b.service again, the apply disabled
// the template and left the instance unlinked (measured).
test('a template declared disabled unlinks an instance the apply refuses, shadowed by a copy of its name', async () => {
  const install = 'WantedBy=multi-user.target\nAlias=dn-al@.service\nDefaultInstance=a\n';
  expect(await apply(batch('dn', install, true))).toMatchObject({ code: 0 });
  const edit = `cp ${ETC}/dn@.service ${ETC}/dn@b.service && systemctl daemon-reload`;
  expect((await host().exec(edit)).code).toBe(0);
  await bothPlansSayItStaysUnlinked('dn', batch('dn', install, false));
});

// Regression: do@b.service, its record removed (not created by this stack), is refused before the host's transaction,
// which never sees it: its links stayed unlinked by the template's disable while its refusal said nothing of it was
// changed (measured, systemd 252). That transaction links it again as before, and both plans say so.
test('a template declared disabled unlinks an instance not created by this stack: linked again as before', async () => {
  const install = 'WantedBy=multi-user.target\nAlias=do-al@.service\nDefaultInstance=a\n';
  expect(await apply(batch('do', install, true))).toMatchObject({ code: 0 });
  expect((await host().exec(`rm ${restartOnPath({ name: 'do@b.service' })}`)).code).toBe(0);
  const kept = [`${ETC}/do-al@b.service`, wants('multi-user', 'do@b.service')];
  const objects = batch('do', install, false);
  expect((await plan(objects)).result).toMatchObject({
    't.summary': expect.stringContaining(
      'the apply then links again do@b.service as before, which this batch declares, the apply refuses and its ' +
        'systemctl disable do@.service unlinks (measured)',
    ),
    'i.summary': expect.stringContaining('the apply refuses this one: linked again after it as before'),
  });
  const applied = await apply(objects);
  expect(applied).toMatchObject({ code: 1, stderr: expect.stringMatching(/^t: disabled\n(.*\n)*i: not applied/m) });
  expect(await templateLinks('do')).toBe(kept.map((path) => `${to('do')(path)}\n`).join(''));
});

/** The plans of the template `t` declared disabled and its instance `i` it unlinks, refused, then the apply. */
const bothPlansSayItStaysUnlinked = async (p: string, objects: ReturnType<typeof batch>) => {
  const { result } = await plan(objects);
  expect(result).toMatchObject({
    't.in_sync': 'false',
    't.summary': expect.stringContaining(
      `its systemctl disable ${p}@.service unlinks ${p}@b.service too, which this batch declares enabled and the ` +
        'apply refuses: it stays unlinked (measured)',
    ),
    'i.in_sync': 'false',
    'i.summary': expect.stringContaining(
      `its template ${p}@.service, which this batch declares disabled, is disabled by its name (systemctl disable ` +
        `${p}@.service), which unlinks every instance (measured); the apply refuses this one: it stays unlinked`,
    ),
  });
  expect(`${result?.['t.summary']} ${result?.['i.summary']}`).not.toContain('again');
  const applied = await apply(objects);
  expect(applied).toMatchObject({ code: 1, stderr: expect.stringMatching(/^t: disabled\n(.*\n)*i: not applied/m) });
  expect(await templateLinks(p)).toBe('');
};

// Regression: a drop-in by hand empties dq@b.service's WantedBy=, so enable cannot link it and the apply refuses it;
// its template, rewritten and declared disabled, is disabled by its name. Both plans said the apply then enables
// dq@b.service again: their copy of the apply's refusals missed this one (measured, systemd 252).
test('a template declared disabled unlinks an instance that enable cannot link: both plans say so', async () => {
  const install = 'WantedBy=multi-user.target\nDefaultInstance=a\n';
  expect(await apply(batch('dq', install, true))).toMatchObject({ code: 0 });
  const [dropIn, reset] = [`${ETC}/dq@b.service.d`, `'[Install]\\nWantedBy=\\n'`];
  expect(
    (await host().exec(`mkdir ${dropIn} && printf ${reset} >${dropIn}/x.conf && systemctl daemon-reload`)).code,
  ).toBe(0);
  await bothPlansSayItStaysUnlinked('dq', batch('dq', `${install}# rewritten\n`, false));
});
