/**
 * A unit whose [Install] says `Also=` on real systemd 252: `systemctl disable` and `reenable` act on the units it
 * names too (install.c follows Also=), so the apply's disable of a unit declared disabled unlinked another unit
 * enabled by hand, and a rewrite's reenable took that unit's link to another target, under plans that named only the
 * unit (measured). The apply still does what systemd does with the declared file; the plan now says so.
 */
import { unitBatch, unitSpec, useSystemdHost } from '../../support/unit-host';

jest.setTimeout(120_000);

const { host } = useSystemdHost();
const { plan, apply } = unitBatch(host);
const DIR = '/etc/systemd/system';
const exec = async (cmd: string) => (await host().exec(cmd)).stdout.trim();

const service = (v: string, also: string) =>
  `[Unit]\nDescription=also\n[Service]\nEnvironment=V=${v}\nExecStart=/bin/sleep infinity\n` +
  `[Install]\nWantedBy=multi-user.target\nAlso=${also}\n`;
const one = (name: string, content: string, enabled: boolean) => ({
  u: { kind: 'systemd-unit', spec: unitSpec(name, content, { enabled }) },
});
/** A unit the stack does not declare, enabled by hand. */
const byHand = (name: string) =>
  host().exec(
    `printf '[Service]\\nExecStart=/bin/sleep infinity\\n[Install]\\nWantedBy=multi-user.target\\n' > ${DIR}/${name}` +
      ` && systemctl daemon-reload && systemctl enable ${name}`,
  );
const linksOf = (name: string) => exec(`find ${DIR} -lname "*/${name}" | sort`);

test("declared disabled: the plan says the apply's disable acts on the unit Also= names, and it does", async () => {
  await byHand('al-b.service');
  const content = service('a', 'al-b.service');
  expect(await apply(one('al-a.service', content, true))).toMatchObject({ code: 0 });
  expect(await linksOf('al-b.service')).toBe(`${DIR}/multi-user.target.wants/al-b.service`);
  const objects = one('al-a.service', content, false);
  expect((await plan(objects)).result?.['u.summary']).toContain(
    "its [Install] Also= names al-b.service, which the apply's systemctl disable acts on too (measured)",
  );
  expect(await apply(objects)).toMatchObject({ code: 0 });
  expect(await linksOf('al-b.service')).toBe('');
  expect((await plan(objects)).result).toMatchObject({ 'u.in_sync': 'true' });
});

test("a rewrite: the plan says the apply's reenable acts on the unit Also= names too", async () => {
  await byHand('al-d.service');
  expect(await apply(one('al-c.service', service('one', 'al-d.service'), true))).toMatchObject({ code: 0 });
  const objects = one('al-c.service', service('two', 'al-d.service'), true);
  expect((await plan(objects)).result?.['u.summary']).toContain(
    "its [Install] Also= names al-d.service, which the apply's systemctl reenable acts on too (measured)",
  );
  expect((await plan(one('al-c.service', service('one', 'al-d.service'), true))).result).toMatchObject({
    'u.in_sync': 'true',
  });
});
