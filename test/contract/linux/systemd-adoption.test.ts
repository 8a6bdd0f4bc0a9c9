/**
 * Adoption on real systemd 252: a unit, an instance and a drop-in made by hand read as not created by
 * this stack; the batch apply refuses them without adopt and converges the others; with adopt it takes
 * them over writing only records under /var/lib/cdktf-homelab (no restart, no daemon-reload); a unit an
 * earlier version made (its restartOn record) reads as the stack's; destroy removes an adopted drop-in, a
 * unit an earlier version made, and one whose construct says adopt, and leaves each one refused (issue 27).
 */
import { linuxDomain } from '../../../handlers/linux/domain';
import type { DropInSpec } from '../../../src/linux/systemd-drop-in';
import { type ApplyEntry, destroyEnv, invokeBatch, invokeBatchApply } from '../../support/run-handler';
import { runHandler } from '../../../src/core/handler-cli';
import { hostTarget, instanceSpec, KEY_ENV, unitSpec, useSystemdHost } from '../../support/unit-host';

jest.setTimeout(180_000);

const { host, unit } = useSystemdHost();
const env = () => ({ [KEY_ENV]: host().privateKey });
const apply = (objects: Record<string, ApplyEntry>) =>
  invokeBatchApply(linuxDomain(), hostTarget(host()), objects, env());
const read = (objects: Record<string, ApplyEntry>) => invokeBatch(linuxDomain(), hostTarget(host()), objects, env());
const reloads = async () =>
  Number((await host().exec('journalctl _PID=1 --no-pager -o cat | grep -c "^Reloading" || true')).stdout.trim());

const DIR = '/etc/systemd/system';
const RECORDS = '/var/lib/cdktf-homelab/restart-on';
const SLEEPER = '[Service]\nExecStart=/bin/sleep infinity\n\n[Install]\nWantedBy=multi-user.target\n';
const DROP_IN = '[Service]\nEnvironment=HAND=1\n';
const hand = unitSpec('hand.service', SLEEPER);
const template = unitSpec('probe@.service', SLEEPER, { enabled: false, started: false });
const instance = instanceSpec('probe@x.service');
const dropIn: DropInSpec = {
  unit: 'hand.service',
  name: '10-hand',
  directory: DIR,
  content: DROP_IN,
  startTimeoutSeconds: 90,
};
const objects = (adopt: boolean): Record<string, ApplyEntry> => ({
  hand: { kind: 'systemd-unit', spec: hand, adopt },
  probe_x: { kind: 'systemd-instance', spec: instance, after: ['probe'], adopt },
  limits: { kind: 'systemd-drop-in', spec: dropIn, after: ['hand'], adopt },
});
const pids = async () => [(await unit.show('hand.service')).MainPID, (await unit.show('probe@x.service')).MainPID];
const WHERE = /exists on root@127\.0\.0\.1:\d+, not created by this stack/;

beforeAll(async () => {
  // The template is the stack's; the unit, the instance and the drop-in are made by hand.
  expect((await apply({ probe: { kind: 'systemd-unit', spec: template } })).code).toBe(0);
  await host().exec(
    `printf '%s' '${SLEEPER}' > ${DIR}/hand.service && mkdir -p ${DIR}/hand.service.d && ` +
      `printf '%s' '${DROP_IN}' > ${DIR}/hand.service.d/10-hand.conf && systemctl daemon-reload && ` +
      'systemctl enable --now hand.service probe@x.service',
  );
});

test('made by hand, each reads as not created by this stack; without adopt the apply refuses them', async () => {
  const reading = await read(objects(false));
  for (const name of ['hand', 'probe_x', 'limits']) {
    expect(reading.result?.[`${name}.summary`]).toMatch(new RegExp(`^${WHERE.source}: the apply will refuse it`));
  }
  const before = await pids();
  const fresh = unitSpec('fresh.service', SLEEPER);
  const applied = await apply({ ...objects(false), fresh: { kind: 'systemd-unit', spec: fresh } });
  expect(applied.code).toBe(1);
  expect(applied.stderr).toMatch(
    new RegExp(`^hand: not applied: ${WHERE.source}, and its construct does not say adopt: true`, 'm'),
  );
  expect(applied.stderr).toMatch(/3 of 4 objects on root@127.0.0.1:\d+ were not applied \(hand, probe_x, limits\)/);
  expect(await pids()).toEqual(before);
  expect(await unit.show('fresh.service')).toMatchObject({ ActiveState: 'active' });
});

/** Runs the destroy hook of `kind` on `identity`, as Terraform does (a retired object and a tombstone run the same). */
const destroy = async (kind: string, identity: object, adopt = false) => {
  const log: string[] = [];
  const io = {
    stdin: async () => '',
    env: { ...env(), ...destroyEnv(hostTarget(host()), identity), ...(adopt ? { HOMELAB_ADOPT: 'true' } : {}) },
    out: () => undefined,
    log: (l: string) => log.push(l),
  };
  return { code: await runHandler(linuxDomain(), [kind, 'destroy'], io), stderr: log.join('\n') };
};

