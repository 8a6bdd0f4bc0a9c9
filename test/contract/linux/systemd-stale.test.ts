/**
 * A process older than its unit's content, on real systemd 252 (issue 26 class 2): content changed and
 * daemon-reloaded but never restarted, by whoever, left the file matching and NeedDaemonReload=no, so
 * the plan was clean while the process ran the old content. Now the read names it and the apply
 * restarts it; records an earlier version wrote still read in sync. Likewise systemd's enablement: pid 1
 * keeps a loaded unit's UnitFileState until a daemon-reload, so a link removed or made by hand read as before.
 */
import type { DropInSpec } from '../../../src/linux/systemd-drop-in';
import { linuxDomain } from '../../../handlers/linux/domain';
import { invoke, invokeBatch, invokeBatchApply } from '../../support/run-handler';
import { hostTarget, instanceSpec, KEY_ENV, unitSpec, useSystemdHost, variantDropIn } from '../../support/unit-host';

jest.setTimeout(120_000);

const { host, unit } = useSystemdHost();
const env = () => ({ [KEY_ENV]: host().privateKey });
const DIR = '/etc/systemd/system';

const service = (v: string) =>
  `[Unit]\nDescription=stale\n[Service]\nEnvironment=V=${v}\nExecStart=/bin/sleep infinity\n` +
  '[Install]\nWantedBy=multi-user.target\n';
const dropIn = (v: string): DropInSpec => variantDropIn('st-d.service', v);

/** The V= of the unit's running process, from /proc. */
const runningVariant = async (name: string): Promise<string> =>
  (
    await host().exec(
      `p=$(systemctl show -p MainPID --value -- ${name}); tr '\\0' '\\n' < /proc/$p/environ | sed -n 's/^V=//p'`,
    )
  ).stdout.trim();

/** Writes `text` to `path` and daemon-reloads, restarting nothing: what a hand edit or a killed apply leaves. */
const editAndReload = (path: string, text: string) =>
  host().exec(`printf '%s' '${text}' > ${path} && systemctl daemon-reload`);

const read = async (objects: Record<string, { kind: string; spec: object }>, target = hostTarget(host())) =>
  (await invokeBatch(linuxDomain(), target, objects, env())).result ?? {};

test('a unit reloaded with new content but not restarted reads as a pending restart until the apply', async () => {
  const spec = unitSpec('st-u.service', service('b'));
  expect((await unit.run('apply', unitSpec('st-u.service', service('a')))).code).toBe(0);
  await editAndReload(`${DIR}/st-u.service`, service('b'));
  expect(await runningVariant('st-u.service')).toBe('a');
  const stale = (await unit.run('read', spec)).result;
  expect(stale?.in_sync).toBe('false');
  expect(stale?.summary).toMatch(
    /^unit st-u\.service on \S+ \(active\/running\): restart pending: its process started before its content changed/,
  );
  expect((await unit.run('apply', spec)).stderr).toMatch(/st-u\.service on \S+: restarted$/m);
  expect(await runningVariant('st-u.service')).toBe('b');
  expect((await unit.run('read', spec)).result?.in_sync).toBe('true');
});

test('so is one restarted by hand, then changed and reloaded: the content is newer than the process', async () => {
  const spec = unitSpec('st-h.service', service('b'));
  expect((await unit.run('apply', unitSpec('st-h.service', service('a')))).code).toBe(0);
  await host().exec('systemctl restart st-h.service && sleep 1.1');
  await editAndReload(`${DIR}/st-h.service`, service('b'));
  expect((await unit.run('read', spec)).result?.summary).toMatch(/restart pending: its process started before/);
  expect((await unit.run('apply', spec)).code).toBe(0);
  expect(await runningVariant('st-h.service')).toBe('b');
  expect((await unit.run('read', spec)).result?.in_sync).toBe('true');
});

