/**
 * One host's batch apply on real systemd 252: 20 units in one transaction cost one daemon-reload
 * (counted in pid 1's journal), a unit whose ExecStart fails is named with its state and undone
 * while the other 19 stay converged, and a template, its instances and a drop-in apply in one run.
 */
import type { DropInSpec } from '../../../src/linux/systemd-drop-in';
import type { InstanceSpec } from '../../../src/linux/systemd-instance';
import type { UnitSpec } from '../../../src/linux/systemd-unit';
import { linuxDomain } from '../../../handlers/linux/domain';
import { type ApplyEntry, invokeBatch, invokeBatchApply } from '../../support/run-handler';
import { hostTarget, KEY_ENV, unitSpec, useSystemdHost } from '../../support/unit-host';

jest.setTimeout(180_000);

const { host, unit } = useSystemdHost();
const env = () => ({ [KEY_ENV]: host().privateKey });

const service = (description: string, exec = '/bin/sleep infinity') =>
  `[Unit]\nDescription=${description}\n\n[Service]\nExecStart=${exec}\n\n[Install]\nWantedBy=multi-user.target\n`;
const fleet = (version: string, fails?: number): UnitSpec[] =>
  Array.from({ length: 20 }, (_, i) =>
    unitSpec(`fleet-${i}.service`, service(`fleet ${i} ${version}`, i === fails ? '/bin/false' : undefined), {
      startTimeoutSeconds: 20,
    }),
  );
const entries = (specs: readonly UnitSpec[]): Record<string, ApplyEntry> =>
  Object.fromEntries(specs.map((spec, i) => [`fleet_${i}`, { kind: 'systemd-unit', spec }]));

const apply = (objects: Record<string, ApplyEntry>) =>
  invokeBatchApply(linuxDomain(), hostTarget(host()), objects, env());
const read = (objects: Record<string, ApplyEntry>) => invokeBatch(linuxDomain(), hostTarget(host()), objects, env());
/** How many daemon-reloads pid 1 has logged since boot. */
const reloads = async () =>
  Number((await host().exec('journalctl _PID=1 --no-pager -o cat | grep -c "^Reloading" || true')).stdout.trim());

test('20 new units apply in one transaction with one daemon-reload, and read in sync after', async () => {
  const before = await reloads();
  const started = Date.now();
  const applied = await apply(entries(fleet('v1')));
  console.log(`20 new units: batch apply ${Date.now() - started} ms`);
  expect(applied).toMatchObject({ code: 0 });
  expect(applied.stderr.split('\n').filter((line) => line.startsWith('fleet_7: '))).toEqual([
    'fleet_7: wrote /etc/systemd/system/fleet-7.service',
    'fleet_7: enabled',
    'fleet_7: started',
  ]);
  expect((await reloads()) - before).toBe(1);
  expect((await read(entries(fleet('v1')))).result?.['.summary']).toBe('all 20 objects are in sync');
});

test('a unit whose ExecStart fails is named with its state and undone; the other 19 restart and stay', async () => {
  const pids: string[] = [];
  for (const spec of fleet('v1')) pids.push((await unit.show(spec.name)).MainPID ?? '');
  const before = await reloads();
  const failed = await apply(entries(fleet('v2', 7)));
  expect(failed.code).toBe(1);
  expect(failed.stderr).toMatch(
    new RegExp(
      /^fleet_7: not applied: fleet-7.service on 127.0.0.1:\d+ was not applied: /.source +
        /fleet-7.service did not become active: it is failed\/failed; its last \d+ journal lines are above, .*; /
          .source +
        /restored the previous unit file and its links; the unit is now failed\/failed$/.source,
      'm',
    ),
  );
  expect(failed.stderr).toMatch(/1 of 20 objects on root@127.0.0.1:\d+ were not applied \(fleet_7\): the other 19/);
  // One reload for the batch, one for the undo of fleet-7, which puts its previous file back.
  expect((await reloads()) - before).toBe(2);
  const others = fleet('v2', 7).filter((_, i) => i !== 7);
  for (const [i, spec] of others.entries()) {
    const now = await unit.show(spec.name);
    expect(now).toMatchObject({ ActiveState: 'active', NeedDaemonReload: 'no' });
    expect(now.MainPID).not.toBe(pids[i >= 7 ? i + 1 : i]);
  }
  const batch = await read(Object.fromEntries(others.map((spec, i) => [`o${i}`, { kind: 'systemd-unit', spec }])));
  expect(batch.result?.['.summary']).toBe('all 19 objects are in sync');
  expect((await host().exec('grep -c "fleet 7 v1" /etc/systemd/system/fleet-7.service')).stdout.trim()).toBe('1');
});

