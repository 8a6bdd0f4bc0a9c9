/**
 * Real terraform on examples/network.ts with a VLAN on a bridge whose port is a bond, declared in
 * the worst order (each before what it needs): the batch apply stages them by reference and destroy
 * removes them in reverse, ten times in a row. PVE refuses a bridge whose port does not exist yet
 * and a bond still used as a port; before ordering by reference, 4 of 6 applies and 2 of 6 destroys
 * failed that way (issue 15).
 */
import { type FakePve, startFakePve } from '../fakes/pve/server';
import { CdktfProject } from '../support/cdktf-project';
import { makeCert, type TestCert } from '../support/tls';

const TOKEN = 'e2e-pve-secret-6161';
const ROUNDS = 10;

jest.setTimeout(600_000);

let fake: FakePve;
let project: CdktfProject;
let cert: TestCert;

beforeAll(async () => {
  cert = makeCert();
  const tokens = { 'root@pam!homelab': { secret: TOKEN, privileges: 'modify' as const } };
  const network = { n4: { physical: ['eno1', 'enp2s0', 'enp3s0', 'enp4s0'] } };
  fake = await startFakePve({ tls: { key: cert.key, cert: cert.cert }, tokens, nodes: ['n1', 'n4'], network });
  const env = {
    PROXMOX_VE_API_TOKEN: `root@pam!homelab=${TOKEN}`,
    PROXMOX_VE_ENDPOINT: fake.url,
    PROXMOX_VE_CA_FILE: cert.certFile,
  };
  project = new CdktfProject('build/examples/network.js', 'network', env);
  await project.must('synth', project.synth({ HOMELAB_EXAMPLE_NODES: 'n4', HOMELAB_EXAMPLE_BOND_NODE: 'n4' }));
  await project.must('init', project.terraform('init', '-no-color'));
});

afterAll(async () => {
  console.log(`network-order e2e timings (s): ${project?.report()}`);
  await fake?.stop();
  project?.cleanup();
  cert?.cleanup();
});

/** Interface writes after `mark`, as "POST bond0" or "DELETE vmbr3.50". */
const writesSince = (mark: number) =>
  fake.requests
    .slice(mark)
    .filter((r) => r.method === 'POST' || r.method === 'DELETE')
    .map((r) => `${r.method} ${r.method === 'POST' ? r.body.iface : r.path.split('/').pop()}`);

test(`a bond, the bridge on it and a VLAN on that bridge create and destroy cleanly ${ROUNDS} times`, async () => {
  let settled: string | undefined; // PVE marks a freed bond slave `auto`, so round 1 sets the baseline
  for (let round = 1; round <= ROUNDS; round++) {
    let mark = fake.requests.length;
    await project.must(`apply ${round}`, project.terraform('apply', '-auto-approve', '-no-color'));
    const created = writesSince(mark);
    expect(created.indexOf('POST bond0')).toBeLessThan(created.indexOf('POST vmbr3'));
    expect(created.indexOf('POST vmbr3')).toBeLessThan(created.indexOf('POST vmbr3.50'));
    expect(fake.interfacesFiles('n4').running).toContain('iface vmbr3.50 inet manual');
    if (round === 1) expect((await project.plan('plan (clean)')).code).toBe(0);
    mark = fake.requests.length;
    await project.must(`destroy ${round}`, project.terraform('destroy', '-auto-approve', '-no-color'));
    const removed = writesSince(mark).filter((write) => /vmbr3|bond0/.test(write));
    expect(removed).toEqual(['DELETE vmbr3.50', 'DELETE vmbr3', 'DELETE bond0']);
    const running = fake.interfacesFiles('n4').running;
    expect(running).not.toMatch(/bond0|vmbr3/);
    settled ??= running;
    expect(running).toBe(settled);
  }
});
