/**
 * A template's links on real systemd 252: `systemctl enable <template>` links the instance its DefaultInstance=
 * names, and those links removed or added by hand read in sync while another of them (or another instance's link,
 * `indirect`) kept list-unit-files content. Each now reads as drift, the apply re-enables the default instance alone
 * (the template's reenable unlinks every instance), and the next read is in sync with the other instance kept.
 * An instance's alias of another name, which no systemctl verb the apply has removes: systemd-instance-alias.test.ts.
 */
import { linuxDomain } from '../../../handlers/linux/domain';
import { invokeBatchApply } from '../../support/run-handler';
import { hostTarget, KEY_ENV, unitLinks, unitSpec, useSystemdHost } from '../../support/unit-host';

jest.setTimeout(120_000);

const { host, unit } = useSystemdHost();
const ETC = '/etc/systemd/system';
const wants = (target: string, name: string) => `${ETC}/${target}.target.wants/${name}`;
const template = (wantedBy: string) =>
  `[Unit]\nDescription=links\n[Service]\nExecStart=/bin/sleep infinity\n` +
  `[Install]\nWantedBy=${wantedBy}\nDefaultInstance=a\n`;

// Regression: each of these read in sync, as list-unit-files said `indirect` or `enabled` (measured, systemd 252).
test.each([
  ['both its links removed by hand, another instance enabled', 'ti', 'rm'],
  ['one of its two links removed by hand', 'tj', 'rm-one'],
  ['a link by hand in a target its [Install] does not name', 'tk', 'add'],
])("a template's DefaultInstance= links with %s are drift; one apply makes them", async (_, prefix, change) => {
  const [name, a, b] = [`${prefix}@.service`, `${prefix}@a.service`, `${prefix}@b.service`];
  const spec = unitSpec(name, template('multi-user.target graphical.target'), { started: false });
  expect((await unit.run('apply', spec)).code).toBe(0);
  expect((await host().exec(`systemctl enable ${b}`)).code).toBe(0);
  const made = [wants('graphical', a), wants('multi-user', a)];
  const others = [wants('graphical', b), wants('multi-user', b)];
  const hand = wants('basic', a);
  if (change === 'rm') await host().exec(`rm ${made.join(' ')}`);
  if (change === 'rm-one') await host().exec(`rm ${made[1]}`);
  if (change === 'add') await host().exec(`mkdir -p ${ETC}/basic.target.wants && ln -s ${ETC}/${name} ${hand}`);
  const says =
    change === 'add'
      ? `links its [Install] does not make: ${hand}`
      : `links its [Install] makes are missing: ${(change === 'rm' ? made : made.slice(1)).join(', ')}`;
  expect((await unit.run('read', spec)).result).toMatchObject({
    in_sync: 'false',
    summary: expect.stringContaining(says),
  });
  const applied = await unit.run('apply', spec);
  expect(applied).toMatchObject({ code: 0, stderr: expect.stringContaining(`reenabled its default instance ${a}`) });
  const to = (path: string) => `${path} -> ${ETC}/${name}`;
  expect([...(await unitLinks(host(), a)), ...(await unitLinks(host(), b))].sort()).toEqual(
    [...made, ...others].map(to).sort(),
  );
  expect((await unit.run('read', spec)).result?.in_sync).toBe('true');
});

// The undo disables what the apply switched: the template's disable would have unlinked its other instances.
test("a failed apply's undo of a default instance's reenable keeps its other instances linked", async () => {
  const [name, a, b] = ['tu@.service', 'tu@a.service', 'tu@b.service'];
  const spec = unitSpec(name, template('multi-user.target'), { started: false });
  expect((await unit.run('apply', spec)).code).toBe(0);
  expect((await host().exec(`systemctl enable ${b} && rm ${wants('multi-user', a)}`)).code).toBe(0);
  const failing = unitSpec('tu-fails.service', '[Service]\nExecStart=/bin/false\n');
  const objects = {
    f: { kind: 'systemd-unit', spec: failing },
    t: { kind: 'systemd-unit', spec, after: ['f'] },
  };
  const run = await invokeBatchApply(linuxDomain(), hostTarget(host()), objects, { [KEY_ENV]: host().privateKey });
  expect(run.code).not.toBe(0);
  expect(run.stderr).toMatch(new RegExp(`^t: reenabled its default instance ${a}$[^]*^t: not applied: `, 'm'));
  expect(await unitLinks(host(), b)).toEqual([`${wants('multi-user', b)} -> ${ETC}/${name}`]);
});
