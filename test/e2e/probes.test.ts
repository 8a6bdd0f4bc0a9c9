/**
 * Real terraform on examples/probes.ts against the real systemd host: a template and two instances
 * (apply, clean plan, an instance stopped by hand named in the plan, one-apply fix), a drop-in whose
 * change restarts its instance, one instance retired while the template and the other stay, and
 * 50 plain units at -parallelism=30, past sshd's MaxStartups.
 */
import { CdktfProject } from '../support/cdktf-project';
import { startSystemdHost, type SystemdHost } from '../support/systemd-host';

jest.setTimeout(600_000);

let host: SystemdHost;
let project: CdktfProject;

const show = async (name: string) =>
  (await host.exec(`systemctl show -p ActiveState,UnitFileState,MainPID,Environment -- ${name}`)).stdout;
const synth = (env: NodeJS.ProcessEnv) => project.must('synth', project.synth({ HOMELAB_PROBES: 'tty8,tty9', ...env }));
const apply = (label: string, ...args: string[]) =>
  project.must(label, project.terraform('apply', '-auto-approve', '-no-color', ...args));

beforeAll(async () => {
  host = await startSystemdHost();
  project = new CdktfProject('build/examples/probes.js', 'probes', {
    HOMELAB_SSH_HOST: host.host,
    HOMELAB_SSH_PORT: String(host.port),
    HOMELAB_SSH_HOST_KEY: host.hostKeyFingerprint,
    HOMELAB_SSH_KEY: host.privateKey,
  });
  await synth({});
  await project.must('init', project.terraform('init', '-no-color'));
});

afterAll(async () => {
  console.log(`probes e2e timings (s): ${project?.report()}`);
  await host?.stop();
  project?.cleanup();
});

test('a template and two instances apply, and the next plan is clean', async () => {
  const applied = await apply('apply (create)');
  console.log(applied.stdout);
  expect(await show('hf-probe@tty8.service')).toMatch(/ActiveState=active[\s\S]*UnitFileState=enabled/);
  expect(await show('hf-probe@tty9.service')).toMatch(/ActiveState=active[\s\S]*UnitFileState=enabled/);
  expect(await show('hf-probe@tty8.service')).toContain('Environment=LEVEL=info');
  // no file of an instance's own, which would shadow the template (tty8's drop-in is a directory)
  expect((await host.exec('ls /etc/systemd/system/ | grep "^hf-probe.*service$"')).stdout.trim()).toBe(
    'hf-probe@.service',
  );
  expect((await project.plan('plan (clean)')).code).toBe(0);
});

test('an instance stopped by hand is named in the plan, and one apply starts it', async () => {
  await host.exec('systemctl stop hf-probe@tty9.service');
  const drifted = await project.plan('plan (drift)');
  console.log(drifted.stdout);
  expect(drifted.code).toBe(2);
  expect(drifted.stdout.replace(/\s+/g, ' ')).toContain(
    `- probe-tty9: unit hf-probe@tty9.service on 127.0.0.1:${host.port} (inactive/dead) differs: ` +
      'running is "inactive/dead", want "running"',
  );
  await apply('apply (fix drift)');
  expect(await show('hf-probe@tty9.service')).toMatch(/ActiveState=active/);
  expect((await project.plan('plan (after fix)')).code).toBe(0);
});

test('a drop-in change restarts its running instance', async () => {
  const before = /MainPID=(\d+)/.exec(await show('hf-probe@tty8.service'))?.[1];
  await synth({ HOMELAB_PROBE_LEVEL: 'debug' });
  const applied = await apply('apply (drop-in change)');
  console.log(applied.stdout);
  const after = await show('hf-probe@tty8.service');
  expect(after).toContain('Environment=LEVEL=debug');
  expect(/MainPID=(\d+)/.exec(after)?.[1]).not.toBe(before);
  // The service's own line can reach the journal after systemd's "Started" (seen in CI under load): poll, bounded.
  const probed = await host.exec(
    'for i in $(seq 50); do journalctl -u hf-probe@tty8.service --no-pager | tail -n 2 | ' +
      'grep "probing tty8 at level debug" && exit 0; sleep 0.2; done; exit 1',
  );
  expect(probed.stdout).toContain('probing tty8 at level debug');
  expect((await project.plan('plan (after drop-in)')).code).toBe(0);
});

