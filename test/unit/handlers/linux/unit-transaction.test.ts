/**
 * A host's batch apply as one transaction, against a fake systemd that counts commands: one reload
 * for many units, their starts queued together, one failure reported and undone alone, and what
 * comes after it skipped; the per-object apply is the same transaction with one object.
 */
import { digestOf } from '../../../../src/core/canonical';
import type { DropInSpec } from '../../../../src/linux/systemd-drop-in';
import type { InstanceSpec } from '../../../../src/linux/systemd-instance';
import { linuxDomain } from '../../../../handlers/linux/domain';
import { type ApplyEntry, invoke, invokeBatchApply } from '../../../support/run-handler';
import { fakeSystemd, TARGET } from './fake-systemd';
import { DIR, service, unit } from './unit-specs';

const instance = (name: string): InstanceSpec => {
  const { content: _, ...controlled } = unit(name);
  return { ...controlled, template: `${name.split('@')[0]}@.service` };
};
const dropIn = (forUnit: string, content: string): DropInSpec => ({
  unit: forUnit,
  name: '10-env',
  directory: DIR,
  content,
  startTimeoutSeconds: 5,
});

const applyBatch = async (host: ReturnType<typeof fakeSystemd>, objects: Record<string, ApplyEntry>) =>
  invokeBatchApply(
    linuxDomain(async () => host.remote),
    TARGET,
    objects,
  );
const units = (count: number, content = (i: number) => service(i === -1 ? '' : undefined)) =>
  Object.fromEntries(
    Array.from({ length: count }, (_, i) => [
      `u${i}`,
      { kind: 'systemd-unit', spec: unit(`u${i}.service`, content(i)) },
    ]),
  );
const lines = (stderr: string, pattern: RegExp) => stderr.split('\n').filter((line) => pattern.test(line));

