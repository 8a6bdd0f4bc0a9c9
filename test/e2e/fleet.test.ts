/**
 * The fleet at CI size (issue 30 item 3): ONE stack (bench/fleet-app.ts) over three real systemd hosts in
 * systemd-nspawn containers, reached over SSH with their own keys, and a three-node fake PVE cluster with two
 * bridges per node, a network apply and two metric servers. The first apply converges every host and node; hand
 * changes on two hosts at once and on the cluster are named in the plan, and only they; one apply converges them;
 * destroy leaves nothing on any host or on the cluster. Without it, nothing checks that targets in one stack stay
 * apart: a read, an apply or a destroy that mixed up hosts would pass every single-host test.
 */
import { type FakePve, startFakePve } from '../fakes/pve/server';
import { CdktfProject } from '../support/cdktf-project';
import { startSystemdHost, type SystemdHost } from '../support/systemd-host';
import { makeCert, type TestCert } from '../support/tls';
import { fleetKeyEnv } from '../../bench/fleet-app';

jest.setTimeout(300_000);

const HOSTS = 3;
const NODES = ['n1', 'n2', 'n3'];
const BRIDGES = ['vmbr10', 'vmbr11'];
const UNITS = ['hf-fleet-0.service', 'hf-fleet-1.service', 'hf-fleet-2.service', 'fleet-probe@a.service'];
const TOKEN = 'fleet-e2e-secret-3030';
const DIR = '/etc/systemd/system';

let fake: FakePve | undefined;
let cert: TestCert | undefined;
let hosts: SystemdHost[] = [];
let project: CdktfProject;
let bootSeconds = 0;

const words = (text: string) => text.replace(/\s+/g, ' ');
const running = (node: string) => fake?.interfacesFiles(node).running ?? '';
const metricIds = () => Object.keys(fake?.metricServers() ?? {}).sort();
const active = async (host: SystemdHost) =>
  (await host.exec(`systemctl is-active ${UNITS.join(' ')}; true`)).stdout.trim().split('\n');
const ours = async (host: SystemdHost) =>
  (await host.exec(`ls ${DIR} ${DIR}/*.wants 2>/dev/null | grep -E '^(hf-fleet|fleet-probe)' ; true`)).stdout;

/** Boots every host at once; if one fails, the others are stopped before the error is thrown. */
const bootAll = async (count: number): Promise<SystemdHost[]> => {
  const booted = await Promise.allSettled(Array.from({ length: count }, () => startSystemdHost()));
  const up = booted.flatMap((b) => (b.status === 'fulfilled' ? [b.value] : []));
  const failed = booted.find((b): b is PromiseRejectedResult => b.status === 'rejected');
  if (failed === undefined) return up;
  await Promise.all(up.map((host) => host.stop()));
  throw failed.reason;
};

beforeAll(async () => {
  cert = makeCert();
  const tokens = { 'root@pam!homelab': { secret: TOKEN, privileges: 'modify' as const } };
  fake = await startFakePve({ tls: { key: cert.key, cert: cert.cert }, tokens, nodes: NODES });
  const booting = Date.now();
  hosts = await bootAll(HOSTS);
  bootSeconds = (Date.now() - booting) / 1000;
  const fleet = hosts.map((host) => ({ host: host.host, port: host.port, hostKey: host.hostKeyFingerprint }));
  project = new CdktfProject('build/bench/fleet-app.js', 'fleet', {
    ...Object.fromEntries(hosts.map((host, index) => [fleetKeyEnv(index), host.privateKey])),
    FLEET_HOSTS: JSON.stringify(fleet),
    FLEET_UNITS: '3',
    FLEET_PROBE: '1',
    FLEET_NODES: NODES.join(','),
    FLEET_INTERFACES: String(BRIDGES.length),
    FLEET_METRICS: '2',
    PROXMOX_VE_ENDPOINT: fake.url,
    PROXMOX_VE_CA_FILE: cert.certFile,
    PROXMOX_VE_API_TOKEN: `root@pam!homelab=${TOKEN}`,
  });
  await project.must('synth', project.synth());
  await project.must('init', project.terraform('init', '-no-color'));
});

