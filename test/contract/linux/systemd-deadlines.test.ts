/**
 * What apply says when it cannot finish, on real systemd 252: a Type=notify unit that never
 * notifies fails within its deadline with its journal instead of hanging, a start queued behind
 * another unit's job names that job and is never queued again out of order, a sudo that wants a
 * password logs nothing it did not do, and a connection lost mid-apply says so.
 */
import { appliedMark, hostTarget, unitSpec, useSystemdHost } from '../../support/unit-host';

jest.setTimeout(120_000);

const { host, unit } = useSystemdHost();

const neverReady = '[Service]\nType=notify\nExecStart=/bin/sh -c "echo waiting for nothing; exec sleep infinity"\n';

test('a notify unit that never gets ready fails at its deadline with its journal, stopped and removed', async () => {
  const failed = await unit.run(
    'apply',
    unitSpec('never-ready.service', neverReady, { enabled: false, startTimeoutSeconds: 3 }),
  );
  expect(failed.code).toBe(1);
  expect(failed.stderr).toMatch(/never-ready.service on 127.0.0.1:\d+: journal: .*waiting for nothing/);
  expect(failed.stderr).toMatch(
    new RegExp(
      /was not applied: never-ready.service did not become active: /.source +
        /it is still activating\/start after 3 s \(startTimeoutSeconds\); /.source +
        /its last \d+ journal lines are above, .*; /.source +
        /restored the host by stopping the unit and removing the new unit file; /.source +
        /the unit is now (inactive|failed)\//.source,
    ),
  );
  expect(await unit.show('never-ready.service')).toMatchObject({ LoadState: 'not-found' });
});

test('a start still queued behind another job at its deadline names the job it waits for', async () => {
  await host().exec(
    `printf '[Service]\\nType=oneshot\\nExecStart=/bin/sleep 60\\n' > /etc/systemd/system/blocker.service && ` +
      'systemctl daemon-reload && systemctl start --no-block blocker.service',
  );
  const behind = '[Unit]\nAfter=blocker.service\n[Service]\nExecStart=/bin/sleep infinity\n';
  const failed = await unit.run(
    'apply',
    unitSpec('behind.service', behind, { enabled: false, startTimeoutSeconds: 3 }),
  );
  expect(failed.stderr).toMatch(
    new RegExp(
      /behind.service did not become active: it is still inactive\/dead after 3 s \(startTimeoutSeconds\); /.source +
        /its start job \d+ is still waiting for job \d+ \(blocker.service\/start\); /.source,
    ),
  );
  expect(failed.stderr).not.toMatch(/cancelled it|queued it again/);
  expect(await unit.show('behind.service')).toMatchObject({ LoadState: 'not-found' });
  await host().exec('systemctl stop blocker.service; rm /etc/systemd/system/blocker.service; systemctl daemon-reload');
});

test('a started unit activating past its deadline reads as not running, for how long', async () => {
  const stuck = unitSpec('stuck.service', neverReady, { enabled: false, startTimeoutSeconds: 1 });
  await host().exec(
    `printf '%s' '${neverReady}' > /etc/systemd/system/stuck.service && ${appliedMark(stuck)} && ` +
      'systemctl daemon-reload && systemctl start --no-block stuck.service',
  );
  await unit.waitFor('stuck.service', 'activating/start');
  await new Promise((resolve) => setTimeout(resolve, 2500));
  const read = (await unit.run('read', stuck)).result;
  expect(read?.summary).toMatch(
    new RegExp(
      /^unit stuck.service on 127.0.0.1:\d+ \(activating\/start for \d+ s\) differs: /.source +
        /running is "activating\/start for \d+ s", want "running"$/.source,
    ),
  );
  await host().exec('systemctl stop stuck.service');
});

test('a sudo that wants a password fails naming sudo, and logs no write and no undo it did not do', async () => {
  await host().exec(`echo 'deploy ALL=(ALL) ALL' > /etc/sudoers.d/deploy`);
  try {
    const spec = unitSpec('needs-password.service', '[Service]\nExecStart=/bin/sleep infinity\n', { enabled: false });
    const failed = await unit.run('apply', spec, hostTarget(host(), { user: 'deploy', sudo: true }));
    expect(failed.code).toBe(1);
    expect(failed.stderr).not.toMatch(/wrote|writing|restored|undo/);
    expect(failed.stderr).toMatch(
      new RegExp(
        /^systemd-unit apply: needs-password.service on 127.0.0.1:\d+ was not applied: /.source +
          /sudo on 127.0.0.1:\d+ refused to run the root helper: sudo: a password is required; /.source +
          /every privileged step goes through \/usr\/local\/sbin\/cdktf-homelab-root, so deploy needs /.source +
          /"deploy ALL=\(root\) NOPASSWD: \/usr\/local\/sbin\/cdktf-homelab-root"/.source,
      ),
    );
  } finally {
    await host().exec(`echo 'deploy ALL=(ALL) NOPASSWD: ALL' > /etc/sudoers.d/deploy`);
  }
});

test('a connection lost during apply says so, and that the next apply converges the unit', async () => {
  const spec = unitSpec('cut.service', neverReady, { enabled: false, startTimeoutSeconds: 30 });
  const applying = unit.run('apply', spec, hostTarget(host(), { user: 'deploy', sudo: true }));
  await unit.waitFor('cut.service', 'activating/start', 20_000);
  await host().exec(`pkill -f 'sshd: deploy'`);
  const failed = await applying;
  expect(failed.stderr).toMatch(
    new RegExp(
      /^systemd-unit apply: SSH connection to 127.0.0.1:\d+ lost during apply: .+; /.source +
        /the unit may be half-applied: the next apply converges it$/.source,
      'm',
    ),
  );
  await host().exec('systemctl stop cut.service; rm -f /etc/systemd/system/cut.service; systemctl daemon-reload');
});
