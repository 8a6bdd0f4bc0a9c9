/**
 * A unit bound to another (BindsTo, PartOf, Requires) that the same apply changes and whose dep it destroys, on
 * real terraform and the real systemd host: the dep's destroy hook runs before the host's batch apply, and its stop
 * stops the app with it, so the batch apply must not find the app changed since its plan and refuse it. A unit that
 * only Wants or is After the dep is not stopped with it. One made by hand, bound to a dep, is named in the plan as
 * stopped by that dep's destroy.
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { CdktfProject } from '../support/cdktf-project';
import { startSystemdHost, type SystemdHost } from '../support/systemd-host';

jest.setTimeout(300_000);

let host: SystemdHost;
let project: CdktfProject;
const PAIRS = ['bt', 'po', 'rq', 'wa', 'af', 'pk'];
const CHAIN = ['ch-mid.service', 'ch-top.service', 'ch-app.service'];

const flat = (text: string) => text.replace(/\s+/g, ' ');
const state = async (name: string) =>
  (await host.exec(`systemctl show -p ActiveState,SubState,LoadState -- ${name}`)).stdout.trim().split('\n').join(' ');

beforeAll(async () => {
  host = await startSystemdHost();
  project = new CdktfProject('build/e2e/binds-app.js', 'binds', {
    HOMELAB_SSH_HOST: host.host,
    HOMELAB_SSH_PORT: String(host.port),
    HOMELAB_SSH_HOST_KEY: host.hostKeyFingerprint,
    HOMELAB_SSH_KEY: host.privateKey,
  });
  // The record a removal is told from is kept for the app cdktf.json names.
  const app = join(__dirname, '..', '..', 'build', 'e2e', 'binds-app.js');
  writeFileSync(join(project.dir, 'cdktf.json'), JSON.stringify({ language: 'typescript', app: `node ${app}` }));
  await project.must('synth (all)', project.synth({ HOMELAB_BINDS_STEP: 'all' }));
  await project.must('init', project.terraform('init', '-no-color'));
});

afterAll(async () => {
  console.log(`binds e2e timings (s): ${project?.report()}`);
  await host?.stop();
  project?.cleanup();
});

test('the first apply starts every app and its dep', async () => {
  await project.must('apply (create)', project.terraform('apply', '-auto-approve', '-no-color'));
  for (const pair of PAIRS) {
    for (const unit of [`${pair}-app.service`, `${pair}-dep.service`])
      expect([unit, await state(unit)]).toEqual([unit, 'LoadState=loaded ActiveState=active SubState=running']);
  }
  for (const unit of ['ch-dep.service', ...CHAIN])
    expect([unit, await state(unit)]).toEqual([unit, 'LoadState=loaded ActiveState=active SubState=running']);
  expect((await project.plan('plan (after create)')).code).toBe(0);
});

// Regression: the dep's destroy stopped a BindsTo/PartOf/Requires app before the batch apply read it, which then
// refused the app as changed since its plan (running then, stopped now), so the apply did not converge.
test('an app changed in the apply that destroys its dep is applied and runs; the plan after is clean', async () => {
  // Made by hand, declared by no stack: bt-dep's destroy stops it too (before, no line of the plan said so).
  const hand = '[Unit]\nBindsTo=bt-dep.service\nAfter=bt-dep.service\n[Service]\nExecStart=/bin/sleep infinity\n';
  const made = await host.exec(
    `printf '%s' '${hand}' > /etc/systemd/system/hand-ship.service && systemctl daemon-reload && ` +
      'systemctl start hand-ship.service',
  );
  expect(made.code).toBe(0);
  await project.must('synth (removed)', project.synth({ HOMELAB_BINDS_STEP: 'removed' }));
  const planned = await project.plan('plan (removed)', '-out', 'plan.bin');
  expect(planned.code).toBe(2);
  expect(flat(planned.stdout)).toContain(
    `- bt-dep: unit bt-dep.service on ${host.host}:${host.port}, if this plan destroys it: its destroy stops ` +
      'hand-ship.service too (running, and no stack declares it); hand-ship.service cannot start again without it ' +
      '(Unit bt-dep.service not found): it BindsTo=, Requires= or Requisite= it',
  );
  // The plan says which apps the destroys stop: those bound to, part of or requiring their dep, pk-app too, which
  // does not change and which the apply starts again (before, the apply left it stopped and its plan said nothing).
  const stops = [...flat(planned.stdout).matchAll(/the destroy of (\S+), which this plan runs before the apply/g)];
  expect([...new Set(stops.map((m) => m[1]))].sort()).toEqual([
    'bt-dep.service',
    'ch-dep.service',
    'pk-dep.service',
    'po-dep.service',
    'rq-dep.service',
  ]);
  expect(flat(planned.stdout)).toContain('then stopped by the destroy of pk-dep.service');
  // A level further down: ch-top and ch-app go with ch-mid (before, ch-top's plan was clean and ch-app was refused).
  const chained = [
    ...flat(planned.stdout).matchAll(
      /(ch-\w+)\.service on \S+ (?:(?!stops it too).){0,400}stops it too \(with (\S+)\)/g,
    ),
  ];
  expect(chained.map((m) => [m[1], m[2]]).sort()).toEqual([
    ['ch-app', 'ch-mid.service'],
    ['ch-top', 'ch-mid.service'],
  ]);
  const applied = await project.terraform('apply', '-no-color', 'plan.bin');
  expect(flat(applied.stdout + applied.stderr)).not.toContain('cannot be applied as planned');
  expect(applied.code).toBe(0);
  // Each dep's destroy ends before the host's batch apply begins: the order that stops the apps first.
  const began = applied.stdout.indexOf('terraform_data.host_apply: Creating...');
  for (const pair of PAIRS) {
    const ended = applied.stdout.indexOf(`terraform_data.${pair}-dep_lifecycle: Destruction complete`);
    expect([pair, ended >= 0 && ended < began]).toEqual([pair, true]);
  }
  for (const pair of PAIRS) {
    const [app, dep] = [`${pair}-app.service`, `${pair}-dep.service`];
    expect([app, await state(app)]).toEqual([app, 'LoadState=loaded ActiveState=active SubState=running']);
    expect([dep, await state(dep)]).toEqual([dep, 'LoadState=not-found ActiveState=inactive SubState=dead']);
  }
  for (const unit of CHAIN)
    expect([unit, await state(unit)]).toEqual([unit, 'LoadState=loaded ActiveState=active SubState=running']);
  expect((await host.exec('systemctl show -p Environment -- bt-app.service')).stdout).toContain('A=2');
  expect(await state('hand-ship.service')).toBe('LoadState=loaded ActiveState=inactive SubState=dead');
  expect((await host.exec('systemctl start hand-ship.service')).stderr).toContain('Unit bt-dep.service not found.');
  expect((await project.plan('plan (after removed)')).code).toBe(0);
});