describe('a batch apply on one host', () => {
  test('ten new units cost one reload, one enable and one start for all, each logged under its name', async () => {
    const host = fakeSystemd();
    const run = await applyBatch(host, units(10));
    expect(run).toMatchObject({ code: 0 });
    expect(host.reloads()).toBe(1);
    const sent = host.commands.filter((command) => /root: (systemctl (enable|start|restart)|reload)/.test(command));
    const all = Array.from({ length: 10 }, (_, i) => `u${i}.service`).join(' ');
    expect(sent).toEqual([
      `root: systemctl enable --no-reload ${all}`,
      'root: reload',
      `root: systemctl start --no-block ${all}`,
    ]);
    expect(lines(run.stderr, /^u3: /)).toEqual([`u3: wrote ${DIR}/u3.service`, 'u3: enabled', 'u3: started']);
    expect(host.state('u9.service')).toBe('active/running');
    expect(host.files.get('/var/lib/cdktf-homelab/restart-on/u9.service')).toBe(`${digestOf([])}\n`);
  });

  test('a unit whose ExecStart fails is named with its state and undone; the others converge', async () => {
    const host = fakeSystemd();
    const run = await applyBatch(
      host,
      units(5, (i) => service(i === 2 ? '/bin/false' : undefined)),
    );
    expect(run.code).toBe(1);
    expect(lines(run.stderr, /^u2: not applied/)).toEqual([
      `u2: not applied: u2.service on h:22 was not applied: u2.service did not become active: it is failed/failed; ` +
        'its last 2 journal lines are above, the last: failed; ' +
        'restored the host by removing the new unit file and its links; the unit is now inactive/dead',
    ]);
    expect(run.stderr).toMatch(/1 of 5 objects on root@h:22 were not applied \(u2\): the other 4 were applied/);
    expect(host.files.has(`${DIR}/u2.service`)).toBe(false);
    expect(host.enabled('u2.service')).toBe('disabled');
    for (const name of ['u0', 'u1', 'u3', 'u4']) expect(host.state(`${name}.service`)).toBe('active/running');
    expect(host.reloads()).toBe(1);
  });

  test('what comes after a failed unit is skipped, and what it wrote is undone', async () => {
    const host = fakeSystemd();
    const run = await applyBatch(host, {
      app: { kind: 'systemd-unit', spec: unit('app.service', service('/bin/false')) },
      env: { kind: 'systemd-drop-in', spec: dropIn('app.service', '[Service]\nEnvironment=A=1\n'), after: ['app'] },
      timer: {
        kind: 'systemd-unit',
        spec: unit('app.timer', '[Timer]\nOnCalendar=daily\n', { enabled: false }),
        after: ['env'],
      },
      other: { kind: 'systemd-unit', spec: unit('other.service') },
    });
    expect(run.stderr).toMatch(/3 of 4 objects on root@h:22 were not applied \(app, env, timer\)/);
    expect(lines(run.stderr, /^env: not applied/)).toEqual([
      'env: not applied: it comes after app, which was not applied; removed the new drop-in',
    ]);
    expect(lines(run.stderr, /^timer: not applied/)[0]).toMatch(/it comes after env, which was not applied; restored/);
    expect(host.files.has(`${DIR}/app.service.d/10-env.conf`)).toBe(false);
    expect(host.files.has(`${DIR}/app.timer`)).toBe(false);
    expect(host.state('other.service')).toBe('active/running');
  });

  const bad = service('/bin/false');
  const idle = (name: string) => unit(name, bad, { enabled: false, started: false });
  test.each([
    ['an instance', idle('bad@.service'), { kind: 'systemd-instance', spec: instance('bad@a.service') }],
    ['a unit whose file is unchanged', idle('bad.service'), { kind: 'systemd-unit', spec: unit('bad.service', bad) }],
  ])('%s the apply enabled is disabled again when its start fails, so no link outlives it', async (_, file, entry) => {
    const host = fakeSystemd();
    await applyBatch(host, { file: { kind: 'systemd-unit', spec: file } });
    const run = await applyBatch(host, { a: entry });
    expect(lines(run.stderr, /^a: not applied/)[0]).toMatch(/; disabled it again; the unit is now failed\/failed$/);
    expect(host.enabled(entry.spec.name)).toBe('disabled');
    expect(host.files.get(`${DIR}/${file.name}`)).toBe(bad);
  });

  test('what comes after an object whose write failed is skipped, and changes nothing either', async () => {
    const host = fakeSystemd();
    host.refuseWrites(`${DIR}/probe@.service`);
    const run = await applyBatch(host, {
      tmpl: { kind: 'systemd-unit', spec: unit('probe@.service', service(), { enabled: false, started: false }) },
      a: { kind: 'systemd-instance', spec: instance('probe@a.service'), after: ['tmpl'] },
    });
    expect(lines(run.stderr, /not applied: /)).toEqual([
      expect.stringMatching(/^tmpl: not applied: probe@.service on h:22 was not applied: .*Read-only file system/),
      'a: not applied: it comes after tmpl, which was not applied; nothing of it was changed',
    ]);
    // Its intent, written before the first effect, is removed again: nothing else of it is sent.
    expect(host.commands.filter((c) => c.includes('probe@a.service') && !/systemctl show|intent/.test(c))).toEqual([]);
  });

  test('a template, its instances and a drop-in apply in one run with one reload, the template first', async () => {
    const host = fakeSystemd();
    const template = unit('probe@.service', service(), {
      enabled: false,
      started: false,
    });
    const run = await applyBatch(host, {
      tmpl: { kind: 'systemd-unit', spec: template },
      a: { kind: 'systemd-instance', spec: instance('probe@a.service'), after: ['tmpl'] },
      b: { kind: 'systemd-instance', spec: instance('probe@b.service'), after: ['tmpl'] },
      env: { kind: 'systemd-drop-in', spec: dropIn('probe@a.service', '[Service]\nEnvironment=A=1\n'), after: ['a'] },
    });
    expect(run).toMatchObject({ code: 0 });
    expect(host.reloads()).toBe(1);
    const order = host.commands.filter((c) => /root: (write-unit|reload|systemctl start)/.test(c));
    expect(order).toEqual([
      expect.stringMatching(new RegExp(`^root: write-unit ${DIR} probe@\\.service `)),
      'root: reload',
      'root: systemctl start --no-block probe@a.service probe@b.service',
    ]);
    expect(host.state('probe@b.service')).toBe('active/running');
  });

  test('a running unit changed with its drop-in is restarted once, for both', async () => {
    const host = fakeSystemd();
    await applyBatch(host, { agent: { kind: 'systemd-unit', spec: unit('agent.service') } });
    const run = await applyBatch(host, {
      agent: { kind: 'systemd-unit', spec: unit('agent.service', `${service()}# v2\n`) },
      env: { kind: 'systemd-drop-in', spec: dropIn('agent.service', '[Service]\nEnvironment=A=2\n'), after: ['agent'] },
    });
    expect(run.code).toBe(0);
    expect(host.commands.filter((c) => /systemctl restart/.test(c))).toEqual([
      'root: systemctl restart --no-block agent.service',
    ]);
    expect(lines(run.stderr, /restarted/)).toEqual([
      'agent: restarted',
      'env: restarted agent.service with the new drop-in',
    ]);
    expect(host.reloads()).toBe(2); // one per batch
  });

  test('NeedDaemonReload alone reloads and queues no job; a stopped unit starts without a reload', async () => {
    const host = fakeSystemd();
    await applyBatch(host, units(2));
    host.files.set(`${DIR}/u0.service`, `${service()}# edited\n`);
    host.files.set(`${DIR}/u0.service`, service());
    await host.remote.run('sh -s', "systemctl stop -- 'u1.service'\n");
    const before = host.commands.length;
    expect((await applyBatch(host, units(2))).code).toBe(0);
    expect(host.reloads()).toBe(1);
    expect(host.commands.slice(before).filter((c) => /root: (systemctl (start|restart)|reload)/.test(c))).toEqual([
      'root: systemctl start --no-block u1.service',
    ]);
  });

  test('one unit enable cannot act on fails alone: the others are enabled one by one', async () => {
    const host = fakeSystemd();
    const run = await applyBatch(host, {
      ...units(2),
      ghost: { kind: 'systemd-instance', spec: instance('ghost@x.service') },
    });
    expect(lines(run.stderr, /^ghost: not applied/)[0]).toMatch(/Unit file ghost@x.service does not exist/);
    expect(host.enabled('u1.service')).toBe('enabled');
    expect(host.state('u1.service')).toBe('active/running');
  });

  test('a masked unit is refused before anything is changed, and unmasked when it may be', async () => {
    const host = fakeSystemd();
    host.mask('m.service');
    const refused = await applyBatch(host, { m: { kind: 'systemd-unit', spec: unit('m.service') } });
    expect(lines(refused.stderr, /^m: /)).toEqual([
      'm: not applied: m.service on h:22 is masked: systemd will not start or enable it; set unmask: true to let ' +
        'apply unmask it, or run systemctl unmask m.service on the host; UnitFileState: masked',
    ]);
    expect(host.files.has(`${DIR}/m.service`)).toBe(false);
    const unmasked = await applyBatch(host, {
      m: { kind: 'systemd-unit', spec: unit('m.service', service(), { unmask: true }) },
    });
    expect(lines(unmasked.stderr, /^m: /)).toEqual([
      'm: unmasked (removed its /dev/null link)',
      `m: wrote ${DIR}/m.service`,
      'm: enabled',
      'm: started',
    ]);
  });

  test('a connection lost mid-batch fails the batch saying its objects may be half-applied', async () => {
    const host = fakeSystemd();
    const domain = linuxDomain(async () => ({
      ...host.remote,
      run: async (command, stdin) => {
        if (stdin?.includes('\nreload\n')) host.dropConnection();
        return host.remote.run(command, stdin);
      },
    }));
    const run = await invokeBatchApply(domain, TARGET, units(3));
    expect(run.stderr.split('\n').at(-1)).toBe(
      'batch apply: SSH connection to h:22 lost during apply: the server closed the connection; ' +
        'its 3 objects may be half-applied: the next apply converges them',
    );
  });
});

describe('the per-object apply, a transaction of one', () => {
  test('logs each step under the unit and its host, and the intents and the reload under the host', async () => {
    const host = fakeSystemd();
    const run = await invoke(
      linuxDomain(async () => host.remote),
      'systemd-unit',
      'apply',
      TARGET,
      unit('one.service'),
    );
    expect(run).toEqual({
      code: 0,
      stderr: [
        'h:22: wrote the intents of 1 object (/var/lib/cdktf-homelab/intents)',
        `one.service on h:22: wrote ${DIR}/one.service`,
        'one.service on h:22: enabled',
        'h:22: reloaded systemd',
        'one.service on h:22: started',
      ].join('\n'),
    });
    expect(host.reloads()).toBe(1);
  });
});
