/**
 * A host drop-in (one the stack does not declare) removed by hand under a process started by hand with it, on real
 * systemd 252, with or without a daemon-reload after. Regression: no file the unit loads changed (each one's ctime
 * older than the process), so the plan said in sync, and the apply left the process running the removed drop-in's
 * content. The drop-in directory's own ctime dates the removal now: the plan says the restart is pending, and one
 * apply restarts the unit and leaves the plan in sync. A directory removed whole leaves nothing to date: the run the
 * stack's record names is judged by its recorded content, any other run reads in sync (README, Limits).
 */
import { unitSpec, useSystemdHost } from '../../support/unit-host';

jest.setTimeout(120_000);

const { host, unit } = useSystemdHost();
const DIR = '/etc/systemd/system';

const service =
  '[Service]\nEnvironment=V=declared\nExecStart=/bin/sleep infinity\n[Install]\nWantedBy=multi-user.target\n';

/** The V= of the unit's running process, from /proc. */
const runningVariant = async (name: string): Promise<string> =>
  (
    await host().exec(
      `p=$(systemctl show -p MainPID --value -- ${name}); tr '\\0' '\\n' < /proc/$p/environ | sed -n 's/^V=//p'`,
    )
  ).stdout.trim();

test.each([
  ['and systemd reloaded after', 'rm', true],
  ['with no reload after', 'rm', false],
  ['by a rename out of *.conf, reloaded after', 'mv', true],
])(
  'a host drop-in removed %s under a process started by hand with it reads as a pending restart',
  async (_, how, reload) => {
    const name = `rd-${how}-${reload ? 'r' : 'n'}.service`;
    const spec = unitSpec(name, service);
    expect((await unit.run('apply', spec)).code).toBe(0);
    const conf = `${DIR}/${name}.d/50-host.conf`;
    const made = `mkdir -p ${DIR}/${name}.d && printf '[Service]\\nEnvironment=V=host\\n' > ${conf}`;
    expect((await host().exec(`${made} && systemctl daemon-reload && systemctl restart ${name}`)).code).toBe(0);
    expect(await runningVariant(name)).toBe('host');

    const remove = how === 'rm' ? `rm ${conf}` : `mv ${conf} ${conf}.disabled`;
    expect((await host().exec(`${remove}${reload ? ' && systemctl daemon-reload' : ''}`)).code).toBe(0);
    expect(await runningVariant(name)).toBe('host');
    const planned = (await unit.run('read', spec)).result;
    expect(planned?.in_sync).toBe('false');
    expect(planned?.summary).toContain('restart pending');

    const applied = await unit.run('apply', spec);
    expect(applied).toMatchObject({ code: 0, stderr: expect.stringMatching(/: restarted$/m) });
    expect(await runningVariant(name)).toBe('declared');
    expect((await unit.run('read', spec)).result?.in_sync).toBe('true');
  },
);

describe('a drop-in directory removed whole (README, Limits)', () => {
  const hostDropIn = (name: string) =>
    `mkdir -p ${DIR}/${name}.d && printf '[Service]\\nEnvironment=V=host\\n' > ${DIR}/${name}.d/50-host.conf`;

  test('under the run the stack started and recorded with it, the plan names the pending restart', async () => {
    const name = 'rd-dir-stack.service';
    const spec = unitSpec(name, service);
    expect((await host().exec(hostDropIn(name))).code).toBe(0);
    expect((await unit.run('apply', spec)).code).toBe(0);
    expect(await runningVariant(name)).toBe('host');
    expect((await host().exec(`rm -r ${DIR}/${name}.d && systemctl daemon-reload`)).code).toBe(0);
    const planned = (await unit.run('read', spec)).result;
    expect(planned?.summary).toContain('restart pending');
    expect((await unit.run('apply', spec)).code).toBe(0);
    expect(await runningVariant(name)).toBe('declared');
  });

  test('under a run started by hand with it, the plan reads in sync: nothing it reads changed', async () => {
    const name = 'rd-dir-hand.service';
    const spec = unitSpec(name, service);
    expect((await unit.run('apply', spec)).code).toBe(0);
    const made = `${hostDropIn(name)} && systemctl daemon-reload && systemctl restart ${name}`;
    expect((await host().exec(made)).code).toBe(0);
    expect((await host().exec(`rm -r ${DIR}/${name}.d && systemctl daemon-reload`)).code).toBe(0);
    expect(await runningVariant(name)).toBe('host');
    expect((await unit.run('read', spec)).result?.in_sync).toBe('true');
  });
});
