/**
 * A template's drop-in the apply writes while an instance of that template the stack does not declare runs (started
 * by hand), on real systemd 252. Regression: the plan named the drop-in alone, the apply wrote it and restarted only
 * the declared instances, and the next plan was in sync while the undeclared one ran without the drop-in's content (a
 * plain unit's drop-in restarts its running unit, declared or not). Now the plan names it and the apply restarts it,
 * and so after an apply stopped between its write and that restart.
 */
import { instanceSpec, unitBatch, unitSpec, useSystemdHost } from '../../support/unit-host';

jest.setTimeout(120_000);

const { host } = useSystemdHost();
const { plan, apply } = unitBatch(host);
const sleeper = '[Service]\nExecStart=/bin/sleep infinity\n[Install]\nWantedBy=multi-user.target\n';
const DIR = '/etc/systemd/system';

/** The TR= of an instance's running process, from /proc. */
const runningVariant = async (name: string): Promise<string> =>
  (
    await host().exec(
      `p=$(systemctl show -p MainPID --value -- ${name}); tr '\\0' '\\n' < /proc/$p/environ | sed -n 's/^TR=//p'`,
    )
  ).stdout.trim();

const dropIn = (value: string) => ({
  kind: 'systemd-drop-in',
  spec: {
    unit: 'tr@.service',
    name: '10-env',
    directory: DIR,
    content: `[Service]\nEnvironment=TR=${value}\n`,
    startTimeoutSeconds: 90,
  },
});

test("a template's drop-in restarts the running instances the stack does not declare, named by the plan", async () => {
  const base = {
    t: { kind: 'systemd-unit', spec: unitSpec('tr@.service', sleeper, { enabled: false, started: false }) },
    i: { kind: 'systemd-instance', spec: instanceSpec('tr@a.service'), after: ['t'] },
  };
  expect(await apply(base)).toMatchObject({ code: 0 });
  expect((await host().exec('systemctl start tr@x.service')).code).toBe(0);

  const objects = { ...base, d: dropIn('one') };
  const planned = await plan(objects);
  expect(planned.result?.['d.summary']).toContain(
    'tr@x.service, which this stack does not declare, runs without its content: the apply restarts it with it',
  );
  expect(planned.result?.['d.summary']).not.toContain('tr@a.service');
  const drifted = (planned.result?.['.drifted'] ?? '').split(',');
  const applied = await apply(Object.fromEntries(Object.entries(objects).filter(([name]) => drifted.includes(name))));
  expect(applied).toMatchObject({ code: 0 });
  expect(await runningVariant('tr@x.service')).toBe('one');
  expect(await runningVariant('tr@a.service')).toBe('one');
  expect((await plan(objects)).result).toMatchObject({ '.in_sync': 'true' });

  // An apply stopped after its write and reload, before the restarts: the file as declared, the process older.
  const next = { ...base, d: dropIn('two') };
  const conf = `${DIR}/tr@.service.d/10-env.conf`;
  const write = `printf '[Service]\\nEnvironment=TR=two\\n' > ${conf} && systemctl daemon-reload`;
  expect((await host().exec(`sleep 0.1 && ${write}`)).code).toBe(0);
  const stopped = await plan(next);
  expect(stopped.result?.['d.summary']).toContain('tr@x.service, which this stack does not declare, runs without');
  const again = (stopped.result?.['.drifted'] ?? '').split(',');
  expect(await apply(Object.fromEntries(Object.entries(next).filter(([name]) => again.includes(name))))).toMatchObject({
    code: 0,
  });
  expect(await runningVariant('tr@x.service')).toBe('two');
  expect((await plan(next)).result).toMatchObject({ '.in_sync': 'true' });
});
