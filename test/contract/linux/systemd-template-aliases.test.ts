/**
 * A template without DefaultInstance= on real systemd 252: its enable makes only the aliases its Alias= names
 * (`systemctl enable a@.service` links `a-al@.service`; its WantedBy= names no instance to link, and enable fails
 * `Destination unit multi-user.target is a non-template unit` when it makes nothing: measured). Its links were not
 * compared, so its alias removed by hand, or an alias of another name made by hand (which pid1 gives every instance
 * as a name: `a-k@z.service` loads a@.service's file), read in sync and the apply left them. Now the first is
 * missing and the apply's enable makes it alone (its undo unlinks it alone); the second is refused declared enabled
 * (systemd-default-instance.test.ts, beside a template with DefaultInstance=), and left declared disabled.
 */
import { unitBatch, instanceSpec, unitSpec, useSystemdHost } from '../../support/unit-host';

jest.setTimeout(120_000);

const { host } = useSystemdHost();
const { plan, apply } = unitBatch(host);
const ETC = '/etc/systemd/system';
const template = (p: string) =>
  `[Unit]\nDescription=aliases\n[Service]\nExecStart=/bin/sleep infinity\n` +
  `[Install]\nWantedBy=multi-user.target\nAlias=${p}-al@.service\n`;
/** The template `t` and its instance `i` (`<prefix>@b.service`, enabled), as one batch. */
const batch = (p: string, enabled: boolean) => ({
  t: { kind: 'systemd-unit', spec: unitSpec(`${p}@.service`, template(p), { enabled, started: false }) },
  i: { kind: 'systemd-instance', spec: instanceSpec(`${p}@b.service`, { started: false }), after: ['t'] },
});
/** Every link to the template's file under /etc, as `<path> -> <target>`, sorted. */
const templateLinks = async (p: string): Promise<string> =>
  (await host().exec(`find ${ETC} -maxdepth 2 -type l -lname '*/${p}@.service' -printf '%p -> %l\\n' | sort`)).stdout;
const names = async (unit: string) => (await host().exec(`systemctl show -p Names ${unit}`)).stdout.trim();

// Regression: read in sync (is-enabled `indirect`, the instance's links left), the apply changed nothing, and ta@z's
// alias ta-al@z.service was gone (`Names=ta@z.service`: measured, systemd 252).
test('a template without DefaultInstance=: its alias removed by hand is missing; enable makes it alone', async () => {
  const objects = batch('ta', true);
  expect(await apply(objects)).toMatchObject({ code: 0 });
  const made = await templateLinks('ta');
  expect(made).toContain(`${ETC}/ta-al@.service -> `);
  expect(made).toContain(`${ETC}/multi-user.target.wants/ta@b.service -> `);
  expect((await host().exec(`rm ${ETC}/ta-al@.service && systemctl daemon-reload`)).code).toBe(0);
  expect(await names('ta@z.service')).toBe('Names=ta@z.service');
  expect((await plan(objects)).result).toMatchObject({
    't.in_sync': 'false',
    't.summary': expect.stringContaining(`links its [Install] makes are missing: ${ETC}/ta-al@.service`),
    'i.in_sync': 'true',
  });
  expect(await apply(objects)).toMatchObject({ code: 0, stderr: expect.stringMatching(/^t: enabled$/m) });
  expect(await templateLinks('ta')).toBe(made);
  expect((await plan(objects)).result).toMatchObject({ '.in_sync': 'true' });
});

// The undo of that enable removes the alias it made, not the template's disable, which unlinks every instance.
test("a failed apply's undo of such an enable puts back the links as they were", async () => {
  const objects = batch('tu', true);
  expect(await apply(objects)).toMatchObject({ code: 0 });
  expect((await host().exec(`rm ${ETC}/tu-al@.service`)).code).toBe(0);
  const before = await templateLinks('tu');
  expect(before).toContain(`${ETC}/multi-user.target.wants/tu@b.service -> `);
  const failing = unitSpec('tu-fails.service', '[Service]\nExecStart=/bin/false\n');
  const run = await apply({ f: { kind: 'systemd-unit', spec: failing }, t: { ...objects.t, after: ['f'] } });
  expect(run).toMatchObject({ code: 1, stderr: expect.stringMatching(/^t: enabled$[^]*^t: not applied/m) });
  expect(await templateLinks('tu')).toBe(before);
});

// Declared disabled, such an alias is left out, as for an instance and a template with DefaultInstance=: its
// disable would unlink every instance, the batch's enabled one among them (measured: in sync, the apply changes
// nothing, is-enabled `indirect`).
test('a template without DefaultInstance= declared disabled: an alias of another name by hand is left', async () => {
  const objects = batch('tl', false);
  expect(await apply(objects)).toMatchObject({ code: 0 });
  const alias = `${ETC}/tl-k@.service`;
  expect((await host().exec(`ln -s ${ETC}/tl@.service ${alias} && systemctl daemon-reload`)).code).toBe(0);
  const there = await templateLinks('tl');
  expect((await plan(objects)).result).toMatchObject({ '.in_sync': 'true' });
  expect(await apply(objects)).toMatchObject({ code: 0, stderr: expect.stringMatching(/^t: applied$/m) });
  expect(await templateLinks('tl')).toBe(there);
});

// Regression: a template with WantedBy= alone (no DefaultInstance=, no Alias=) declared enabled: the plan said the
// apply writes and enables it; its `systemctl enable` failed (`Destination unit multi-user.target is a non-template
// unit`: measured, systemd 252) and the apply undid its write. Now the plan says so and the apply refuses it first.
test('a template whose enable links nothing, declared enabled: the plan says so, the apply refuses it', async () => {
  const text = '[Service]\nExecStart=/bin/sleep infinity\n[Install]\nWantedBy=multi-user.target\n';
  const objects = {
    t: { kind: 'systemd-unit', spec: unitSpec('tw@.service', text, { enabled: true, started: false }) },
  };
  const words =
    'names no Alias=, Also=, nor DefaultInstance= beside a WantedBy= or RequiredBy=, so it cannot be enabled';
  expect((await plan(objects)).result).toMatchObject({
    't.in_sync': 'false',
    't.summary': expect.stringContaining(words),
  });
  const applied = await apply(objects);
  expect(applied).toMatchObject({ code: 1, stderr: expect.stringContaining('tw@.service on 127.0.0.1:') });
  expect(applied.stderr).toContain('is declared enabled: its [Install]');
  expect(applied.stderr).toContain('nothing was changed: declare it enabled false and enable its instances');
  expect((await host().exec(`test -e ${ETC}/tw@.service`)).code).toBe(1);
});