// Regression: ctimes and starts were compared in whole seconds, so content changed in the second of a hand restart
// read in sync while the process ran the content before it.
test('so is one changed and reloaded in the same second as a restart by hand', async () => {
  const spec = unitSpec('st-s.service', service('b'));
  expect((await unit.run('apply', unitSpec('st-s.service', service('a')))).code).toBe(0);
  const file = `${DIR}/st-s.service`;
  // At the start of a second: the restart and the write land in it (checked below, so the test cannot pass vacuously).
  await host().exec(
    'sleep $(date +%N | awk \'{printf "%.3f", 1 - $1 / 1e9}\') && systemctl restart st-s.service && ' +
      `printf '%s' '${service('b')}' > ${file} && systemctl daemon-reload`,
  );
  const seconds = await host().exec(
    `stat -c %Z ${file}; date -d "$(systemctl show -p ExecMainStartTimestamp --value st-s.service)" +%s`,
  );
  const [changed, started] = seconds.stdout.trim().split('\n');
  expect(changed).toBe(started);
  expect(await runningVariant('st-s.service')).toBe('a');
  expect((await unit.run('read', spec)).result?.summary).toMatch(/restart pending: its process started before/);
  expect((await unit.run('apply', spec)).code).toBe(0);
  expect(await runningVariant('st-s.service')).toBe('b');
  expect((await unit.run('read', spec)).result?.in_sync).toBe('true');
});

// The audit's F: `cp -p`, `rsync -a`, `tar x` and `install -p` set a file's mtime back, never its ctime.
test('so is one whose declared file was put back with an old mtime under a process running other content', async () => {
  const spec = unitSpec('st-p.service', service('a'));
  expect((await unit.run('apply', spec)).code).toBe(0);
  const file = `${DIR}/st-p.service`;
  await host().exec(`cp -p ${file} /root/st-p.service && sleep 1.1`);
  await editAndReload(file, service('handmade'));
  await host().exec(`systemctl restart st-p.service && sleep 1.1 && cp -p /root/st-p.service ${file}`);
  await host().exec('systemctl daemon-reload');
  expect((await unit.run('read', spec)).result?.summary).toMatch(/restart pending: its process started before/);
  expect((await unit.run('apply', spec)).code).toBe(0);
  expect(await runningVariant('st-p.service')).toBe('a');
});

// Regression: `stat -L` dated the file a drop-in symlink points to, so a link pointed at an older file by hand read
// in sync under a process started with the first.
test('so is one whose host drop-in symlink was pointed at an older file, then reloaded', async () => {
  const spec = unitSpec('st-l.service', service('declared'));
  expect((await unit.run('apply', spec)).code).toBe(0);
  await host().exec(
    "mkdir -p /srv/st-l && printf '[Service]\\nEnvironment=V=a\\n' > /srv/st-l/a.conf && " +
      "printf '[Service]\\nEnvironment=V=b\\n' > /srv/st-l/b.conf && " +
      `mkdir -p ${DIR}/st-l.service.d && ln -s /srv/st-l/a.conf ${DIR}/st-l.service.d/zz.conf && ` +
      'systemctl daemon-reload && sleep 1.1 && systemctl restart st-l.service && sleep 1.1 && ' +
      `ln -sfn /srv/st-l/b.conf ${DIR}/st-l.service.d/zz.conf && systemctl daemon-reload`,
  );
  expect(await runningVariant('st-l.service')).toBe('a');
  expect((await unit.run('read', spec)).result?.summary).toMatch(/restart pending: its process started before/);
  expect((await unit.run('apply', spec)).code).toBe(0);
  expect(await runningVariant('st-l.service')).toBe('b');
  expect((await unit.run('read', spec)).result?.in_sync).toBe('true');
});

test('a drop-in changed and reloaded under a running unit names the restart on the drop-in and its unit', async () => {
  const objects = (v: string) => ({
    d: { kind: 'systemd-unit', spec: unitSpec('st-d.service', service('a').replace('Environment=V=a\n', '')) },
    dv: { kind: 'systemd-drop-in', spec: dropIn(v), after: ['d'] },
  });
  expect((await invokeBatchApply(linuxDomain(), hostTarget(host()), objects('a'), env())).code).toBe(0);
  await editAndReload(`${DIR}/st-d.service.d/10-v.conf`, dropIn('b').content);
  const stale = await read(objects('b'));
  expect([stale['d.in_sync'], stale['dv.in_sync']]).toEqual(['false', 'false']);
  expect(stale['dv.summary']).toMatch(/10-v\.conf on \S+: st-d\.service: restart pending: its process started before/);
  const applied = await invokeBatchApply(linuxDomain(), hostTarget(host()), objects('b'), env());
  expect(applied.stderr).toMatch(/^d: restarted$/m);
  expect(await runningVariant('st-d.service')).toBe('b');
  expect((await read(objects('b')))['.summary']).toBe('all 2 objects are in sync');
});

