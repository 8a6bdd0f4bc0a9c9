/**
 * An instance with an alias its template's [Install] does not make, on real systemd 252: a link beside the units,
 * of another name, to the template's file (`ta-other@a.service -> ta@.service`, by hand or left by an old Alias=),
 * which pid 1 honours and which neither `systemctl disable` nor `reenable` of the instance removes (measured). The
 * plan said the apply re-enables it; the apply did, its read-back failed and its undo ran: the apply failed after
 * changing things. Now the plan says the apply refuses it, and the apply refuses it before any change to it, in a
 * batch whose other objects apply; once the alias is removed by hand, one apply converges it.
 */
import { instanceSpec, unitBatch, unitSpec, useSystemdHost } from '../../support/unit-host';

jest.setTimeout(120_000);

const { host, unit } = useSystemdHost();
const ETC = '/etc/systemd/system';
const CONTENT =
  '[Unit]\nDescription=alias\n[Service]\nExecStart=/bin/sleep infinity\n' +
  '[Install]\nWantedBy=multi-user.target\nAlias=ta-al@%i.service\n';

const { plan, apply } = unitBatch(host);

/** Every link to the template's file under /etc, as `<path> -> <target>`, sorted. */
const templateLinks = async (): Promise<string> =>
  (await host().exec(`find ${ETC} -maxdepth 2 -type l -lname '*/ta@.service' -printf '%p -> %l\\n' | sort`)).stdout;

// Regression: the plan said "the apply re-enables it"; the apply reenabled, its read-back failed in the same words,
// and its undo ran, so the apply failed after changing the instance.
test("an instance's alias by hand: the apply refuses it alone, unchanged, then converges once removed", async () => {
  const template = unitSpec('ta@.service', CONTENT, { enabled: false, started: false });
  const stopped = {
    t: { kind: 'systemd-unit', spec: template },
    i: { kind: 'systemd-instance', spec: instanceSpec('ta@a.service', { started: false }), after: ['t'] },
  };
  expect(await apply(stopped)).toMatchObject({ code: 0 });
  const alias = `${ETC}/ta-other@a.service`;
  expect((await host().exec(`ln -s ${ETC}/ta@.service ${alias}`)).code).toBe(0);
  const linked = await templateLinks();
  expect(linked).toContain(`${alias} -> ${ETC}/ta@.service`);

  // The batch: the instance now declared started too, and a plain unit of its own.
  const objects = {
    ...stopped,
    i: { ...stopped.i, spec: instanceSpec('ta@a.service') },
    p: { kind: 'systemd-unit', spec: unitSpec('ta-plain.service', CONTENT.replace(/Alias=.*\n/, '')) },
  };
  const says =
    `cannot compare links: ${alias}, an alias its [Install] does not make, stays through systemctl disable and ` +
    'reenable (measured); the apply refuses it, removing that alias by hand ends it';
  const first = (await plan(objects)).result ?? {};
  expect(first).toMatchObject({ 'i.in_sync': 'false', 'i.summary': expect.stringContaining(says) });

  const applied = await apply(objects);
  expect(applied.code).not.toBe(0);
  expect(applied.stderr).toContain(
    `i: not applied: ta@a.service on 127.0.0.1:${host().port} has an alias its [Install] does not make: ${alias}, ` +
      'which systemd gives it as a name too and systemctl disable and reenable leave (measured); remove it by ' +
      `hand (rm ${alias}) and apply again; nothing was changed`,
  );
  expect(applied.stderr).not.toMatch(/^i: (reenabled|enabled|started|undone)/m);
  expect(await templateLinks()).toBe(linked);
  expect((await unit.show('ta@a.service')).ActiveState).toBe('inactive');
  expect((await unit.show('ta-plain.service')).ActiveState).toBe('active');
  expect((await plan(objects)).result).toMatchObject({ '.drifted': 'i', 'p.in_sync': 'true' });

  expect((await host().exec(`rm ${alias}`)).code).toBe(0);
  expect(await apply(objects)).toMatchObject({ code: 0 });
  expect((await unit.show('ta@a.service')).ActiveState).toBe('active');
  expect((await plan(objects)).result).toMatchObject({ '.drifted': '', '.in_sync': 'true' });
});

// Regression: is-enabled says `disabled` once the instance's own links are gone (measured), so the plan said
// "enabled is false, want true", and the apply re-enabled it and failed its read-back in the alias's words.
test('an alias by hand of an instance not enabled: the plan says the apply refuses it, and it does', async () => {
  const template = unitSpec('tb@.service', CONTENT.replace('ta-al', 'tb-al'), { enabled: false, started: false });
  expect((await unit.run('apply', template)).code).toBe(0);
  const alias = `${ETC}/tb-other@a.service`;
  expect((await host().exec(`ln -s ${ETC}/tb@.service ${alias} && systemctl daemon-reload`)).code).toBe(0);
  expect((await host().exec('systemctl is-enabled tb@a.service')).stdout.trim()).toBe('disabled');
  const objects = { i: { kind: 'systemd-instance', spec: instanceSpec('tb@a.service', { started: false }) } };
  expect((await plan(objects)).result?.['i.summary']).toBe(
    `unit tb@a.service on 127.0.0.1:${host().port} (inactive/dead): cannot compare links: ${alias}, an alias its ` +
      '[Install] does not make, stays through systemctl disable and reenable (measured); the apply refuses it, ' +
      'removing that alias by hand ends it',
  );
  const applied = await apply(objects);
  expect(applied).toMatchObject({
    code: 1,
    stderr: expect.stringContaining(`has an alias its [Install] does not make`),
  });
  expect(applied.stderr).not.toMatch(/^i: (reenabled|enabled|disabled)/m);
  const links = await host().exec(`find ${ETC} -maxdepth 2 -type l -lname '*/tb@.service' -printf '%p\\n'`);
  expect(links.stdout).toBe(`${alias}\n`);
});
