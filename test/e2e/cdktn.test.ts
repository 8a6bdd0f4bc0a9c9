/**
 * Getting started as a new user follows it: CDK Terrain, the maintained fork of CDKTF, on Node 24. The packed library
 * in a fresh project set up by the README's blocks verbatim (cdktn + cdktn-cli, no cdktf anywhere), run against the
 * fake PVE to a clean second plan, then through drift and retirement. Guards against a Getting started that no longer
 * works as written, and constructs that extend another copy of the core library than the App's.
 */
import { writeFileSync } from 'node:fs';
import { basename, join } from 'node:path';
import { type FakePve, startFakePve } from '../fakes/pve/server';
import { makeCert, type TestCert } from '../support/tls';
import { terraformBinary } from '../support/toolchain';
import { readmeBlock, readmeRun, readmeStack, replaceOnce, UserProject, words } from '../support/user-project';

jest.setTimeout(900_000);

// cdktn-cli 0.24 declares node >= 22.19 and crashes on Node 20 ("markAsUncloneable is not a function").
const [major = 0, minor = 0] = process.versions.node.split('.').map(Number);
const nodeFits = major > 22 || (major === 22 && minor >= 19);
if (!nodeFits) {
  test.skip(`cdktn-cli needs Node >= 22.19, this is ${process.version}: .ci/run runs this file on Node 24`, () => {});
}
const describeOnFit = nodeFits ? describe : describe.skip;

const TOKEN = { id: 'terraform@pve!cdktn', secret: 'cdktn-pve-secret-7373' };
const ENV = { PROXMOX_VE_API_TOKEN: `${TOKEN.id}=${TOKEN.secret}`, INFLUX_TOKEN: 'cdktn-influx-token-8484' };

describeOnFit('a cdktn project', () => {
  let cert: TestCert;
  let fake: FakePve;
  let project: UserProject;
  let stack: string;

  const plan = async () => (await project.terraform('lab', 'plan -detailed-exitcode -no-color', ENV)).code;
  const apply = () =>
    project.must(
      'apply',
      `"${terraformBinary()}" apply -auto-approve -no-color`,
      join(project.dir, 'cdktf.out/stacks/lab'),
      ENV,
    );

  beforeAll(async () => {
    cert = makeCert();
    fake = await startFakePve({ tls: cert, tokens: { [TOKEN.id]: { secret: TOKEN.secret, privileges: 'modify' } } });
    project = new UserProject();
    const tarball = await project.pack();
    const setup = readmeBlock('setup'); // installs the tarball beside the project, where pack() put it
    expect(setup).toContain(`npm install ../${basename(tarball)} `);
    await project.must('setup (npm install)', setup, project.home);
    writeFileSync(join(project.dir, 'cdktf.json'), readmeBlock('cdktf.json'));
    writeFileSync(join(project.dir, 'tsconfig.json'), readmeBlock('tsconfig.json'));
    stack = readmeStack({ pveUrl: fake.url, caFile: cert.certFile }); // the README's, from 'cdktn'
    writeFileSync(join(project.dir, 'main.ts'), stack);
  });

  afterAll(async () => {
    console.log(`cdktn e2e timings (s): ${project?.report()}`);
    await fake?.stop();
    cert?.cleanup();
    project?.cleanup();
  });

  test('the project holds cdktn and no cdktf', async () => {
    const listed = await project.bash('ls node_modules');
    expect(listed.stdout.split('\n')).toEqual(expect.arrayContaining(['cdktn', 'cdktn-cli', 'cdktf-homelab']));
    expect(listed.stdout.split('\n')).not.toContain('cdktf');
  });

  test("the README's run block type-checks, synthesizes with `npx cdktn synth`, plans and applies", async () => {
    expect(readmeBlock('run')).toContain('\nnpx cdktn synth\n');
    const ran = await project.must('run block', readmeRun(), project.dir, ENV);
    expect(words(ran.stdout)).toContain('metric server "influx" is absent');
    expect(fake.metricServers().influx).toMatchObject({ type: 'influxdb', port: 8089 });
    expect(await plan()).toBe(0);
  });

  test('the systemd stack validates', async () => {
    expect((await project.terraform('n2', 'init -no-color')).code).toBe(0);
    const validated = await project.terraform('n2', 'validate -no-color');
    expect(validated.stdout).toContain('The configuration is valid.');
  });

  test('a hand edit shows in the plan, one apply fixes it, and the plan after is clean', async () => {
    fake.setMetricServer('influx', { ...fake.metricServers().influx, port: 9999 });
    const drifted = await project.terraform('lab', 'plan -detailed-exitcode -no-color', ENV);
    expect(drifted.code).toBe(2);
    expect(words(drifted.stdout)).toContain('metric server "influx" differs: port is 9999, want 8089');
    await apply();
    expect(fake.metricServers().influx?.port).toBe(8089);
    expect(await plan()).toBe(0);
  });

  test('a plain-JavaScript app on cdktn gets every problem in one synth and writes nothing', async () => {
    // Issue 29 item 4 on the fork users start with: the problems gate rides cdktn's own App and synth.
    const app = [
      "const { App, TerraformStack } = require('cdktn');",
      "const { ProxmoxCluster, ProxmoxMetricServer, SshHost, SystemdUnit } = require('cdktf-homelab');",
      "const app = new App({ outdir: 'mistakes.out' });",
      "const stack = new TerraformStack(app, 'mistakes');",
      "const cluster = new ProxmoxCluster(stack, 'pve', { endpoints: ['https://n1:8006'] });",
      "new ProxmoxMetricServer(stack, 'm', { cluster, id: 'm1', type: 'graphite', server: 'h', bukcet: 'b' });",
      "const host = new SshHost(stack, 'n2', { host: '10.0.0.2', insecureAcceptAnyHostKey: true });",
      "new SystemdUnit(stack, 'agent', { host, name: 'agent', content: '[Service]\\nExecStart=/bin/true\\n' });",
      'app.synth();',
    ].join('\n');
    writeFileSync(join(project.dir, 'mistakes.js'), `${app}\n`);
    const run = await project.bash('node mistakes.js', project.dir);
    expect(run.code).not.toBe(0);
    expect(run.stderr).toContain('3 problems in 2 constructs:');
    expect(run.stderr).toContain('mistakes/m: bukcet is not a prop of ProxmoxMetricServer; did you mean bucket?');
    expect(run.stderr).toContain('mistakes/m: port is required: an integer from 1 to 65536');
    expect(run.stderr).toContain('mistakes/agent: name must be a name ending in a unit type');
    expect((await project.bash('ls mistakes.out/stacks 2>/dev/null | wc -l', project.dir)).stdout.trim()).toBe('0');
  });

  test('retired: true deletes the server on the next apply and leaves a clean plan', async () => {
    const retired = replaceOnce(stack, "tokenEnv: 'INFLUX_TOKEN',", "tokenEnv: 'INFLUX_TOKEN', retired: true,");
    writeFileSync(join(project.dir, 'main.ts'), retired);
    await project.must('synth (retired)', 'npx cdktn synth', project.dir, ENV);
    await apply();
    expect(fake.metricServers()).toEqual({});
    expect(await plan()).toBe(0);
  });
});
