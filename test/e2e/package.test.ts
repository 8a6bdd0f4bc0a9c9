/**
 * The library as a user gets it: `npm pack`, then the README's getting-started blocks run verbatim in a fresh
 * project outside the repo, pointed at the fake PVE and the real systemd host. Guards against a tarball without
 * dist or handler bundles, a runtime dependency only the repo has, and README commands that no longer work.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { type FakePve, startFakePve } from '../fakes/pve/server';
import { startSystemdHost, type SystemdHost } from '../support/systemd-host';
import { makeCert, type TestCert } from '../support/tls';
import { readmeBlock, readmeRun, readmeStack, replaceOnce, UserProject, words } from '../support/user-project';

jest.setTimeout(900_000);

const TOKEN = { id: 'terraform@pve!cdktf', secret: 'pack-pve-secret-5151' };

let cert: TestCert;
let fake: FakePve;
let host: SystemdHost;
let project: UserProject;
let tarball: string;

const userEnv = () => ({
  PROXMOX_VE_API_TOKEN: `${TOKEN.id}=${TOKEN.secret}`,
  INFLUX_TOKEN: 'pack-influx-token-6262',
  N2_SSH_KEY: host.privateKey,
});
const tf = (args: string, stack: string) => project.terraform(stack, args, userEnv());

beforeAll(async () => {
  cert = makeCert();
  fake = await startFakePve({ tls: cert, tokens: { [TOKEN.id]: { secret: TOKEN.secret, privileges: 'modify' } } });
  host = await startSystemdHost();
  project = new UserProject();
  tarball = await project.pack();
});

afterAll(async () => {
  console.log(`package e2e timings (s): ${project?.report()}`);
  await fake?.stop();
  await host?.stop();
  cert?.cleanup();
  project?.cleanup();
});

test('the packed library holds dist, the handler bundles, README, API.md and LICENSE, and no test code', async () => {
  const listing = (await project.must('tar list', 'tar -tzf "$1"', project.home, {}, [tarball])).stdout.split('\n');
  for (const file of [
    'dist/index.js',
    'dist/index.d.ts',
    'build/handlers/pve.js',
    'build/handlers/linux.js',
    'README.md',
    'API.md',
    'LICENSE',
  ]) {
    expect(listing).toContain(`package/${file}`);
  }
  expect(
    listing.filter((file) => /^package\/(test|handlers|src|constructs|build\/(fake-pve|bench|examples))/.test(file)),
  ).toEqual([]);
  const manifest = JSON.parse(
    (await project.must('manifest', 'tar -xzOf "$1" package/package.json', project.home, {}, [tarball])).stdout,
  );
  expect(Object.keys(manifest.dependencies ?? {})).not.toEqual(expect.arrayContaining(['cdktf']));
  expect(Object.keys(manifest.peerDependencies)).toEqual(expect.arrayContaining(['cdktf', 'cdktn', 'constructs']));
});

test("the README's setup installs the tarball into a fresh project", async () => {
  const setup = replaceOnce(readmeBlock('setup'), /npm install cdktf-homelab /, 'npm install "$1" ');
  await project.must('setup (npm install)', setup, project.home, {}, [tarball]);
  writeFileSync(join(project.dir, 'cdktf.json'), readmeBlock('cdktf.json'));
  writeFileSync(join(project.dir, 'tsconfig.json'), readmeBlock('tsconfig.json'));
  writeFileSync(join(project.dir, 'main.ts'), readmeStack({ pveUrl: fake.url, caFile: cert.certFile, ssh: host }));
  const installed = JSON.parse(readFileSync(join(project.dir, 'package.json'), 'utf8'));
  expect(installed.dependencies['cdktf-homelab']).toMatch(/^file:/);
});

// cdktf-cli 0.21's node-pty has binaries up to Node 22 (ABI 127): on newer Node the README runs the app itself.
const cliLoads = Number(process.versions.modules) <= 127;

test("the README's run block type-checks, synthesizes, validates, plans and applies the PVE stack", async () => {
  const run = cliLoads ? readmeRun() : replaceOnce(readmeRun(), 'npx cdktf synth', 'npx tsx main.ts');
  const ran = await project.must('run block', run, project.dir, userEnv());
  expect(words(ran.stdout)).toContain('Success! The configuration is valid.');
  expect(words(ran.stdout)).toContain('metric server "influx" is absent');
  expect(fake.metricServers().influx).toMatchObject({
    type: 'influxdb',
    server: '10.0.0.5',
    port: 8089,
    bucket: 'pve',
  });
  expect(fake.metricTokens().influx).toBe('pack-influx-token-6262');
  expect((await tf('plan -detailed-exitcode -no-color', 'lab')).code).toBe(0);
});

test('the systemd stack validates and plans against a real host: the unit is absent', async () => {
  expect((await tf('init -no-color', 'n2')).code).toBe(0);
  expect((await tf('validate -no-color', 'n2')).code).toBe(0);
  const planned = await tf('plan -detailed-exitcode -no-color', 'n2');
  expect({ code: planned.code, stderr: planned.stderr }).toEqual({ code: 2, stderr: '' });
  expect(words(planned.stdout)).toMatch(/hf-agent\.service .*absent/);
});
