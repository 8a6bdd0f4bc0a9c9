/**
 * A stack unit whose running process was started with the stack's drop-in, which a destroy then removes, on real
 * systemd 252. The destroy reloads and does not restart ("keeps its current settings until it restarts"), and
 * removing a file dates nothing the read compares with the process start (the unit's record named an earlier run:
 * the drop-in's apply restarted it). Regression: the unit's plan said in sync while its process still ran the
 * removed drop-in's `Environment=`. The destroy now records the unit's current run as started with the content it
 * removes the drop-in from, so the plan says the restart is pending and the apply makes it.
 */
import { linuxDomain } from '../../../handlers/linux/domain';
import { invoke } from '../../support/run-handler';
import { hostTarget, KEY_ENV, unitBatch, unitSpec, useSystemdHost } from '../../support/unit-host';

jest.setTimeout(120_000);

const { host } = useSystemdHost();
const { plan, apply } = unitBatch(host);
const DIR = '/etc/systemd/system';
const sleeper = '[Service]\nExecStart=/bin/sleep infinity\n[Install]\nWantedBy=multi-user.target\n';

/** The environment of the unit's running process, one `KEY=value` a line. */
const processEnvironment = async (name: string) =>
  (await host().exec(`tr '\\0' '\\n' < /proc/$(systemctl show -p MainPID --value -- ${name})/environ`)).stdout;

test('a unit still running a drop-in a destroy removed reads as drift, and the apply restarts it', async () => {
  const unit = { u: { kind: 'systemd-unit', spec: unitSpec('dgu.service', sleeper) } };
  expect(await apply(unit)).toMatchObject({ code: 0 });
  const identity = { unit: 'dgu.service', name: '10-env', directory: DIR };
  const spec = { ...identity, content: '[Service]\nEnvironment=DGU=on\n', startTimeoutSeconds: 90 };
  const applied = await apply({ d: { kind: 'systemd-drop-in', spec } });
  expect(applied).toMatchObject({ code: 0, stderr: expect.stringContaining('d: restarted dgu.service') });
  const env = { [KEY_ENV]: host().privateKey };
  const destroyed = await invoke(linuxDomain(), 'systemd-drop-in', 'destroy', hostTarget(host()), identity, env);
  expect(destroyed).toMatchObject({ code: 0, stderr: expect.stringContaining('keeps its current settings') });
  expect(await processEnvironment('dgu.service')).toContain('DGU=on');

  const planned = (await plan(unit)).result ?? {};
  expect(planned['u.summary']).toContain('restart pending: its process started before its content changed');
  expect(planned['u.in_sync']).toBe('false');
  expect(await apply(unit)).toMatchObject({ code: 0, stderr: expect.stringMatching(/^u: restarted/m) });
  expect(await processEnvironment('dgu.service')).not.toContain('DGU=on');
  expect((await plan(unit)).result).toMatchObject({ 'u.in_sync': 'true' });
});