test('a drop-in after a unit that fails is skipped, and its file removed again', async () => {
  const objects: Record<string, ApplyEntry> = {
    broken: { kind: 'systemd-unit', spec: unitSpec('broken.service', service('broken', '/bin/false')) },
    env: { kind: 'systemd-drop-in', spec: dropIn('broken.service', 'A=1'), after: ['broken'] },
  };
  const failed = await apply(objects);
  expect(failed.stderr).toMatch(
    /^env: not applied: it comes after broken, which was not applied; removed the new drop-in$/m,
  );
  expect((await host().exec('ls /etc/systemd/system/broken.service.d 2>&1; true')).stdout).toMatch(/No such file/);
  expect(await unit.show('broken.service')).toMatchObject({ LoadState: 'not-found' });
});

const template = unitSpec(
  'worker@.service',
  '[Unit]\nDescription=worker %i\n\n[Service]\nExecStart=/bin/sleep infinity\n\n' +
    '[Install]\nWantedBy=multi-user.target\n',
  { enabled: false, started: false },
);
const instance = (name: string): InstanceSpec => {
  const { content: _, ...controlled } = unitSpec(name, '', { enabled: true });
  return { ...controlled, template: 'worker@.service' };
};
function dropIn(forUnit: string, value: string): DropInSpec {
  return {
    unit: forUnit,
    name: '10-env',
    directory: '/etc/systemd/system',
    content: `[Service]\nEnvironment=${value}\n`,
    startTimeoutSeconds: 30,
  };
}

test('a template, its instances and a drop-in on one of them apply in one run, with one reload', async () => {
  const objects: Record<string, ApplyEntry> = {
    tmpl: { kind: 'systemd-unit', spec: template },
    a: { kind: 'systemd-instance', spec: instance('worker@a.service'), after: ['tmpl'] },
    b: { kind: 'systemd-instance', spec: instance('worker@b.service'), after: ['tmpl'] },
    env: { kind: 'systemd-drop-in', spec: dropIn('worker@a.service', 'LEVEL=1'), after: ['a'] },
  };
  const before = await reloads();
  const applied = await apply(objects);
  expect(applied).toMatchObject({ code: 0 });
  expect((await reloads()) - before).toBe(1);
  for (const name of ['worker@a.service', 'worker@b.service'])
    expect(await unit.show(name)).toMatchObject({ ActiveState: 'active', UnitFileState: 'enabled' });
  expect((await host().exec('systemctl show -p Environment worker@a.service')).stdout).toContain('LEVEL=1');
  expect((await read(objects)).result?.['.summary']).toBe('all 4 objects are in sync');

  const pid = (await unit.show('worker@a.service')).MainPID;
  const changed = await apply({ env: { kind: 'systemd-drop-in', spec: dropIn('worker@a.service', 'LEVEL=2') } });
  expect(changed.stderr).toBe(
    [
      `127.0.0.1:${host().port}: wrote the intents of 1 object (/var/lib/cdktf-homelab/intents)`,
      'env: wrote /etc/systemd/system/worker@a.service.d/10-env.conf',
      `127.0.0.1:${host().port}: reloaded systemd`,
      'env: restarted worker@a.service with the new drop-in',
    ].join('\n'),
  );
  expect((await unit.show('worker@a.service')).MainPID).not.toBe(pid);
});
