/**
 * The supported Node LTS lines (scripts/node-lines) beyond the two the whole suite runs on: the app
 * synthesizes and every handler runs under that line's `node`, first on terraform's PATH, through
 * create, a clean plan and destroy against the fake PVE over HTTPS. Guards `engines` against a
 * Node line it names but nothing ran.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { type FakePve, startFakePve } from '../fakes/pve/server';
import { CdktfProject, runCommand } from '../support/cdktf-project';
import { makeCert, type TestCert } from '../support/tls';

jest.setTimeout(300_000);

const ROOT = join(__dirname, '..', '..');
const CACHE = process.env.CDKTF_HOMELAB_CACHE ?? '/var/cache/cdktf-homelab';
const TOKEN = 'root@pam!homelab=node-lines-secret-5151';
/** Every listed line but the one running this suite, whose own pass covers it. */
const lines = readFileSync(join(ROOT, 'scripts/node-lines'), 'utf8')
  .split('\n')
  .filter((version) => version !== '' && version.split('.')[0] !== process.versions.node.split('.')[0]);

let cert: TestCert;
let fake: FakePve;

beforeAll(async () => {
  cert = makeCert();
  fake = await startFakePve({
    tls: { key: cert.key, cert: cert.cert },
    tokens: { 'root@pam!homelab': { secret: 'node-lines-secret-5151', privileges: 'modify' } },
  });
});

afterAll(async () => {
  await fake?.stop();
  cert?.cleanup();
});

test('scripts/node-lines names the lines `engines` allows, and setup cached each', () => {
  const engines = (JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { engines: { node: string } })
    .engines.node;
  const all = readFileSync(join(ROOT, 'scripts/node-lines'), 'utf8').trim().split('\n');
  expect(engines.split(' || ').map((range) => range.replace(/^\^(\d+)\..*/, '$1'))).toEqual([
    '20',
    ...all.map((version) => version.split('.')[0]),
  ]);
  expect(lines.length).toBeGreaterThanOrEqual(2);
});

describe.each(lines)('Node %s', (version) => {
  const bin = join(CACHE, 'node', version, 'bin');
  let project: CdktfProject;

  afterAll(() => {
    console.log(`node ${version} e2e timings (s): ${project?.report()}`);
    project?.cleanup();
  });

  test('synth, apply, a clean plan and destroy, with the app and every handler on this node', async () => {
    const env = { PATH: `${bin}:${process.env.PATH}` };
    expect((await runCommand('node', ['--version'], ROOT, env)).stdout.trim()).toBe(`v${version}`);
    fake.setMetricServer('by-hand', { type: 'graphite', server: '192.0.2.9', port: 2003 });
    project = new CdktfProject('build/examples/metrics.js', 'metrics', {
      ...env,
      PROXMOX_VE_API_TOKEN: TOKEN,
      INFLUX_TOKEN: 'node-lines-influx-6262',
      OTEL_HEADERS: '{"Authorization":"Bearer node-lines-7373"}',
      PROXMOX_VE_ENDPOINT: fake.url,
      PROXMOX_VE_CA_FILE: cert.certFile,
    });
    await project.must('synth', project.synth());
    await project.must('init', project.terraform('init', '-no-color'));
    const applied = await project.must('apply', project.terraform('apply', '-auto-approve', '-no-color'));
    expect(applied.stdout).toMatch(/metric server "lab-influx": creat/);
    expect(Object.keys(fake.metricServers()).sort()).toEqual(['by-hand', 'lab-graphite', 'lab-influx', 'lab-otel']);
    expect((await project.plan('plan (clean)')).code).toBe(0);
    await project.must('destroy', project.terraform('destroy', '-auto-approve', '-no-color'));
    expect(Object.keys(fake.metricServers())).toEqual(['by-hand']);
  });
});
