/**
 * A template the stack declares, rewritten by the apply while an instance the stack does not declare runs (started by
 * hand), on real systemd 252. Regression: the plan named the template's file alone, the apply rewrote it and restarted
 * nothing of it, and the next plan was in sync while that instance ran the old file (a plain unit the apply rewrites
 * is restarted). Now the plan names it and the apply restarts it, and so after an apply stopped before that restart.
 */
import { unitBatch, unitSpec, useSystemdHost } from '../../support/unit-host';

jest.setTimeout(120_000);

const { host } = useSystemdHost();
const { plan, apply } = unitBatch(host);
const sleeper = (v: string) =>
  `[Service]\nEnvironment=TX=${v}\nExecStart=/bin/sleep infinity\n[Install]\nWantedBy=multi-user.target\n`;
const template = (v: string) => ({
  t: { kind: 'systemd-unit', spec: unitSpec('tx@.service', sleeper(v), { enabled: false, started: false }) },
});

/** The TX= of an instance's running process, from /proc. */
const runningVariant = async (name: string): Promise<string> =>
  (
    await host().exec(
      `p=$(systemctl show -p MainPID --value -- ${name}); tr '\\0' '\\n' < /proc/$p/environ | sed -n 's/^TX=//p'`,
    )
  ).stdout.trim();

test('a rewritten template restarts the running instances the stack does not declare, as its plan says', async () => {
  expect(await apply(template('one'))).toMatchObject({ code: 0 });
  expect((await host().exec('systemctl start tx@x.service')).code).toBe(0);
  expect(await runningVariant('tx@x.service')).toBe('one');

  const planned = await plan(template('two'));
  expect(planned.result?.['t.summary']).toContain(
    'tx@x.service, which this stack does not declare, runs without its content: the apply restarts it with it',
  );
  const applied = await apply(template('two'));
  expect(applied).toMatchObject({ code: 0 });
  expect(applied.stderr).toMatch(/^t: restarted tx@x\.service with the new template$/m);
  expect(await runningVariant('tx@x.service')).toBe('two');
  expect((await plan(template('two'))).result).toMatchObject({ '.in_sync': 'true' });

  // An apply stopped after its write and reload, before the restart: the file as declared, the process older.
  const write = `printf '%s' '${sleeper('three')}' > /etc/systemd/system/tx@.service && systemctl daemon-reload`;
  expect((await host().exec(`sleep 0.1 && ${write}`)).code).toBe(0);
  expect((await plan(template('three'))).result?.['t.summary']).toContain(
    'tx@x.service, which this stack does not declare, runs without its content',
  );
  expect(await apply(template('three'))).toMatchObject({ code: 0 });
  expect(await runningVariant('tx@x.service')).toBe('three');
  expect((await plan(template('three'))).result).toMatchObject({ '.in_sync': 'true' });
});

// A template file removed by hand under a running instance: the apply writes it again and restarts that instance
// with it, so the plan must say so; it said only that the template is absent.
test('a template removed by hand under an instance it does not declare names the restart its write makes', async () => {
  const declared = {
    t: { kind: 'systemd-unit', spec: unitSpec('ty@.service', sleeper('one'), { enabled: false, started: false }) },
  };
  expect(await apply(declared)).toMatchObject({ code: 0 });
  expect((await host().exec('systemctl start ty@x.service && rm /etc/systemd/system/ty@.service')).code).toBe(0);

  const planned = await plan(declared);
  expect(planned.result?.['t.summary']).toMatch(/^unit ty@\.service on \S+ is absent: /);
  expect(planned.result?.['t.summary']).toContain('ty@x.service, which this stack does not declare, runs without');
  const pid = (await host().exec('systemctl show -p MainPID --value ty@x.service')).stdout.trim();
  expect(await apply(declared)).toMatchObject({ code: 0 });
  expect((await host().exec('systemctl show -p MainPID --value ty@x.service')).stdout.trim()).not.toBe(pid);
  expect((await plan(declared)).result).toMatchObject({ '.in_sync': 'true' });
});
