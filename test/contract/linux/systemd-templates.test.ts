/**
 * Template units and their instances, drop-ins and masked units on real systemd 252 over SSH: an
 * instance never gets a file of its own, destroying one leaves the template and its siblings, a
 * drop-in change restarts its running unit, and a masked unit says so and is unmasked only when asked.
 */
import type { InstanceSpec } from '../../../src/linux/systemd-instance';
import type { DropInSpec } from '../../../src/linux/systemd-drop-in';
import { linuxDomain } from '../../../handlers/linux/domain';
import { invoke, invokeBatch } from '../../support/run-handler';
import { hostTarget, instanceSpec, KEY_ENV, unitSpec, useSystemdHost } from '../../support/unit-host';

jest.setTimeout(120_000);

const { host, unit } = useSystemdHost();
const env = () => ({ [KEY_ENV]: host().privateKey });

const TEMPLATE =
  '[Unit]\nDescription=probe %i\n\n[Service]\nExecStart=/bin/sleep infinity\n\n[Install]\nWantedBy=multi-user.target\n';
const template = unitSpec('probe@.service', TEMPLATE, { enabled: false, started: false });
const instance = (name: string, over: Partial<InstanceSpec> = {}) =>
  instanceSpec(name, { template: 'probe@.service', ...over });
const runInstance = (verb: 'read' | 'apply' | 'destroy', spec: InstanceSpec) =>
  invoke(
    linuxDomain(),
    'systemd-instance',
    verb,
    hostTarget(host()),
    verb === 'destroy' ? { name: spec.name, directory: spec.directory } : spec,
    env(),
  );

describe('templates and instances', () => {
  test('a template is read by its file and is-enabled, never systemctl show, and applies as a file', async () => {
    expect((await unit.run('read', template)).result?.summary).toBe(
      `unit probe@.service on 127.0.0.1:${host().port} is absent`,
    );
    expect((await unit.run('apply', template)).code).toBe(0);
    expect((await unit.run('read', template)).result?.in_sync).toBe('true');
  });

  test('two instances apply by name with no file of their own, and read in sync in a batch with it', async () => {
    for (const name of ['probe@tty8.service', 'probe@tty9.service'])
      expect((await runInstance('apply', instance(name))).code).toBe(0);
    expect(await unit.show('probe@tty9.service')).toMatchObject({ ActiveState: 'active', UnitFileState: 'enabled' });
    expect((await host().exec('ls /etc/systemd/system/probe@tty9.service 2>&1; true')).stdout).toMatch(/No such file/);
    const batch = await invokeBatch(
      linuxDomain(),
      hostTarget(host()),
      {
        t: { kind: 'systemd-unit', spec: template },
        a: { kind: 'systemd-instance', spec: instance('probe@tty8.service') },
        b: { kind: 'systemd-instance', spec: instance('probe@tty9.service') },
      },
      env(),
    );
    expect(batch.result?.['.summary']).toBe('all 3 objects are in sync');
    // systemd calls a template with enabled instances "indirect": not drift for a template declared enabled: false
    expect((await host().exec('systemctl is-enabled probe@.service; true')).stdout.trim()).toBe('indirect');
  });

  test('an instance stopped by hand is drift by its name, and apply starts it again', async () => {
    await host().exec('systemctl stop probe@tty9.service');
    expect((await runInstance('read', instance('probe@tty9.service'))).result?.summary).toBe(
      `unit probe@tty9.service on 127.0.0.1:${host().port} (inactive/dead) differs: ` +
        'running is "inactive/dead", want "running"',
    );
    expect((await runInstance('apply', instance('probe@tty9.service'))).code).toBe(0);
    expect((await unit.show('probe@tty9.service')).ActiveState).toBe('active');
  });

  test('destroying an instance stops and disables it, and the template and the other instance stay', async () => {
    const destroyed = await runInstance('destroy', instance('probe@tty9.service'));
    expect(destroyed).toMatchObject({
      code: 0,
      stderr: `probe@tty9.service on 127.0.0.1:${host().port}: stopped and disabled; its template stays`,
    });
    expect(await unit.show('probe@tty9.service')).toMatchObject({ ActiveState: 'inactive', UnitFileState: 'disabled' });
    expect(await unit.show('probe@tty8.service')).toMatchObject({ ActiveState: 'active', UnitFileState: 'enabled' });
    expect((await unit.run('read', template)).result?.in_sync).toBe('true');
  });

  test('an instance whose template is missing fails naming its state, and creates no file', async () => {
    const failed = await runInstance('apply', instance('nothing@x.service', { template: 'nothing@.service' }));
    expect(failed.code).toBe(1);
    expect(failed.stderr).toMatch(/nothing@x.service on 127.0.0.1:\d+ was not applied: .*nothing@x.service/);
    expect((await host().exec('ls /etc/systemd/system/ | grep nothing; true')).stdout).toBe('');
  });
});

