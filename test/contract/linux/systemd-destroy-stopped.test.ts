/**
 * A destroy stopped between its removal and its daemon-reload, on real systemd 252, then run again (Terraform
 * keeps the object in the state and runs its destroy hook at the next apply). The stop is the SSH session lost at
 * the reload (a `systemctl` ahead of systemd's on root's PATH kills its session's sshd): the file and the stack's
 * mark are gone, pid1 still has the file loaded. Regression: the second destroy said "already absent" and exit 0,
 * reloading nothing, so a restart of the unit still ran it with the removed drop-in, a removed unit stayed
 * loaded (and startable) from a file that was no longer there, and a destroyed instance stayed wanted by its target
 * in pid1 (`systemctl start multi-user.target` started it again).
 */
import { linuxDomain } from '../../../handlers/linux/domain';
import { invoke } from '../../support/run-handler';
import { useSessionStopper } from '../../support/session-stopper';
import { hostTarget, instanceSpec, KEY_ENV, unitSpec, useSystemdHost } from '../../support/unit-host';

jest.setTimeout(120_000);

const { host, unit } = useSystemdHost();
const stopper = useSessionStopper(host);
const DIR = '/etc/systemd/system';
const sleeper = '[Service]\nExecStart=/bin/sleep infinity\n[Install]\nWantedBy=multi-user.target\n';

const dropIn = (verb: 'apply' | 'destroy', spec: object) =>
  invoke(linuxDomain(), 'systemd-drop-in', verb, hostTarget(host()), spec, { [KEY_ENV]: host().privateKey });

test('a drop-in destroy stopped before its reload is finished by the next destroy: the restart drops it', async () => {
  expect((await unit.run('apply', unitSpec('dsr.service', sleeper))).code).toBe(0);
  const identity = { unit: 'dsr.service', name: '10-env', directory: DIR };
  const spec = { ...identity, content: '[Service]\nEnvironment=DSR=on\n', startTimeoutSeconds: 90 };
  expect((await dropIn('apply', spec)).code).toBe(0);
  expect((await unit.show('dsr.service', 'Environment')).Environment).toBe('DSR=on');

  await stopper.put('daemon-reload');
  const stopped = await dropIn('destroy', identity);
  expect(stopped.code).toBe(1);
  expect(await stopper.fired()).toBe(true); // it stopped that destroy, at its reload
  expect((await host().exec(`test -e ${DIR}/dsr.service.d/10-env.conf`)).code).not.toBe(0);

  const again = await dropIn('destroy', identity);
  expect(again.code).toBe(0);
  await host().exec('systemctl restart dsr.service');
  expect(await unit.show('dsr.service', 'NeedDaemonReload,DropInPaths,Environment')).toEqual({
    NeedDaemonReload: 'no',
    DropInPaths: '',
    Environment: '',
  });
  expect(again.stderr).toMatch(
    /10-env\.conf on 127\.0\.0\.1:\d+: already absent; systemd still had it loaded: reloaded/,
  );
});

test('a unit destroy stopped before its reload is finished by the next destroy: pid1 lets go of it', async () => {
  const spec = unitSpec('dsu.service', sleeper);
  expect((await unit.run('apply', spec)).code).toBe(0);

  await stopper.put('daemon-reload');
  const stopped = await unit.run('destroy', spec);
  expect(stopped.code).toBe(1);
  expect(await stopper.fired()).toBe(true); // it stopped that destroy, at its reload
  expect((await host().exec(`test -e ${DIR}/dsu.service`)).code).not.toBe(0);

  const again = await unit.run('destroy', spec);
  expect(again.code).toBe(0);
  expect(again.stderr).toMatch(
    /dsu\.service on 127\.0\.0\.1:\d+: already absent; systemd still had it loaded: reloaded/,
  );
  expect(await unit.show('dsu.service', 'LoadState,ActiveState')).toEqual({
    LoadState: 'not-found',
    ActiveState: 'inactive',
  });
});

test('an instance destroy stopped before its reload is finished by the next: no target wants it', async () => {
  const run = (verb: 'apply' | 'destroy', spec: object) =>
    invoke(linuxDomain(), 'systemd-instance', verb, hostTarget(host()), spec, { [KEY_ENV]: host().privateKey });
  const template = unitSpec('dsi@.service', sleeper, { enabled: false, started: false });
  expect((await unit.run('apply', template)).code).toBe(0);
  expect((await run('apply', instanceSpec('dsi@a.service'))).code).toBe(0);

  await stopper.put('daemon-reload');
  const stopped = await run('destroy', { name: 'dsi@a.service', directory: DIR });
  expect(stopped.code).toBe(1);
  expect(await stopper.fired()).toBe(true); // it stopped that destroy, at its reload

  const again = await run('destroy', { name: 'dsi@a.service', directory: DIR });
  expect(again.code).toBe(0);
  await host().exec('systemctl start multi-user.target');
  expect(await unit.show('dsi@a.service', 'ActiveState,UnitFileState')).toEqual({
    ActiveState: 'inactive',
    UnitFileState: 'disabled',
  });
  expect(again.stderr).toMatch(
    /dsi@a\.service on 127\.0\.0\.1:\d+: already absent; systemd still had it loaded: reloaded systemd/,
  );
});