afterAll(async () => {
  console.log(`fleet e2e timings (s): ${HOSTS} hosts booted in ${bootSeconds}, ${project?.report()}`);
  await Promise.all(hosts.map((host) => host.stop()));
  await fake?.stop();
  project?.cleanup();
  cert?.cleanup();
});

test('the first apply converges every host and every node, and the next plan is clean', async () => {
  await project.must('apply (create)', project.terraform('apply', '-auto-approve', '-no-color'));
  for (const host of hosts) {
    expect({ port: host.port, active: await active(host) }).toEqual({
      port: host.port,
      active: UNITS.map(() => 'active'),
    });
    const level = await host.exec('systemctl show -p Environment --value fleet-probe@a.service');
    expect(level.stdout.trim()).toBe('LEVEL=info');
  }
  for (const node of NODES)
    for (const bridge of BRIDGES) expect(running(node)).toContain(`iface ${bridge} inet static`);
  expect(metricIds()).toEqual(['fleet-0', 'fleet-1']);
  expect((await project.plan('plan (clean)')).code).toBe(0);
});

test('hand changes on two hosts and on the cluster are named in the plan, and one apply converges them', async () => {
  const [first, , third] = hosts;
  if (first === undefined || third === undefined) throw new Error('the hosts did not boot');
  await first.exec('systemctl stop hf-fleet-1.service');
  const edit = `sed -i 's/^Description=.*/Description=edited by hand/' ${DIR}/hf-fleet-2.service`;
  expect((await third.exec(`${edit} && systemctl daemon-reload`)).code).toBe(0);
  fake?.setMetricServer('fleet-1', { ...fake.metricServers()['fleet-1'], port: 9999 });
  const drifted = await project.plan('plan (drift)', '-out', 'plan.bin');
  expect(drifted.code).toBe(2);
  const said = words(drifted.stdout);
  expect(said).toContain(`- h0-fleet-1: unit hf-fleet-1.service on 127.0.0.1:${first.port} (inactive/dead) differs`);
  expect(said).toMatch(
    new RegExp(
      `- h2-fleet-2: unit hf-fleet-2\\.service on 127\\.0\\.0\\.1:${third.port} .*differs: ` +
        'file is "not the declared content \\(\\d+ bytes\\)", want "sha256:',
    ),
  );
  expect(said).toContain('- metrics-1: metric server "fleet-1" differs: port is 9999, want 2003');
  // One warning per drifted target, each counting its own objects; the untouched host is not named.
  expect(said.match(/\d+ of \d+ objects are not in sync/g)?.sort()).toEqual([
    '1 of 6 objects are not in sync',
    '1 of 6 objects are not in sync',
    '1 of 9 objects are not in sync',
  ]);
  expect(said).not.toMatch(/- h1-/);
  expect(await project.plannedObjects('plan.bin')).toEqual(['h0-fleet-1', 'h2-fleet-2', 'metrics-1']);
  await project.must('apply (converge)', project.terraform('apply', '-no-color', 'plan.bin'));
  expect(await active(first)).toEqual(UNITS.map(() => 'active'));
  expect((await third.exec(`grep -c 'edited by hand' ${DIR}/hf-fleet-2.service; true`)).stdout.trim()).toBe('0');
  expect(fake?.metricServers()['fleet-1']?.port).toBe(2003);
  expect((await project.plan('plan (after converge)')).code).toBe(0);
});

test('destroy removes every unit from every host, and every bridge and metric server from the cluster', async () => {
  await project.must('destroy', project.terraform('destroy', '-auto-approve', '-no-color'));
  for (const host of hosts) {
    expect({ port: host.port, left: await ours(host) }).toEqual({ port: host.port, left: '' });
    expect({ port: host.port, active: await active(host) }).toEqual({
      port: host.port,
      active: UNITS.map(() => 'inactive'),
    });
  }
  for (const node of NODES) for (const bridge of BRIDGES) expect(running(node)).not.toContain(`iface ${bridge} `);
  expect(metricIds()).toEqual([]);
});