test('refused without adopt, destroy (or retiring, or removing the construct) leaves each as it is', async () => {
  // Issue 27: a unit made by hand and refused was "stopped, disabled and removed" by terraform destroy.
  const before = { pids: await pids(), reloads: await reloads() };
  const identities: Array<[string, object]> = [
    ['systemd-drop-in', { unit: dropIn.unit, name: dropIn.name, directory: DIR }],
    ['systemd-instance', { name: instance.name, directory: DIR }],
    ['systemd-unit', { name: hand.name, directory: DIR }],
  ];
  for (const [kind, identity] of identities) {
    const destroyed = await destroy(kind, identity);
    expect(destroyed).toMatchObject({ code: 0 });
    expect(destroyed.stderr).toMatch(
      / on 127\.0\.0\.1:\d+: not created by this stack \(never adopted\): left as it is$/,
    );
  }
  expect(await pids()).toEqual(before.pids);
  expect(await reloads()).toBe(before.reloads);
  const still = await host().exec(
    `ls ${DIR}/hand.service ${DIR}/hand.service.d/10-hand.conf ${DIR}/multi-user.target.wants/hand.service ` +
      `${DIR}/multi-user.target.wants/probe@x.service`,
  );
  expect(still.code).toBe(0);
  expect(await unit.show('probe@x.service')).toMatchObject({ ActiveState: 'active', UnitFileState: 'enabled' });
});

test('with adopt the plan says so and the apply only writes records: nothing restarted, no reload', async () => {
  const reading = await read(objects(true));
  expect(reading.result?.['hand.summary']).toMatch(new RegExp(`^${WHERE.source}: will be adopted$`));
  const before = { pids: await pids(), reloads: await reloads() };
  const applied = await apply(objects(true));
  expect(applied).toMatchObject({ code: 0 });
  expect(await pids()).toEqual(before.pids);
  expect(await reloads()).toBe(before.reloads);
  const records = await host().exec(
    'ls /var/lib/cdktf-homelab/restart-on/hand.service /var/lib/cdktf-homelab/restart-on/probe@x.service ' +
      `/var/lib/cdktf-homelab/drop-ins${DIR}/hand.service.d/10-hand.conf`,
  );
  expect(records.code).toBe(0);
  expect((await read(objects(false))).result?.['.summary']).toBe('all 3 objects are in sync');
});

test('a unit an earlier version made (its restartOn record, no other mark) reads as the stack`s', async () => {
  const older = unitSpec('older.service', SLEEPER);
  await host().exec(
    `printf '%s' '${SLEEPER}' > ${DIR}/older.service && systemctl daemon-reload && ` +
      'systemctl enable --now older.service && ' +
      `printf '%s\\n' ${older.restartOn} > /var/lib/cdktf-homelab/restart-on/older.service`,
  );
  expect((await read({ older: { kind: 'systemd-unit', spec: older } })).result?.['older.in_sync']).toBe('true');
});

test('only the first line of a record is read: a second line cannot pass for another unit`s record', async () => {
  // The read prints `<index> <first line>` per record; a line after the first once printed too, and
  // one reading `1 <digest>` gave the unit read second (made by hand, no record) a record of the stack's.
  const posing = unitSpec('posing.service', SLEEPER);
  const older = unitSpec('older.service', SLEEPER);
  await host().exec(
    `printf '%s' '${SLEEPER}' > ${DIR}/posing.service && systemctl daemon-reload && ` +
      'systemctl enable --now posing.service && ' +
      `printf '0 %s\\n1 %s\\n' ${older.restartOn} ${older.restartOn} >> ${RECORDS}/older.service`,
  );
  const reading = await read({
    older: { kind: 'systemd-unit', spec: older },
    posing: { kind: 'systemd-unit', spec: posing },
  });
  expect(reading.result?.['older.in_sync']).toBe('true');
  expect(reading.result?.['posing.summary']).toMatch(new RegExp(`^${WHERE.source}: the apply will refuse it`));
});

test('a unit an earlier version made, and one whose construct says adopt, are destroyed', async () => {
  await host().exec(
    `printf '%s' '${SLEEPER}' > ${DIR}/unmarked.service && systemctl daemon-reload && ` +
      'systemctl enable --now unmarked.service',
  );
  const older = await destroy('systemd-unit', { name: 'older.service', directory: DIR });
  expect(older.stderr).toMatch(/older\.service on 127\.0\.0\.1:\d+: stopped, disabled and removed$/);
  const adopted = await destroy('systemd-unit', { name: 'unmarked.service', directory: DIR }, true);
  expect(adopted.stderr).toMatch(/unmarked\.service on 127\.0\.0\.1:\d+: stopped, disabled and removed$/);
  const gone = await host().exec(`ls ${DIR}/older.service ${DIR}/unmarked.service`);
  expect(gone.stderr.match(/No such file/g)).toHaveLength(2);
});

test('destroy deletes an adopted drop-in and its mark', async () => {
  const log: string[] = [];
  const io = {
    stdin: async () => '',
    // What names the drop-in, as its construct writes it: the boundary refuses a field no identity has.
    env: { ...env(), ...destroyEnv(hostTarget(host()), { unit: dropIn.unit, name: dropIn.name, directory: DIR }) },
    out: () => undefined,
    log: (l: string) => log.push(l),
  };
  expect(await runHandler(linuxDomain(), ['systemd-drop-in', 'destroy'], io)).toBe(0);
  const left = await host().exec(
    `ls ${DIR}/hand.service.d/10-hand.conf /var/lib/cdktf-homelab/drop-ins${DIR}/hand.service.d/10-hand.conf`,
  );
  expect(left.stderr.match(/No such file/g)).toHaveLength(2);
});
