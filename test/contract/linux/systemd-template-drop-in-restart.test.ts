/**
 * A template's drop-in the apply writes while a declared instance of that template runs, on real systemd 252.
 * Regression: the plan of {template, instance, drop-in} said "1 of 3 objects are not in sync: d: drop-in ... is absent"
 * (the instance in sync); the apply wrote the drop-in and reloaded, restarting nothing (a template's drop-in restarts
 * no unit of its own, and the instance was not drifted, so not in the apply); the next plan said the instance's
 * restart was pending, and its process ran without the drop-in's Environment= in between: one apply did not converge.
 * Now the plan names the instance too, and the apply restarts it with the drop-in.
 */
import { instanceSpec, unitBatch, unitSpec, useSystemdHost } from '../../support/unit-host';

jest.setTimeout(120_000);

const { host } = useSystemdHost();
const { plan, apply } = unitBatch(host);
const sleeper = '[Service]\nExecStart=/bin/sleep infinity\n[Install]\nWantedBy=multi-user.target\n';

test("a template's new drop-in restarts its declared running instances in the same apply", async () => {
  const base = {
    t: { kind: 'systemd-unit', spec: unitSpec('tp@.service', sleeper, { enabled: false, started: false }) },
    i: { kind: 'systemd-instance', spec: instanceSpec('tp@a.service'), after: ['t'] },
  };
  expect(await apply(base)).toMatchObject({ code: 0 });
  const spec = {
    unit: 'tp@.service',
    name: '10-env',
    directory: '/etc/systemd/system',
    content: '[Service]\nEnvironment=TP=on\n',
    startTimeoutSeconds: 90,
  };
  const objects = { ...base, d: { kind: 'systemd-drop-in', spec } };
  const planned = await plan(objects);
  expect(planned.result?.['i.summary']).toContain(
    'its process runs without /etc/systemd/system/tp@.service.d/10-env.conf, which the apply writes',
  );
  const drifted = (planned.result?.['.drifted'] ?? '').split(',');
  expect(drifted.sort()).toEqual(['d', 'i']);
  // As Terraform does: only the drifted objects go to the apply.
  const applied = await apply(Object.fromEntries(Object.entries(objects).filter(([name]) => drifted.includes(name))));
  expect(applied).toMatchObject({ code: 0, stderr: expect.stringMatching(/^i: restarted/m) });
  const environ = await host().exec("tr '\\0' '\\n' < /proc/$(systemctl show -p MainPID --value tp@a.service)/environ");
  expect(environ.stdout).toContain('TP=on');
  expect((await plan(objects)).result).toMatchObject({ '.in_sync': 'true' });
});