test('retiring one instance stops and disables it; the template and the other instance stay', async () => {
  await synth({ HOMELAB_PROBE_LEVEL: 'debug', HOMELAB_RETIRED_PROBES: 'tty9' });
  const applied = await apply('apply (retire tty9)');
  console.log(applied.stdout);
  expect(applied.stdout).toMatch(/hf-probe@tty9.service on 127.0.0.1:\d+: stopped and disabled; its template stays/);
  expect(await show('hf-probe@tty9.service')).toMatch(/ActiveState=inactive[\s\S]*UnitFileState=disabled/);
  expect(await show('hf-probe@tty8.service')).toMatch(/ActiveState=active[\s\S]*UnitFileState=enabled/);
  expect((await host.exec('test -f /etc/systemd/system/hf-probe@.service; echo $?')).stdout.trim()).toBe('0');
  expect((await project.plan('plan (after retire)')).code).toBe(0);
});

const activeFleet = async () =>
  (await host.exec('systemctl list-units --plain --no-legend --state=active "hf-fleet-*" | wc -l')).stdout.trim();

test('one unit whose ExecStart fails among 20 fails the apply naming it; the other 19 stay converged', async () => {
  const fleet = { HOMELAB_PROBE_LEVEL: 'debug', HOMELAB_RETIRED_PROBES: 'tty9', HOMELAB_FLEET: '20' };
  await synth({ ...fleet, HOMELAB_FLEET_BROKEN: '7' });
  const failed = await project.terraform('apply', '-auto-approve', '-no-color');
  expect(failed.code).toBe(1);
  const words = `${failed.stdout}\n${failed.stderr}`.replace(/\s+/g, ' ');
  expect(words).toMatch(/fleet-7: not applied: hf-fleet-7\.service/);
  expect(words).toMatch(/1 of 2\d objects on root@127\.0\.0\.1:\d+ were not applied \(fleet-7\)/);
  expect(await activeFleet()).toBe('19');
  await synth(fleet);
  const fixed = await apply('apply (fleet-7 fixed)');
  expect([...fixed.stdout.matchAll(/\(local-exec\): fleet-(\d+):/g)].map((m) => m[1])).toEqual(
    expect.arrayContaining(['7']),
  );
  expect(fixed.stdout).not.toMatch(/\(local-exec\): fleet-1[0-9]?:/);
  expect(await activeFleet()).toBe('20');
  expect((await project.plan('plan (20 units)')).code).toBe(0);
});

test('200 units at -parallelism=30 apply in one handler process, plan clean, and destroy', async () => {
  await synth({ HOMELAB_PROBE_LEVEL: 'debug', HOMELAB_RETIRED_PROBES: 'tty9', HOMELAB_FLEET: '200' });
  const applied = await apply('apply (200 units, -parallelism=30)', '-parallelism=30').catch(async (error: Error) => {
    // A unit systemd left queued (seen in CI): what systemd itself logged, ahead of terraform's long output.
    const stuck = /(hf-fleet-\d+\.service) did not become active/.exec(error.message)?.[1] ?? 'hf-fleet-';
    const log = await host.exec(`journalctl _PID=1 --no-pager -o short-monotonic | grep -F '${stuck}' | tail -n 40`);
    const jobs = await host.exec('systemctl list-jobs --no-pager');
    throw new Error(`systemd's log of ${stuck}:\n${log.stdout}\n${jobs.stdout}\n${error.message}`);
  });
  // One handler process: the batch apply (the replaced apply's teardown hook, when there is one, ends in sh).
  expect([...applied.stdout.matchAll(/\(local-exec\): Executing: .*batch apply/g)]).toHaveLength(1);
  expect(await activeFleet()).toBe('200');
  expect((await project.plan('plan (200 units)', '-parallelism=30')).code).toBe(0);
  const since = (await host.exec('date +%s')).stdout.trim();
  const destroyed = await project.must(
    'destroy',
    project.terraform('destroy', '-auto-approve', '-no-color', '-parallelism=30'),
  );
  expect((await host.exec('ls /etc/systemd/system | grep "^hf-" ; true')).stdout).toBe('');
  // Each destroy hook names its own unit, though the hooks that ran together shared one run (the relay).
  for (const n of [0, 99, 199]) {
    expect(destroyed.stdout).toMatch(new RegExp(`fleet-${n}_lifecycle \\(local-exec\\): hf-fleet-${n}\\.service on `));
  }
  const logins = await host.exec(
    `journalctl -u ssh --since @${since} --no-pager | grep -c "Accepted publickey" || true`,
  );
  project.timings['destroy SSH logins'] = Number(logins.stdout.trim());
  // One per object before the relay (200 and more); one per run now, a run serving its target while hooks come.
  expect(Number(logins.stdout.trim())).toBeLessThan(20);
});
