/**
 * The sh destroy hook (handlers/destroy-hook.sh) through real Terraform on the real systemd host. A destroy of the
 * whole state removes 20 units in the host's teardown, one Node start and one run, and each unit's hook prints its own
 * outcome; a destroy naming the units (`-target`) leaves the teardown idle, and their hooks hand their objects to one
 * Node leader (no other Node destroy starts). Either way a unit whose file cannot be removed fails its own hook alone
 * with its own message while the other 19 are gone, and the relay folder is empty after; a leader or a teardown
 * killed mid-run leaves no hook hanging, and the next destroy finishes the rest.
 * Timing is the test's, never the machine's: under CI's load (10-22 on 2 cores) the leader took 4-5 s to start
 * serving and hooks whose 5 s acknowledgement watchdog ran out first destroyed through the Node hook (a correct
 * outcome, 19 Node starts where the test counted one); and a test that fails never leaves its bind mount for the next.
 */
import { chmodSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { unitHostEnv } from '../../bench/plan-scale-objects';
import { CdktfProject } from '../support/cdktf-project';
import { startSystemdHost, type SystemdHost } from '../support/systemd-host';

jest.setTimeout(900_000);

const N = 20;
const STUCK = 'bench-7.service';
const FILE = `/etc/systemd/system/${STUCK}`;
let host: SystemdHost;
let project: CdktfProject;
let wrap: string;
/** While this file exists, the hooks' acknowledgement watchdog (`sleep 5`) runs 60 s instead (the `sleep` on PATH). */
let holdWatchdog: string | undefined;

/** Every Node start of a handler's destroy in the stack, as `<leader domain or -> <pid> <argv>` (the wrapper's log). */
const nodeDestroys = (): string[] =>
  readFileSync(join(wrap, 'log'), 'utf8')
    .split('\n')
    .filter((line) => / (destroy|batch teardown)$/.test(line));
/** Each lifecycle named: Terraform destroys them and what waits for them (the apply, the teardown), not the state. */
const TARGETS = Array.from({ length: N }, (_, i) => `-target=terraform_data.unit${i}_lifecycle`);
const relayLeft = () => readdirSync(join(project.stackDir, '.terraform', 'cdktf-homelab-relay'));
/** The bench unit files on the host (an inactive unit with nothing referring to it is not listed as a unit). */
const benchUnits = async () =>
  (await host.exec("ls /etc/systemd/system | grep '^bench-' || true")).stdout.split('\n').filter((line) => line !== '');
const apply = () => project.must('apply', project.terraform('apply', '-auto-approve', '-no-color'));
/** Counts the host's SSH logins from now on (sshd logs each `Accepted publickey`). */
const loginCounter = async () => {
  const shown = await host.exec('journalctl --flush; journalctl -n 0 --show-cursor -q');
  const cursor = /-- cursor: (\S+)/.exec(shown.stdout)?.[1];
  if (cursor === undefined) throw new Error(`no journal cursor on the systemd host: ${shown.stdout}${shown.stderr}`);
  return async () => {
    const read = `journalctl -q --no-pager -u ssh --after-cursor='${cursor}'`;
    return Number((await host.exec(`journalctl --sync; ${read} | grep -c 'Accepted publickey' || true`)).stdout.trim());
  };
};

beforeAll(async () => {
  host = await startSystemdHost();
  const { appEnv, env } = unitHostEnv(host);
  // `node` as the hooks find it: logs each start, then runs the real one in the same process.
  wrap = mkdtempSync(join(tmpdir(), 'node-wrap-'));
  const logged = `printf '%s %s %s\\n' "\${HOMELAB_RELAY_DOMAIN:--}" "$$" "$*" >>'${wrap}/log'`;
  writeFileSync(join(wrap, 'node'), `#!/bin/sh\n${logged}\nexec '${process.execPath}' "$@"\n`);
  chmodSync(join(wrap, 'node'), 0o755);
  // `sleep` as the hooks find it: the watchdog held while the test says so, any other sleep as asked.
  holdWatchdog = join(wrap, 'hold-watchdog');
  const held = `[ "$*" = 5 ] && [ -e '${holdWatchdog}' ] && exec /bin/sleep 60`;
  writeFileSync(join(wrap, 'sleep'), `#!/bin/sh\n${held}\nexec /bin/sleep "$@"\n`);
  chmodSync(join(wrap, 'sleep'), 0o755);
  writeFileSync(join(wrap, 'log'), '');
  project = new CdktfProject('build/bench/plan-scale-app.js', 'scale', { ...env, PATH: `${wrap}:${process.env.PATH}` });
  await project.must('synth', project.synth({ ...appEnv, BENCH_N: String(N) }));
  await project.must('init', project.terraform('init', '-no-color'));
});

/** Each test's mount and watchdog hold end with it, whether it passed or not: a failed test never breaks the next. */
afterEach(async () => {
  if (holdWatchdog !== undefined) rmSync(holdWatchdog, { force: true });
  await host?.exec(`while umount ${FILE} 2>/dev/null; do :; done`);
});

afterAll(async () => {
  await host?.stop();
  project?.cleanup();
  if (wrap !== undefined) rmSync(wrap, { recursive: true, force: true });
});

test('a whole destroy removes the units in one teardown; one that cannot be removed fails alone', async () => {
  await apply();
  expect(await benchUnits()).toHaveLength(N);
  // An apply replaces the batch apply, whose destroy hook the teardown is: no Node start when it is no destroy.
  await host.exec('systemctl stop bench-3.service');
  writeFileSync(join(wrap, 'log'), '');
  expect((await apply()).stdout).toMatch(/host_apply: Destruction complete/);
  expect(nodeDestroys()).toEqual([]);
  await host.exec(`mount --bind ${FILE} ${FILE}`);
  const logins = await loginCounter();
  const destroyed = await project.terraform('destroy', '-auto-approve', '-no-color');
  const output = `${destroyed.stdout}\n${destroyed.stderr}`;
  expect(destroyed.code).not.toBe(0);
  // One SSH login, the teardown's: the destroy's refresh ran the batch read, which reads nothing in a whole destroy.
  expect(await logins()).toBe(1);
  expect(output).toMatch(/host_apply \(local-exec\): teardown of host: 20 object\(s\) in one run, 1 failed/);
  // Each unit's hook prints its own outcome: 19 removed, one failed, under its own lifecycle.
  expect(
    output.match(/unit\d+_lifecycle \(local-exec\): bench-\d+\.service on [^ ]+: stopped, disabled and removed/g),
  ).toHaveLength(N - 1);
  // Once from the hook itself; Terraform's error block says it again, wrapped at 78 columns.
  expect(
    output.match(/unit7_lifecycle \(local-exec\): .*bench-7\.service on [^ ]+ was not wholly removed/g),
  ).toHaveLength(1);
  expect(output).toMatch(/Error: local-exec provisioner error[\s\S]*unit7_lifecycle/);
  expect(await benchUnits()).toEqual([STUCK]);
  const state = await project.terraform('state', 'list');
  expect(state.stdout.split('\n').filter((line) => /_(lifecycle|apply)$/.test(line))).toEqual([
    'terraform_data.unit7_lifecycle',
  ]);
  // One Node start for the 20 destroys: the teardown's; no hook led or destroyed alone.
  expect(nodeDestroys()).toEqual([expect.stringMatching(/^- \d+ .*linux\.js batch teardown$/)]);
  expect(relayLeft()).toEqual([]);
  await host.exec(`umount ${FILE}`);
  await project.must('destroy (the stuck unit)', project.terraform('destroy', '-auto-approve', '-no-color'));
  expect((await project.terraform('state', 'list')).stdout.trim()).toBe('');
  expect(await benchUnits()).toEqual([]);
  expect(relayLeft()).toEqual([]);
});

test('a teardown killed mid-run fails the destroy, no hook hangs; the next destroy removes the rest', async () => {
  await apply();
  writeFileSync(join(wrap, 'log'), '');
  const run = project.startTerraform('destroy', '-auto-approve', '-no-color');
  let teardown: number | undefined;
  for (const deadline = Date.now() + 120_000; teardown === undefined && Date.now() < deadline;) {
    await new Promise((resolve) => setTimeout(resolve, 20));
    const pid = nodeDestroys()
      .map((line) => /^- (\d+) .*batch teardown$/.exec(line)?.[1])
      .find((found) => found !== undefined);
    teardown = pid === undefined ? undefined : Number(pid);
  }
  expect(teardown).toBeDefined();
  process.kill(Number(teardown), 'SIGKILL');
  const ended = await run.exited;
  expect(ended.code).not.toBe(0);
  // Terraform stops at the teardown: every lifecycle is still in the state, whatever the run removed before it died,
  // and the next plan names each unit the run removed: it is clean only if the run had removed none.
  const state = await project.terraform('state', 'list');
  expect(state.stdout.split('\n').filter((line) => line.endsWith('_lifecycle'))).toHaveLength(N);
  const left = await benchUnits();
  const active = await host.exec(`systemctl is-active ${left.join(' ')}`);
  const planned = await project.plan('plan (after the killed teardown)');
  // Clean only when nothing changed: every unit still there and running.
  if (planned.code === 0) expect([left.length, active.code]).toEqual([N, 0]);
  for (let i = 0; i < N; i += 1) {
    if (!left.includes(`bench-${i}.service`)) expect(planned.stdout).toMatch(`bench-${i}.service`);
  }
  await project.must('destroy (after the kill)', project.terraform('destroy', '-auto-approve', '-no-color'));
  expect(await benchUnits()).toEqual([]);
  expect(relayLeft()).toEqual([]);
});

test('a destroy naming the units: one leader destroys them; the unit that cannot be removed fails alone', async () => {
  await apply();
  expect(await benchUnits()).toHaveLength(N);
  // Its file a mount point: `rm` fails with EBUSY, so this unit alone cannot be wholly removed.
  await host.exec(`mount --bind ${FILE} ${FILE}`);
  writeFileSync(join(wrap, 'log'), '');
  // One leader by construction, however slow the machine: every hook waits for its acknowledgement (the 5 s
  // bound and its fallback are sh-hook.test.ts's), and all 20 start at once, so none comes after the leader ended.
  const hold = join(wrap, 'hold-watchdog');
  writeFileSync(hold, '');
  const destroyed = await project.terraform('destroy', '-auto-approve', '-no-color', `-parallelism=${N}`, ...TARGETS);
  rmSync(hold);
  const output = `${destroyed.stdout}\n${destroyed.stderr}`;
  expect(destroyed.code).not.toBe(0);
  // Once from the hook itself; Terraform's error block says it again, wrapped at 78 columns.
  expect(
    output.match(/unit7_lifecycle \(local-exec\): .*bench-7\.service on [^ ]+ was not wholly removed/g),
  ).toHaveLength(1);
  expect(output).toMatch(/Error: local-exec provisioner error[\s\S]*unit7_lifecycle/);
  expect(output).toMatch(/teardown of host: not a destroy of the whole state; each object's destroy removes it/);
  expect(await benchUnits()).toEqual([STUCK]);
  const state = await project.terraform('state', 'list');
  expect(state.stdout.split('\n').filter((line) => line.endsWith('_lifecycle'))).toEqual([
    'terraform_data.unit7_lifecycle',
  ]);
  // One Node start for the 20 destroys: the leader, which the first hook became; and the teardown's, which saw the
  // targets and left the units to their hooks.
  expect(nodeDestroys()).toEqual([
    expect.stringMatching(/^- \d+ .*linux\.js batch teardown$/),
    expect.stringMatching(/^linux \d+ .*linux\.js systemd-unit destroy$/),
  ]);
  expect(relayLeft()).toEqual([]);
  await host.exec(`umount ${FILE}`);
  await project.must(
    'destroy (the stuck unit)',
    project.terraform('destroy', '-auto-approve', '-no-color', ...TARGETS),
  );
  // A targeted destroy leaves the read in the state, and no resource.
  expect((await project.terraform('state', 'list')).stdout.trim()).toBe('data.external.host_read');
  expect(relayLeft()).toEqual([]);
  // The half-removed unit kept its marks with its file, so this destroy removed it as the stack's, not left it
  // as one made by hand (before, its marks went without its file and the file stayed).
  expect(await benchUnits()).toEqual([]);
});

test('a leader killed mid-run leaves no hook hanging; the next destroy removes what is left', async () => {
  await apply();
  writeFileSync(join(wrap, 'log'), '');
  const run = project.startTerraform('destroy', '-auto-approve', '-no-color', ...TARGETS);
  let leader: number | undefined;
  for (const deadline = Date.now() + 120_000; leader === undefined && Date.now() < deadline;) {
    await new Promise((resolve) => setTimeout(resolve, 50));
    const pid = nodeDestroys()
      .map((line) => /^linux (\d+) /.exec(line)?.[1])
      .find((found) => found !== undefined);
    leader = pid === undefined ? undefined : Number(pid);
  }
  expect(leader).toBeDefined();
  process.kill(Number(leader), 'SIGKILL');
  const started = Date.now();
  const ended = await run.exited;
  // Hooks waiting on the dead leader give up within their 5 s watchdog and destroy through the Node hook.
  expect(Date.now() - started).toBeLessThan(240_000);
  expect(ended.code).not.toBe(0);
  await project.must(
    'destroy (after the kill)',
    project.terraform('destroy', '-auto-approve', '-no-color', ...TARGETS),
  );
  expect(await benchUnits()).toEqual([]);
  expect(relayLeft()).toEqual([]);
});
