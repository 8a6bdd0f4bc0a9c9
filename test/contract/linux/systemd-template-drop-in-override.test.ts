/**
 * A template's drop-in replaced for its instance on real systemd 252: a same-name file in a directory systemd ranks
 * higher (`system.control`) or in the instance's own `.d/`. `show` refuses a template's name, so the drop-in was read
 * with no DropInPaths to judge it by, while the instance listed only the hand file and ran it. Regression: the plan
 * said template, instance and drop-in in sync. Now both the drop-in and the instance name that file, and the apply
 * refuses them in the same words, changing nothing.
 */
import { instanceSpec, unitBatch, unitSpec, useSystemdHost } from '../../support/unit-host';

jest.setTimeout(120_000);

const { host } = useSystemdHost();
const { plan, apply } = unitBatch(host);
const exec = async (cmd: string) => (await host().exec(cmd)).stdout.trim();
const DIR = '/etc/systemd/system';

const service = (v: string) =>
  `[Unit]\nDescription=template drop-in\n[Service]\nEnvironment=V=${v}\nExecStart=/bin/sleep infinity\n` +
  '[Install]\nWantedBy=multi-user.target\n';

/** The V= of the unit's running process, from /proc. */
const runningVariant = (name: string) =>
  exec(`p=$(systemctl show -p MainPID --value -- ${name}); tr '\\0' '\\n' < /proc/$p/environ | sed -n 's/^V=//p'`);

/** A template, one instance of it, and a drop-in of the template, as a stack declares them. */
const declared = (stem: string) => ({
  t: { kind: 'systemd-unit', spec: unitSpec(`${stem}@.service`, service('t'), { enabled: false, started: false }) },
  i: { kind: 'systemd-instance', spec: instanceSpec(`${stem}@a.service`), after: ['t'] },
  d: {
    kind: 'systemd-drop-in',
    spec: {
      unit: `${stem}@.service`,
      name: '10-v',
      directory: DIR,
      content: '[Service]\nEnvironment=V=declared\n',
      startTimeoutSeconds: 30,
    },
    after: ['t'],
  },
});

test.each([
  [
    'system.control',
    'ht-o',
    '/etc/systemd/system.control/ht-o@.service.d',
    ', or declare directory /etc/systemd/system.control',
  ],
  ["the instance's own .d/", 'ht-p', `${DIR}/ht-p@a.service.d`, ''],
])("a template's drop-in replaced for its instance by a hand file in %s differs and is refused", async (...row) => {
  const [, stem, where, declareHint] = row;
  const [instance, winner, file] = [`${stem}@a.service`, `${where}/10-v.conf`, `${DIR}/${stem}@.service.d/10-v.conf`];
  const objects = declared(stem);
  expect(await apply(objects)).toMatchObject({ code: 0 });
  expect(await runningVariant(instance)).toBe('declared');
  expect((await plan(objects)).result).toMatchObject({ '.in_sync': 'true' });
  await host().exec(
    `mkdir -p ${where} && printf '[Service]\\nEnvironment=V=hand\\n' > ${winner} && ` +
      `systemctl daemon-reload && systemctl restart ${instance}`,
  );
  expect(await exec(`systemctl show -p DropInPaths --value ${instance}`)).toBe(winner);
  expect(await runningVariant(instance)).toBe('hand');

  const words =
    `systemd loads ${winner} for ${instance} instead of ${file}, a file the stack does not manage: ` +
    `remove it${declareHint}`;
  const planned = (await plan(objects)).result ?? {};
  expect(planned).toMatchObject({ 't.in_sync': 'true', 'd.in_sync': 'false', 'i.in_sync': 'false' });
  expect(planned['d.summary']).toContain(`overridden: ${words}`);
  expect(planned['i.summary']).toContain(`overridden: ${words}`);

  const applied = await apply(objects);
  expect(applied.code).not.toBe(0);
  expect(applied.stderr).toContain(`drop-in ${file} on 127.0.0.1:${host().port} is overridden: ${words}; nothing`);
  expect(applied.stderr).toMatch(/^i: .*is overridden/m);
  expect(await runningVariant(instance)).toBe('hand');

  // What the words say to do: with the hand file gone (and the instance restarted by hand), all is in sync again.
  await host().exec(`rm ${winner} && systemctl daemon-reload && systemctl restart ${instance}`);
  expect((await plan(objects)).result).toMatchObject({ '.in_sync': 'true' });
  expect(await runningVariant(instance)).toBe('declared');
});
