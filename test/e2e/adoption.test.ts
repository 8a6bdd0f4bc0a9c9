/**
 * Adoption on real terraform (or tofu) against the real systemd host: a unit, a template, its instance
 * and a drop-in made by hand are named in the plan as not created by this stack, and the apply refuses
 * them, naming each and the prop, while a new unit is created; refused, each survives retiring it,
 * taking it out of the code and terraform destroy (issue 27); with adopt: true the plan says they will
 * be adopted, the apply takes them over without restarting anything, and destroy deletes them. A second
 * stack declaring them (another folder, its own stack identity) is refused even with adopt and its
 * destroy leaves them running (issue 27 item 3).
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { CdktfProject } from '../support/cdktf-project';
import { startSystemdHost, type SystemdHost } from '../support/systemd-host';

jest.setTimeout(300_000);

let host: SystemdHost;
let project: CdktfProject;
const seconds: CdktfProject[] = [];
let hostEnv: NodeJS.ProcessEnv;
const DIR = '/etc/systemd/system';
const SLEEPER = '[Service]\nExecStart=/bin/sleep infinity\n\n[Install]\nWantedBy=multi-user.target\n';
const words = (text: string) => text.replace(/\s+/g, ' ');
const mainPid = async (unit: string) => (await host.exec(`systemctl show -p MainPID --value ${unit}`)).stdout.trim();
const synth = (adopt: boolean, step = 'declared') =>
  project.must(`synth (${step})`, project.synth({ HOMELAB_ADOPT: adopt ? '1' : '0', HOMELAB_ADOPTION_STEP: step }));
const apply = () => project.terraform('apply', '-auto-approve', '-no-color');

beforeAll(async () => {
  host = await startSystemdHost();
  hostEnv = {
    HOMELAB_SSH_HOST: host.host,
    HOMELAB_SSH_PORT: String(host.port),
    HOMELAB_SSH_HOST_KEY: host.hostKeyFingerprint,
    HOMELAB_SSH_KEY: host.privateKey,
  };
  project = new CdktfProject('build/e2e/adoption-app.js', 'adoption', hostEnv);
  const made = await host.exec(
    `printf '%s' '${SLEEPER}' > ${DIR}/hand.service && cp ${DIR}/hand.service ${DIR}/probe@.service && ` +
      `mkdir -p ${DIR}/hand.service.d && printf '[Service]\\nNice=5\\n' > ${DIR}/hand.service.d/10-hand.conf && ` +
      'systemctl daemon-reload && systemctl enable --now hand.service probe@x.service',
  );
  expect(made.code).toBe(0);
  // The app it names is the one project.synth runs: the record (and so a removal) is kept for it alone.
  const app = join(__dirname, '..', '..', 'build', 'e2e', 'adoption-app.js');
  writeFileSync(join(project.dir, 'cdktf.json'), JSON.stringify({ language: 'typescript', app: `node ${app}` }));
  await synth(false);
  await project.must('init', project.terraform('init', '-no-color'));
});

afterAll(async () => {
  console.log(`adoption e2e timings (s): ${project?.report()}`);
  await host?.stop();
  project?.cleanup();
  for (const second of seconds) second.cleanup();
});

test('without adopt the plan names each hand-made object and the apply refuses them, creating the others', async () => {
  const planned = words((await project.plan('plan (not adopted)')).stdout);
  for (const name of ['hand', 'probe', 'probe-x', 'limits']) {
    expect(planned).toMatch(
      new RegExp(`- ${name}: exists on root@127.0.0.1:\\d+, not created by this stack: the apply will refuse it`),
    );
  }
  const applied = await apply();
  expect(applied.code).toBe(1);
  const said = words(applied.stdout + applied.stderr);
  expect(said).toMatch(
    /hand: not applied: exists on root@127.0.0.1:\d+, not created by this stack, and its construct does not say adopt/,
  );
  expect(said).toMatch(/4 of 5 objects on root@127.0.0.1:\d+ were not applied \(/);
  expect((await host.exec('systemctl is-active fresh.service')).stdout.trim()).toBe('active');
});

test('refused, each survives retiring it, taking it out of the code, and terraform destroy', async () => {
  const LIFECYCLES = ['hand', 'probe', 'probe-x', 'limits'].map((name) => `terraform_data.${name}_lifecycle`);
  const pids = [await mainPid('hand.service'), await mainPid('probe@x.service')];
  const files = `${DIR}/hand.service ${DIR}/probe@.service ${DIR}/hand.service.d/10-hand.conf`;
  const survived = async (said: string) => {
    expect(words(said).match(/not created by this stack \(never adopted\): left as it is/g)).toHaveLength(4);
    expect((await host.exec(`ls ${files}`)).code).toBe(0);
    expect([await mainPid('hand.service'), await mainPid('probe@x.service')]).toEqual(pids);
    expect((await host.exec('systemctl is-enabled hand.service probe@x.service')).stdout).toBe('enabled\nenabled\n');
  };
  const declaredAgain = async () => {
    await synth(false);
    expect((await apply()).code).toBe(1);
    const state = (await project.must('state', project.terraform('state', 'list'))).stdout;
    for (const lifecycle of LIFECYCLES) expect(state).toContain(lifecycle);
  };
  for (const step of ['retired', 'removed']) {
    await declaredAgain();
    await synth(false, step);
    const applied = await project.must(`apply (${step})`, apply());
    await survived(applied.stdout + applied.stderr);
  }
  await declaredAgain();
  const destroyed = await project.must('destroy (refused)', project.terraform('destroy', '-auto-approve', '-no-color'));
  await survived(destroyed.stdout + destroyed.stderr);
  expect((await host.exec('test -e /etc/systemd/system/fresh.service; echo $?')).stdout.trim()).toBe('1');
});

test('with adopt the plan says will be adopted, the apply restarts nothing', async () => {
  const pids = [await mainPid('hand.service'), await mainPid('probe@x.service')];
  await synth(true);
  const planned = words((await project.plan('plan (adopt)')).stdout);
  expect(planned).toMatch(/- hand: exists on root@127.0.0.1:\d+, not created by this stack: will be adopted/);
  expect((await apply()).code).toBe(0);
  expect([await mainPid('hand.service'), await mainPid('probe@x.service')]).toEqual(pids);
  expect((await project.plan('plan (clean)')).code).toBe(0);
});

test('a second stack declaring the same objects, adopt or not, is refused and its destroy leaves them', async () => {
  // Issue 27 item 3: the second stack read the first one's unit in sync and its destroy deleted it.
  const second = new CdktfProject('build/e2e/adoption-app.js', 'adoption', hostEnv);
  seconds.push(second);
  writeFileSync(join(second.dir, 'cdktf.json'), readFileSync(join(project.dir, 'cdktf.json')));
  await second.must('synth (second)', second.synth({ HOMELAB_ADOPT: '1', HOMELAB_STACK_ID: 'second' }));
  await second.must('init (second)', second.terraform('init', '-no-color'));
  const pids = [await mainPid('hand.service'), await mainPid('probe@x.service'), await mainPid('fresh.service')];
  const planned = words((await second.plan('plan (second)')).stdout);
  for (const name of ['hand', 'probe', 'probe-x', 'limits', 'fresh']) {
    expect(planned).toMatch(
      new RegExp(`- ${name}: exists on root@127.0.0.1:\\d+, marked by stack "adoption", not this stack "second"`),
    );
  }
  const applied = await second.terraform('apply', '-auto-approve', '-no-color');
  expect(applied.code).toBe(1);
  expect(words(applied.stdout + applied.stderr)).toMatch(/5 of 5 objects on root@127.0.0.1:\d+ were not applied/);
  const destroyed = await second.must('destroy (second)', second.terraform('destroy', '-auto-approve', '-no-color'));
  const left = /marked by stack "adoption", not this stack "second": left as it is/g;
  expect(words(destroyed.stdout + destroyed.stderr).match(left)).toHaveLength(5);
  expect([await mainPid('hand.service'), await mainPid('probe@x.service'), await mainPid('fresh.service')]).toEqual(
    pids,
  );
  expect((await project.plan('plan (first, after the second)')).code).toBe(0);
});

test('destroy deletes what the stack adopted', async () => {
  await project.must('destroy', project.terraform('destroy', '-auto-approve', '-no-color'));
  const left = await host.exec(`ls ${DIR}/hand.service ${DIR}/probe@.service ${DIR}/hand.service.d/10-hand.conf`);
  expect(left.stderr.match(/No such file/g)).toHaveLength(3);
});
