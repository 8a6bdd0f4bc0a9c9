/**
 * The link to the host lost while apply waits for a started unit to settle: every sshd process
 * killed, or the connection cut on the way. Apply must say the connection to that host was lost
 * and that the unit may be half-applied (not attempt an undo over a dead link and report it as a
 * unit failure), and the next apply must converge.
 */
import { startRelay, type Relay } from '../support/tcp-relay';
import { hostTarget, unitSpec, useSystemdHost } from '../support/unit-host';
import { pollUntil } from '../support/unit-files';

jest.setTimeout(180_000);

const { host, unit } = useSystemdHost();
let relay: Relay;

beforeAll(async () => {
  relay = await startRelay(host().port);
});
afterAll(() => relay?.close());

/**
 * Kills every sshd, listener and sessions (ours included), from outside any session; systemd restarts it.
 * Done when a new sshd (another MainPID) answers: `systemd-run` returns before its pkill runs, so an
 * `is-active` right after it read the old sshd, and the next command met the restarting one (ECONNREFUSED,
 * seen in CI at load 10).
 */
const killSshd = async () => {
  const mainPid = async () => {
    const { stdout } = await host().exec('systemctl show -p MainPID -p ActiveState ssh.service');
    const pid = /^MainPID=(\d+)$/m.exec(stdout)?.[1];
    return /^ActiveState=active$/m.test(stdout) && pid !== '0' ? pid : undefined;
  };
  const before = await mainPid();
  // The exec's own session dies with the rest, so it may end without an answer.
  await host()
    .exec('systemd-run --quiet --collect -- pkill -KILL -x sshd')
    .catch((error: Error) => error);
  await pollUntil('a new sshd answers after the old one was killed', () =>
    mainPid().then(
      (pid) => (pid !== undefined && pid !== before ? true : undefined),
      () => undefined,
    ),
  );
};

const ways = [
  { how: 'every sshd process is killed', viaRelay: false, lose: killSshd },
  { how: 'the connection is cut', viaRelay: true, lose: async () => relay.cut() },
];

test.each(ways)(
  'apply says the connection to the host was lost when $how during the settle, and the next apply converges',
  async ({ how, viaRelay, lose }) => {
    const name = `settle-${viaRelay ? 'cut' : 'sshd'}.service`;
    const gate = `/run/${name}.go`;
    // The unit stays activating until the test opens the gate, so the loss lands inside the settle.
    const spec = unitSpec(
      name,
      `[Service]\nExecStartPre=/bin/sh -c 'until [ -e ${gate} ]; do sleep 0.1; done'\nExecStart=/bin/sleep infinity\n`,
      { enabled: false, startTimeoutSeconds: 120 },
    );
    const target = hostTarget(host(), viaRelay ? { port: relay.port } : {});
    const applying = unit.run('apply', spec, target);
    await unit.waitFor(name, 'activating/start-pre', 60_000);
    await lose();
    const failed = await applying;
    console.log(`${how}: ${failed.stderr}`);
    expect(failed.code).toBe(1);
    expect(failed.stderr).toMatch(
      new RegExp(
        `^systemd-unit apply: SSH connection to 127\\.0\\.0\\.1:${target.port} lost during apply: .+; ` +
          'the unit may be half-applied: the next apply converges it$',
        'm',
      ),
    );
    expect(failed.stderr).not.toMatch(/restored|undo/);

    await host().exec(`touch ${gate}`);
    expect(await unit.run('apply', spec)).toMatchObject({ code: 0 });
    expect((await unit.run('read', spec)).result).toMatchObject({ in_sync: 'true' });
    expect(await unit.show(name)).toMatchObject({ ActiveState: 'active', SubState: 'running' });
    expect((await unit.run('destroy', spec)).code).toBe(0);
  },
);
