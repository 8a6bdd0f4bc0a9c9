/**
 * A unit whose file was put back by hand as a symbolic link to a copy elsewhere (`/opt/u/<unit>`, as `systemctl link`
 * leaves a unit), on real systemd 252. sha256sum follows the link, so the plan read the file as in sync, and a plan
 * that said only "enabled is true, want false" led to an apply whose `systemctl disable` removed the link, which is
 * the unit's file, with its wants link (systemd 252 disables a linked unit so); the apply then failed and left the
 * unit without its file. Now the read names the link, the plan says the apply writes the file in its place, and the
 * apply does so before it disables: the unit keeps its file.
 */
import { unitBatch, unitSpec, useSystemdHost } from '../../support/unit-host';

jest.setTimeout(120_000);

const { host } = useSystemdHost();
const { plan, apply } = unitBatch(host);
const sleeper = '[Service]\nExecStart=/bin/sleep infinity\n[Install]\nWantedBy=multi-user.target\n';
const FILE = '/etc/systemd/system/ls.service';
const objects = (enabled: boolean) => ({
  u: { kind: 'systemd-unit', spec: unitSpec('ls.service', sleeper, { enabled }) },
});

test("a unit file a symbolic link took the place of is drift, and a disable keeps the unit's file", async () => {
  expect(await apply(objects(true))).toMatchObject({ code: 0 });
  const link = `mkdir -p /opt/u && cp ${FILE} /opt/u/ls.service && ln -sf /opt/u/ls.service ${FILE}`;
  expect((await host().exec(`${link} && systemctl daemon-reload`)).code).toBe(0);

  const planned = (await plan(objects(true))).result ?? {};
  expect(planned['u.in_sync']).toBe('false');
  expect(planned['u.summary']).toContain('a symbolic link, which systemctl disable would remove');
  const disabled = objects(false);
  expect((await plan(disabled)).result?.['u.summary']).toContain('a symbolic link, which systemctl disable would');
  const applied = await apply(disabled);
  expect(applied).toMatchObject({ code: 0, stderr: expect.stringContaining(`u: wrote ${FILE}`) });
  expect((await host().exec(`test -f ${FILE} && ! test -L ${FILE} && cat ${FILE}`)).stdout).toBe(sleeper);
  expect((await host().exec('systemctl is-enabled ls.service')).stdout.trim()).toBe('disabled');
  expect((await plan(disabled)).result).toMatchObject({ 'u.in_sync': 'true' });
});
