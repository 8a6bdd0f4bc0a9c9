/**
 * A unit's links in the other unit directories pid1 reads (/etc and /run's `system.control` and `system.attached`,
 * /run/systemd/transient, /usr/local/lib/systemd/system) on real systemd 252. Regression: the read listed
 * /etc/systemd/system and /run/systemd/system alone, so a `multi-user.target.wants/` link made by hand in another
 * made pid1 want a unit declared disabled at boot while the plan read in sync (is-enabled `disabled`); under
 * /run/systemd/system.control the plan said the apply disables it (`enabled-runtime`), and the apply's
 * `disable --runtime` left it, failed its read back and undid itself. No systemctl verb the apply has removes such a
 * link (measured here), so the plan and the apply now refuse it in the same words, before any change.
 */
import { OTHER_LINK_ROOTS } from '../../../src/linux/links-command';
import { unitBatch, unitSpec, useSystemdHost } from '../../support/unit-host';

jest.setTimeout(120_000);

const { host } = useSystemdHost();
const { plan, apply } = unitBatch(host);
const exec = async (cmd: string) => (await host().exec(cmd)).stdout.trim();
const ETC = '/etc/systemd/system';
const CONTENT = '[Service]\nExecStart=/bin/sleep infinity\n[Install]\nWantedBy=multi-user.target\n';

const one = (name: string, enabled: boolean) => ({
  u: { kind: 'systemd-unit', spec: unitSpec(name, CONTENT, { enabled }) },
});
/** A link made by hand, as an admin would, in a target's `.wants/` under `root`, and the reload that loads it. */
const linkByHand = async (root: string, target: string, name: string) => {
  const link = `${root}/${target}.wants/${name}`;
  await host().exec(`mkdir -p ${root}/${target}.wants && ln -s ${ETC}/${name} ${link} && systemctl daemon-reload`);
  return link;
};

test('systemd 252 follows a wants link in each other directory; disable, --runtime, reenable leave it', async () => {
  const paths = (await exec('systemd-analyze unit-paths')).split('\n');
  expect(paths).toEqual(expect.arrayContaining([...OTHER_LINK_ROOTS]));
  for (const [i, root] of OTHER_LINK_ROOTS.entries()) {
    const name = `ol-m${i}.service`;
    await host().exec(`printf '${CONTENT.replace(/\n/g, '\\n')}' > ${ETC}/${name}`);
    const link = await linkByHand(root, 'multi-user.target', name);
    expect(await exec(`systemctl show -p WantedBy --value ${name}`)).toBe('multi-user.target');
    await host().exec(`systemctl disable ${name}; systemctl disable --runtime ${name}; systemctl reenable ${name}`);
    expect(await exec(`readlink ${link}`)).toBe(`${ETC}/${name}`);
  }
});

// Regression: the plan was clean (or, under /run/systemd/system.control, said the apply disables it and the apply
// failed its read back and undid itself) while multi-user.target wanted the unit.
test.each([
  ['/etc/systemd/system.control', 'ol-c'],
  ['/run/systemd/system.control', 'ol-r'],
  ['/usr/local/lib/systemd/system', 'ol-l'],
])(
  'a unit declared disabled with a wants link by hand under %s: the plan and the apply refuse it',
  async (root, stem) => {
    const name = `${stem}.service`;
    const objects = one(name, false);
    expect(await apply(objects)).toMatchObject({ code: 0 });
    const link = await linkByHand(root, 'multi-user.target', name);
    const words =
      `has a link systemctl cannot remove: ${link}, a link of a unit declared disabled outside /etc/systemd/system ` +
      'and /run/systemd/system, which pid1 follows and systemctl disable, disable --runtime and reenable leave ' +
      `(measured); remove it by hand (rm ${link}) and apply again`;
    const planned = (await plan(objects)).result ?? {};
    expect(planned['u.in_sync']).toBe('false');
    expect(planned['u.summary']).toBe(
      `unit ${name} on 127.0.0.1:${host().port} (active/running): the apply refuses it, as it ${words}`,
    );
    const applied = await apply(objects);
    expect(applied.code).not.toBe(0);
    expect(applied.stderr).toContain(
      `u: not applied: ${name} on 127.0.0.1:${host().port} ${words}; nothing was changed`,
    );
    expect(applied.stderr).not.toMatch(/^u: (disabled|undone)/m);
    expect(await exec(`readlink ${link}`)).toBe(`${ETC}/${name}`);
    await host().exec(`rm ${link} && systemctl daemon-reload`);
    expect((await plan(objects)).result).toMatchObject({ 'u.in_sync': 'true' });
  },
);

test('a unit declared enabled: a stray link elsewhere is refused, one its [Install] makes reads in sync', async () => {
  const objects = one('ol-e.service', true);
  expect(await apply(objects)).toMatchObject({ code: 0 });
  const made = await linkByHand('/usr/local/lib/systemd/system', 'multi-user.target', 'ol-e.service');
  expect((await plan(objects)).result).toMatchObject({ 'u.in_sync': 'true' });
  const stray = await linkByHand('/etc/systemd/system.control', 'graphical.target', 'ol-e.service');
  const words =
    `has a link systemctl cannot remove: ${stray}, a link its [Install] does not make outside /etc/systemd/system ` +
    'and /run/systemd/system, which pid1 follows and systemctl disable, disable --runtime and reenable leave ' +
    `(measured); remove it by hand (rm ${stray}) and apply again`;
  expect((await plan(objects)).result?.['u.summary']).toContain(`the apply refuses it, as it ${words}`);
  const applied = await apply(objects);
  expect(applied.code).not.toBe(0);
  expect(applied.stderr).toContain(`ol-e.service on 127.0.0.1:${host().port} ${words}; nothing was changed`);
  expect(await exec(`readlink ${made} ${stray}`)).toBe(`${ETC}/ol-e.service\n${ETC}/ol-e.service`);
});