describe('masked units', () => {
  const service = '[Service]\nExecStart=/bin/sleep infinity\n\n[Install]\nWantedBy=multi-user.target\n';

  test('a masked unit reads as masked, and apply refuses it saying how to unmask', async () => {
    await host().exec('systemctl mask masked-a.service');
    const spec = unitSpec('masked-a.service', service);
    const read = (await unit.run('read', spec)).result;
    expect(read?.summary).toMatch(
      new RegExp(
        /^unit masked-a.service on 127.0.0.1:\d+ is masked \(masked is true, want false; .*\); /.source +
          /the apply refuses it: /.source +
          /set unmask: true to let apply unmask it, or run systemctl unmask masked-a.service on the host$/.source,
      ),
    );
    expect(JSON.parse(read?.diff ?? '{}')).toHaveProperty('masked', { live: true, want: false });
    const failed = await unit.run('apply', spec);
    expect(failed.stderr).toBe(
      `systemd-unit apply: masked-a.service on 127.0.0.1:${host().port} is masked: ` +
        'systemd will not start or enable it; set unmask: true to let apply unmask it, ' +
        'or run systemctl unmask masked-a.service on the host; UnitFileState: masked',
    );
    expect((await host().exec('readlink /etc/systemd/system/masked-a.service')).stdout.trim()).toBe('/dev/null');
  });

  test('with unmask: true, apply removes the /dev/null link and converges the unit', async () => {
    const applied = await unit.run('apply', unitSpec('masked-a.service', service, { unmask: true }));
    expect(applied.code).toBe(0);
    expect(applied.stderr).toContain('unmasked (removed its /dev/null link)');
    expect(await unit.show('masked-a.service')).toMatchObject({
      LoadState: 'loaded',
      ActiveState: 'active',
      UnitFileState: 'enabled',
    });
  });

  test('an empty file masking a unit is refused, not deleted', async () => {
    await host().exec(': > /run/systemd/system/masked-b.service && systemctl daemon-reload');
    const failed = await unit.run('apply', unitSpec('masked-b.service', service, { unmask: true }));
    expect(failed.stderr).toMatch(
      new RegExp(
        /is masked and was not unmasked: \/run\/systemd\/system\/masked-b.service is an empty file, /.source +
          /not a \/dev\/null link; unmask removes only \/dev\/null links/.source,
      ),
    );
    expect((await host().exec('test -f /run/systemd/system/masked-b.service; echo $?')).stdout.trim()).toBe('0');
  });
});

describe('drop-ins', () => {
  const dropIn = (content: string): DropInSpec => ({
    unit: 'agent.service',
    name: '10-env',
    directory: '/etc/systemd/system',
    content,
    startTimeoutSeconds: 90,
  });
  const runDropIn = (verb: 'read' | 'apply' | 'destroy', spec: DropInSpec) =>
    invoke(
      linuxDomain(),
      'systemd-drop-in',
      verb,
      hostTarget(host()),
      verb === 'destroy' ? { unit: spec.unit, name: spec.name, directory: spec.directory } : spec,
      env(),
    );
  const environment = async () => (await host().exec('systemctl show -p Environment,MainPID agent.service')).stdout;

  test('a drop-in is written and restarts its running unit, a change restarts it, destroy removes it', async () => {
    await unit.run(
      'apply',
      unitSpec('agent.service', '[Service]\nExecStart=/bin/sleep infinity\n', { enabled: false }),
    );
    const pid = (await unit.show('agent.service')).MainPID;
    const v1 = dropIn('[Service]\nEnvironment=LEVEL=1\n');
    expect((await runDropIn('read', v1)).result?.summary).toBe(
      `drop-in /etc/systemd/system/agent.service.d/10-env.conf on 127.0.0.1:${host().port} is absent`,
    );
    const applied = await runDropIn('apply', v1);
    expect(applied.stderr).toBe(
      [
        `127.0.0.1:${host().port}: wrote the intents of 1 object (/var/lib/cdktf-homelab/intents)`,
        `agent.service on 127.0.0.1:${host().port}: wrote /etc/systemd/system/agent.service.d/10-env.conf`,
        `127.0.0.1:${host().port}: reloaded systemd`,
        `agent.service on 127.0.0.1:${host().port}: restarted agent.service with the new drop-in`,
      ].join('\n'),
    );
    expect(await environment()).toContain('Environment=LEVEL=1');
    expect((await unit.show('agent.service')).MainPID).not.toBe(pid);
    expect((await runDropIn('read', v1)).result?.in_sync).toBe('true');

    const v2 = dropIn('[Service]\nEnvironment=LEVEL=2\n');
    expect(JSON.parse((await runDropIn('read', v2)).result?.diff ?? '{}')).toHaveProperty('file');
    const before = (await unit.show('agent.service')).MainPID;
    expect((await runDropIn('apply', v2)).code).toBe(0);
    expect(await environment()).toContain('Environment=LEVEL=2');
    expect((await unit.show('agent.service')).MainPID).not.toBe(before);

    expect((await runDropIn('destroy', v2)).code).toBe(0);
    expect((await host().exec('ls /etc/systemd/system/agent.service.d 2>&1; true')).stdout).toMatch(/No such file/);
    expect((await unit.show('agent.service')).NeedDaemonReload).toBe('no');
  });

  test('a drop-in that breaks its unit is undone: the previous one is back and the unit runs with it', async () => {
    expect((await runDropIn('apply', dropIn('[Service]\nEnvironment=LEVEL=3\n'))).code).toBe(0);
    const failed = await runDropIn('apply', dropIn('[Service]\nExecStartPre=/bin/false\n'));
    expect(failed.stderr).toMatch(
      new RegExp(
        /was not applied: agent.service did not become active: .*; /.source +
          /restored the previous drop-in and restarted agent.service with it$/.source,
      ),
    );
    expect(await environment()).toContain('Environment=LEVEL=3');
    expect((await unit.show('agent.service')).ActiveState).toBe('active');
  });
});
