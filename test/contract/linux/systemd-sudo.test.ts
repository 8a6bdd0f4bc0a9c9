/**
 * A non-root SSH user on real systemd 252 (issue 16 item 3b): with the sudoers line the README
 * names (`/bin/sh` as root, which is root) it applies and destroys units; with an allowlist of
 * `systemctl` and `install` every privileged step was refused as `sudo: a password is required`,
 * and now the refusal names the line the user needs, having changed nothing.
 */
import { hostTarget, unitSpec, useSystemdHost } from '../../support/unit-host';

jest.setTimeout(120_000);

const { host, unit } = useSystemdHost();

const service = '[Service]\nExecStart=/bin/sleep infinity\n\n[Install]\nWantedBy=multi-user.target\n';
const asDeploy = () => hostTarget(host(), { user: 'deploy', sudo: true });
const sudoers = (line: string) => host().exec(`echo '${line}' > /etc/sudoers.d/deploy && visudo -cq`);

afterEach(() => sudoers('deploy ALL=(ALL) NOPASSWD: ALL'));

test('a user allowed /bin/sh as root by the documented sudoers line applies and destroys a unit', async () => {
  await sudoers('deploy ALL=(root) NOPASSWD: /bin/sh');
  const spec = unitSpec('as-deploy.service', service);
  expect(await unit.run('apply', spec, asDeploy())).toMatchObject({ code: 0 });
  expect(await unit.show('as-deploy.service')).toMatchObject({ ActiveState: 'active', UnitFileState: 'enabled' });
  expect((await unit.run('read', spec, asDeploy())).result?.in_sync).toBe('true');
  expect(await unit.run('destroy', spec, asDeploy())).toMatchObject({ code: 0 });
  expect(await unit.show('as-deploy.service')).toMatchObject({ LoadState: 'not-found' });
});

test('an allowlist of systemctl and install fails naming the sudoers line needed, and changes nothing', async () => {
  await sudoers('deploy ALL=(root) NOPASSWD: /usr/bin/systemctl, /usr/bin/install');
  const spec = unitSpec('allowlisted.service', service);
  const failed = await unit.run('apply', spec, asDeploy());
  expect(failed.code).toBe(1);
  expect(failed.stderr).toMatch(
    new RegExp(
      /^systemd-unit apply: allowlisted.service on 127.0.0.1:\d+ was not applied: /.source +
        /sudo on 127.0.0.1:\d+ refused to run a step as root: sudo: a password is required; /.source +
        /every privileged step is one `sudo -n sh`, so deploy needs /.source +
        /"deploy ALL=\(root\) NOPASSWD: \/bin\/sh" in \/etc\/sudoers.d\/ \(that is root, as managing units is\), /
          .source +
        /or connect as root; the unit is now inactive\/dead$/.source,
    ),
  );
  expect(failed.stderr).not.toMatch(/wrote|restored|undo/);
  expect((await host().exec('test -e /etc/systemd/system/allowlisted.service; echo $?')).stdout.trim()).toBe('1');
});

test('a mark the sudo user cannot read fails its destroy naming it, never guessed, and removes nothing', async () => {
  // Issue 27: a destroy acts only on a unit carrying the stack's mark; one it cannot read is not guessed at.
  const spec = unitSpec('hidden-mark.service', service);
  expect(await unit.run('apply', spec, asDeploy())).toMatchObject({ code: 0 });
  await host().exec('chmod 0700 /var/lib/cdktf-homelab/restart-on');
  const failed = await unit.run('destroy', spec, asDeploy());
  await host().exec('chmod 0755 /var/lib/cdktf-homelab/restart-on');
  expect(failed.code).toBe(1);
  expect(failed.stderr).toContain('refused read access to /var/lib/cdktf-homelab/restart-on/hidden-mark.service');
  expect(await unit.show('hidden-mark.service')).toMatchObject({ ActiveState: 'active', UnitFileState: 'enabled' });
});