test('a wants link removed or made by hand without a reload reads as drift, and the apply mends it', async () => {
  const on = unitSpec('st-e.service', service('a'));
  const off = unitSpec('st-f.service', service('a'), { enabled: false });
  for (const spec of [on, off]) expect((await unit.run('apply', spec)).code).toBe(0);
  const wants = `${DIR}/multi-user.target.wants`;
  // pid 1 computes a unit's UnitFileState at its first look after a reload (a plan's read), then keeps it.
  await host().exec('systemctl show -p UnitFileState st-e.service st-f.service');
  await host().exec(`rm ${wants}/st-e.service && ln -s ${DIR}/st-f.service ${wants}/st-f.service`);
  // What systemd itself says until a reload: the state of that look.
  expect(await unit.show('st-e.service')).toMatchObject({ UnitFileState: 'enabled', NeedDaemonReload: 'no' });
  expect(await unit.show('st-f.service')).toMatchObject({ UnitFileState: 'disabled', NeedDaemonReload: 'no' });
  const [e, f] = [(await unit.run('read', on)).result, (await unit.run('read', off)).result];
  expect([e?.in_sync, f?.in_sync]).toEqual(['false', 'false']);
  expect(e?.summary).toMatch(/^unit st-e\.service on \S+ \(active\/running\) differs: enabled is false, want true$/);
  expect(f?.summary).toMatch(/^unit st-f\.service on \S+ \(active\/running\) differs: enabled is true, want false$/);
  for (const spec of [on, off]) expect((await unit.run('apply', spec)).code).toBe(0);
  expect((await host().exec(`ls ${wants}`)).stdout.split('\n')).toEqual(expect.arrayContaining(['st-e.service']));
  expect((await host().exec(`ls ${wants}`)).stdout).not.toContain('st-f.service');
  for (const spec of [on, off]) expect((await unit.run('read', spec)).result?.in_sync).toBe('true');
});

test("so is an instance's wants link removed by hand: the read says so, and the apply enables it again", async () => {
  const template = unitSpec('st-t@.service', service('a'), { enabled: false, started: false });
  const instance = instanceSpec('st-t@a.service');
  const run = (verb: 'read' | 'apply') =>
    invoke(linuxDomain(), 'systemd-instance', verb, hostTarget(host()), instance, env());
  expect((await unit.run('apply', template)).code).toBe(0);
  expect((await run('apply')).code).toBe(0);
  await host().exec('systemctl show -p UnitFileState st-t@a.service');
  await host().exec(`rm ${DIR}/multi-user.target.wants/st-t@a.service`);
  expect(await unit.show('st-t@a.service')).toMatchObject({ UnitFileState: 'enabled', NeedDaemonReload: 'no' });
  expect((await run('read')).result?.summary).toMatch(/differs: enabled is false, want true$/);
  expect((await run('apply')).code).toBe(0);
  expect((await run('read')).result?.in_sync).toBe('true');
});

test("an earlier version's records (restartOn alone, a bare drop-in mark) read as the stack's, in sync", async () => {
  const objects = {
    d: { kind: 'systemd-unit', spec: unitSpec('st-d.service', service('a').replace('Environment=V=a\n', '')) },
    dv: { kind: 'systemd-drop-in', spec: dropIn('b'), after: ['d'] },
  };
  const record = '/var/lib/cdktf-homelab/restart-on/st-d.service';
  const mark = `/var/lib/cdktf-homelab/drop-ins${DIR}/st-d.service.d/10-v.conf`;
  await host().exec(
    `cut -d' ' -f1 ${record} > ${record}.old && mv ${record}.old ${record}; echo cdktf-homelab > ${mark}`,
  );
  expect((await host().exec(`cat ${record} ${mark}`)).stdout).toMatch(/^[0-9a-f]{64}\ncdktf-homelab\n$/);
  expect((await read(objects))['.summary']).toBe('all 2 objects are in sync');
  // A read login sees the records and the intents (0644 in 0755 directories), and reads the same.
  expect((await read(objects, hostTarget(host(), { user: 'deploy' })))['.summary']).toBe('all 2 objects are in sync');
  expect((await host().exec('stat -c %a /var/lib/cdktf-homelab /var/lib/cdktf-homelab/intents')).stdout).toBe(
    '755\n755\n',
  );
});
