/**
 * The systemd-unit handler on real systemd 252 over real SSH: drift systemd itself reports, the
 * restartOn restart, undo after a rejected file or a failed start, host-key pinning, sudo, destroy.
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { invoke, invokeBatch } from '../../support/run-handler';
import { linuxDomain } from '../../../handlers/linux/domain';
import { connectSsh } from '../../../src/linux/ssh';
import { parseSshTarget } from '../../../src/linux/target';
import { hostTarget, unitSpec, useSystemdHost } from '../../support/unit-host';

jest.setTimeout(120_000);

const { host, unit } = useSystemdHost();

const service = (description: string) =>
  `[Unit]\nDescription=${description}\n\n` +
  '[Service]\nExecStart=/bin/sleep infinity\n\n[Install]\nWantedBy=multi-user.target\n';
const fileOf = async (name: string) => (await host().exec(`cat /etc/systemd/system/${name}`)).stdout;

test('an absent unit is created enabled and started, and reads in sync after', async () => {
  const spec = unitSpec('svc-a.service', service('a'));
  expect((await unit.run('read', spec)).result?.summary).toBe(
    `unit svc-a.service on 127.0.0.1:${host().port} is absent`,
  );
  const applied = await unit.run('apply', spec);
  expect(applied.code).toBe(0);
  expect(await unit.show('svc-a.service')).toMatchObject({ ActiveState: 'active', UnitFileState: 'enabled' });
  expect(await fileOf('svc-a.service')).toBe(service('a'));
  expect((await host().exec('ls -A /etc/systemd/system | grep "^\\.svc-a" || true')).stdout).toBe('');
  expect((await unit.run('read', spec)).result?.in_sync).toBe('true');
});

test('a hand edit reads as a file difference, NeedDaemonReload, a pending restart; one apply fixes all', async () => {
  const spec = unitSpec('svc-b.service', service('b'));
  await unit.run('apply', spec);
  await host().exec(`sed -i 's/Description=b/Description=edited/' /etc/systemd/system/svc-b.service`);
  const drift = JSON.parse((await unit.run('read', spec)).result?.diff ?? '{}');
  // The apply's reload, then its restart (the process runs other content than the file): the plan names both.
  expect(Object.keys(drift).sort()).toEqual(['NeedDaemonReload', 'file', 'process']);
  const mainPid = (await unit.show('svc-b.service')).MainPID;
  expect((await unit.run('apply', spec)).code).toBe(0);
  expect(await fileOf('svc-b.service')).toBe(service('b'));
  const after = await unit.show('svc-b.service');
  expect(after).toMatchObject({ NeedDaemonReload: 'no', ActiveState: 'active' });
  expect(after.MainPID).not.toBe(mainPid);
  expect((await unit.run('read', spec)).result?.in_sync).toBe('true');
});

test('NeedDaemonReload alone is drift, and apply only reloads', async () => {
  const spec = unitSpec('svc-c.service', service('c'));
  await unit.run('apply', spec);
  const before = await unit.show('svc-c.service');
  await host().exec('sleep 1.1; touch /etc/systemd/system/svc-c.service');
  expect(JSON.parse((await unit.run('read', spec)).result?.diff ?? '{}')).toEqual({
    NeedDaemonReload: { live: 'yes', want: 'no' },
  });
  await unit.run('apply', spec);
  expect(await unit.show('svc-c.service')).toMatchObject({ NeedDaemonReload: 'no', MainPID: before.MainPID });
});

test('a unit disabled and stopped by hand reads as drift naming both, and apply re-enables and starts it', async () => {
  const spec = unitSpec('svc-d.service', service('d'));
  await unit.run('apply', spec);
  await host().exec('systemctl disable --now svc-d.service');
  const drift = (await unit.run('read', spec)).result;
  expect(drift?.summary).toBe(
    `unit svc-d.service on 127.0.0.1:${host().port} (inactive/dead) differs: ` +
      'enabled is false, want true; running is "inactive/dead", want "running"',
  );
  await unit.run('apply', spec);
  expect(await unit.show('svc-d.service')).toMatchObject({ ActiveState: 'active', UnitFileState: 'enabled' });
});

test('a moved restartOn restarts the running unit', async () => {
  const spec = unitSpec('svc-e.service', service('e'), { restartOn: ['config-v1'] });
  await unit.run('apply', spec);
  const before = (await unit.show('svc-e.service')).MainPID;
  const moved = unitSpec('svc-e.service', service('e'), { restartOn: ['config-v2'] });
  expect(JSON.parse((await unit.run('read', moved)).result?.diff ?? '{}')).toHaveProperty('restartOn');
  await unit.run('apply', moved);
  expect((await unit.show('svc-e.service')).MainPID).not.toBe(before);
  expect((await unit.run('read', moved)).result?.in_sync).toBe('true');
});

test('a unit file systemd rejects is undone: the previous file is back and systemd reloaded', async () => {
  const spec = unitSpec('svc-f.service', service('f'));
  await unit.run('apply', spec);
  const broken = unitSpec('svc-f.service', '[Service]\nExecStart=relative/path\n');
  const failed = await unit.run('apply', broken);
  expect(failed.code).toBe(1);
  expect(failed.stderr).toMatch(
    new RegExp(
      /svc-f.service on 127.0.0.1:\d+ was not applied: .*; /.source +
        /restored the previous unit file and its links; the unit is now [a-z]+\/[a-z-]+$/.source,
    ),
  );
  expect(await fileOf('svc-f.service')).toBe(service('f'));
  expect(await unit.show('svc-f.service')).toMatchObject({ NeedDaemonReload: 'no', LoadState: 'loaded' });
});

test('a start that fails is undone: the new unit file is removed', async () => {
  const spec = unitSpec('svc-g.service', '[Service]\nType=oneshot\nExecStart=/bin/false\n', { enabled: false });
  const failed = await unit.run('apply', spec);
  expect(failed.code).toBe(1);
  expect(failed.stderr).toMatch(/journal: .*Failed to start svc-g.service/);
  expect(failed.stderr).toMatch(
    new RegExp(
      /was not applied: svc-g.service did not become active: it is failed\/failed; /.source +
        /its last \d+ journal lines are above, .*; /.source +
        /restored the host by removing the new unit file; the unit is now inactive\/dead$/.source,
    ),
  );
  expect((await host().exec('test -e /etc/systemd/system/svc-g.service; echo $?')).stdout.trim()).toBe('1');
  expect((await unit.show('svc-g.service')).LoadState).toBe('not-found');
});

test('a simple service that exits at once is caught by the read-back and undone', async () => {
  const spec = unitSpec('svc-h.service', '[Service]\nExecStart=/bin/false\n', { enabled: false });
  const failed = await unit.run('apply', spec);
  expect(failed.stderr).toMatch(
    /did not become active: it is failed\/failed.*restored the host by removing the new unit file/,
  );
});

test('an unknown host key is refused, and the error prints the fingerprint the host offered', async () => {
  const spec = unitSpec('svc-a.service', service('a'));
  const wrong = `SHA256:${'A'.repeat(43)}`;
  const failed = await unit.run('read', spec, hostTarget(host(), { hostKey: wrong }));
  expect(failed.code).toBe(1);
  expect(failed.stderr).toBe(
    `batch read: SSH host key refused: the host offered ${host().hostKeyFingerprint}, ` +
      `which is not the pinned ${wrong}; ` +
      'if the host was legitimately re-keyed, pin the new fingerprint in hostKey; ' +
      `Host: root@127.0.0.1:${host().port}`,
  );
});

test('a non-root user writes and controls units through sudo -n', async () => {
  const spec = unitSpec('svc-i.service', service('i'));
  const asDeploy = hostTarget(host(), { user: 'deploy', sudo: true });
  expect((await unit.run('apply', spec, asDeploy)).code).toBe(0);
  expect(await unit.show('svc-i.service')).toMatchObject({ ActiveState: 'active', UnitFileState: 'enabled' });
  expect((await host().exec('stat -c %U /etc/systemd/system/svc-i.service')).stdout.trim()).toBe('root');
  expect((await unit.run('destroy', spec, asDeploy)).code).toBe(0);
});

test('destroy of a failed unit leaves nothing listed as failed', async () => {
  const spec = unitSpec('svc-l.service', '[Service]\nType=oneshot\nExecStart=/bin/false\n', {
    enabled: false,
    started: false,
  });
  await unit.run('apply', spec);
  await host().exec('systemctl start svc-l.service');
  expect((await unit.show('svc-l.service')).ActiveState).toBe('failed');
  const destroyed = await unit.run('destroy', spec);
  expect(destroyed.code).toBe(0);
  // Neither running nor enabled: it was removed, and said so without a stop or a disable it never needed.
  expect(destroyed.stderr).toMatch(/svc-l\.service on \S+: removed$/m);
  expect((await host().exec('systemctl list-units --failed --plain --no-legend svc-l.service')).stdout.trim()).toBe('');
});

test('destroy stops, disables and removes the unit, and succeeds when it is already gone', async () => {
  const spec = unitSpec('svc-j.service', service('j'));
  await unit.run('apply', spec);
  const destroyed = await unit.run('destroy', spec);
  expect(destroyed.stderr).toMatch(/stopped, disabled and removed/);
  expect(
    (
      await host().exec(
        'ls /etc/systemd/system/svc-j.service /etc/systemd/system/multi-user.target.wants/svc-j.service 2>&1; true',
      )
    ).stdout,
  ).toMatch(/No such file.*\n.*No such file/);
  expect(await unit.show('svc-j.service')).toMatchObject({ LoadState: 'not-found', ActiveState: 'inactive' });
  const again = await unit.run('destroy', spec);
  expect(again).toMatchObject({ code: 0 });
  expect(again.stderr).toMatch(/already absent/);
});

test('without privateKeyEnv the key comes from the ssh agent', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'homelab-agent-'));
  const socket = join(dir, 'agent.sock');
  const agent = execFileSync('ssh-agent', ['-a', socket], { encoding: 'utf8' });
  const pid = /SSH_AGENT_PID=(\d+)/.exec(agent)?.[1];
  try {
    writeFileSync(join(dir, 'key'), host().privateKey, { mode: 0o600 });
    execFileSync('ssh-add', [join(dir, 'key')], { env: { ...process.env, SSH_AUTH_SOCK: socket }, stdio: 'pipe' });
    const env = { SSH_AUTH_SOCK: socket };
    const { privateKeyEnv: _, ...viaAgent } = hostTarget(host());
    const read = await invoke(
      linuxDomain(),
      'systemd-unit',
      'read',
      viaAgent,
      unitSpec('svc-k.service', service('k')),
      env,
    );
    expect(read.result?.summary).toMatch(/svc-k.service on .* is absent/);
    const noAgent = await invoke(
      linuxDomain(),
      'systemd-unit',
      'read',
      viaAgent,
      unitSpec('svc-k.service', service('k')),
      {},
    );
    expect(noAgent.stderr).toMatch(
      /No SSH credential: set privateKeyEnv on the SshHost, or run terraform with an ssh agent \(SSH_AUTH_SOCK\)/,
    );
  } finally {
    if (pid !== undefined) process.kill(Number(pid));
    rmSync(dir, { recursive: true, force: true });
  }
});

test("one connection runs many commands at once without exceeding sshd's 10 channels", async () => {
  const remote = await connectSsh(parseSshTarget(hostTarget(host())), { TEST_SSH_KEY: host().privateKey });
  try {
    const results = await Promise.all(Array.from({ length: 24 }, (_, i) => remote.run(`sleep 0.3; echo ${i}`)));
    expect(results.map((r) => r.stdout.trim())).toEqual(Array.from({ length: 24 }, (_, i) => String(i)));
  } finally {
    remote.close();
  }
});

test('a batch reads every unit on the host, templates included, over one connection with one command', async () => {
  const env = { TEST_SSH_KEY: host().privateKey };
  let connections = 0;
  let commands = 0;
  const counting = linuxDomain(async (target, processEnv) => {
    const remote = await connectSsh(target, processEnv);
    connections += 1;
    return { run: (command, stdin) => ((commands += 1), remote.run(command, stdin)), close: () => remote.close() };
  });
  const template = unitSpec('probe@.service', '[Unit]\nDescription=probe %i\n\n[Service]\nExecStart=/bin/true\n', {
    enabled: false,
    started: false,
  });
  expect((await unit.run('apply', template)).code).toBe(0);
  const present = Array.from({ length: 3 }, (_, i) => unitSpec(`batch-${i}.service`, service(`b${i}`)));
  for (const spec of present) expect((await unit.run('apply', spec)).code).toBe(0);
  const absent = Array.from({ length: 9 }, (_, i) => unitSpec(`batch-absent-${i}.service`, service(`x${i}`)));
  const objects = Object.fromEntries(
    [template, ...present, ...absent].map((spec, i) => [`u${i}`, { kind: 'systemd-unit', spec }]),
  );
  const batch = await invokeBatch(counting, hostTarget(host()), objects, env);
  expect({ code: batch.code, connections, commands }).toEqual({ code: 0, connections: 1, commands: 1 });
  expect([0, 1, 2, 3].map((i) => batch.result?.[`u${i}.in_sync`])).toEqual(['true', 'true', 'true', 'true']);
  expect(batch.result?.['u4.summary']).toBe(`unit batch-absent-0.service on 127.0.0.1:${host().port} is absent`);
  expect(batch.result?.['.summary']).toMatch(/^9 of 13 objects are not in sync:/);
});
