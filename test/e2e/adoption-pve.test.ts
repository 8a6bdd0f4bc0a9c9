/**
 * Adoption of PVE objects on real terraform (or tofu) against the fake PVE, where the target has no
 * place for a mark of ownership and the stack's state keeps it (README, Adoption): a metric server and
 * a bridge made by hand are named in the plan as not created by this stack, the apply refuses them
 * without writing to either while the new server is created, and destroy leaves them; with adopt: true
 * the plan says they will be adopted, the apply changes nothing of the in-sync server, the next plan is
 * clean, and destroy deletes both; and a refused object adopted later is taken over in place. Removing
 * the constructs of refused objects leaves them, even with a record edited to say adopt: true (issue 27),
 * and removing those of adopted ones deletes them. On the same fake, a bridge on a port the node lacks
 * fails the plan and the apply, writing nothing (issue 27 item 6). The plan's warning ends promising convergence
 * only when no line says the apply will refuse its object.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { type FakePve, startFakePve } from '../fakes/pve/server';
import { CdktfProject } from '../support/cdktf-project';
import { bridgeStanza, interfacesFile } from '../support/pve-network-node';
import { makeCert, type TestCert } from '../support/tls';

jest.setTimeout(300_000);

const HAND = { type: 'graphite', server: '192.0.2.9', port: 2003 };
const RUNNING = interfacesFile(['eno1'], [bridgeStanza('vmbr7', 'none')]);

let fake: FakePve;
let project: CdktfProject;
let cert: TestCert;
const words = (text: string) => text.replace(/\s+/g, ' ');
const synth = (adopt: boolean, drop = false) =>
  project.must('synth', project.synth({ HOMELAB_ADOPT: adopt ? '1' : '0', HOMELAB_DROP_HAND: drop ? '1' : '0' }));
/** The writes the fake received to the two objects made by hand. */
const handWrites = () =>
  fake.requests
    .filter(({ method }) => method !== 'GET')
    .map(({ method, path }) => `${method} ${path}`)
    .filter((request) => /metrics\/server\/hand$|network\/vmbr7$/.test(request));

beforeAll(async () => {
  cert = makeCert();
  const tokens = { 'root@pam!homelab': { secret: 'adoption-secret', privileges: 'modify' as const } };
  fake = await startFakePve({
    tls: { key: cert.key, cert: cert.cert },
    tokens,
    nodes: ['n1'],
    network: { n1: { physical: ['eno1'], running: RUNNING } },
  });
  fake.setMetricServer('hand', HAND);
  project = new CdktfProject('build/e2e/adoption-pve-app.js', 'adoption-pve', {
    PROXMOX_VE_ENDPOINT: fake.url,
    PROXMOX_VE_CA_FILE: cert.certFile,
    PROXMOX_VE_API_TOKEN: 'root@pam!homelab=adoption-secret',
  });
  // The app it names is the one project.synth runs: the record is kept for cdktf.json's app alone.
  const app = join(__dirname, '..', '..', 'build', 'e2e', 'adoption-pve-app.js');
  writeFileSync(join(project.dir, 'cdktf.json'), JSON.stringify({ language: 'typescript', app: `node ${app}` }));
  await synth(false);
  await project.must('init', project.terraform('init', '-no-color'));
});

afterAll(async () => {
  console.log(`adoption-pve e2e timings (s): ${project?.report()}`);
  await fake?.stop();
  project?.cleanup();
  cert?.cleanup();
});

test('without adopt the plan names both, the apply refuses them and writes nothing, destroy leaves them', async () => {
  const refused = (name: string) =>
    new RegExp(
      `- ${name}: exists on PVE cluster https://127.0.0.1:\\d+, not created by this stack: the apply will refuse it`,
    );
  const planned = words((await project.plan('plan (not adopted)')).stdout);
  for (const name of ['hand', 'handbr']) expect(planned).toMatch(refused(name));
  expect(planned).not.toMatch(/- fresh: exists/);
  // Each list of the check under its own count, each object once (issue 29 item 5: one header counted 1 over
  // 6 lines, one object twice): the read's drift, then the objects the apply will refuse.
  const check = new RegExp(
    '(\\d+) of 3 objects are not in sync: (.*?) the apply will refuse (\\d+) of the 3 objects, ' +
      'which existed before this stack declared them: (.*?) \\(read at plan time',
  ).exec(planned);
  const bullets = (text = '') => [...text.matchAll(/- (\w+): /g)].map(([, name]) => name);
  expect(bullets(check?.[2])).toHaveLength(Number(check?.[1]));
  expect(bullets(check?.[4]).sort()).toEqual(['hand', 'handbr']);
  expect(check?.[3]).toBe('2');
  expect(bullets(check?.[2])).toContain('fresh');
  // Lines that say the apply will refuse their objects: the footer promises convergence only where no line objects.
  expect(planned).toContain('(read at plan time; apply converges it unless its line says otherwise)');

  const applied = await project.terraform('apply', '-auto-approve', '-no-color');
  expect(applied.code).toBe(1);
  const said = words(applied.stdout + applied.stderr);
  for (const name of ['hand', 'handbr']) {
    expect(said).toMatch(
      new RegExp(
        `${name}: not applied: exists on PVE cluster \\S+, not created by this stack, ` +
          'and its construct does not say adopt: true',
      ),
    );
  }
  expect(said).toMatch(/2 of 3 objects on PVE cluster \S+ were not applied \(hand, handbr\)/);
  expect(fake.metricServers()).toEqual({ hand: HAND, fresh: { ...HAND, server: '192.0.2.10' } });
  expect(handWrites()).toEqual([]);

  // The refusal stands until the construct says adopt: the next plan names them again.
  const again = await project.plan('plan (still not adopted)');
  expect(again.code).toBe(2);
  for (const name of ['hand', 'handbr']) expect(words(again.stdout)).toMatch(refused(name));

  const destroyed = await project.must('destroy', project.terraform('destroy', '-auto-approve', '-no-color'));
  expect(words(destroyed.stdout)).toMatch(/left in place: it existed before this stack declared it/);
  expect(fake.metricServers()).toEqual({ hand: HAND });
  expect(handWrites()).toEqual([]);
  expect(fake.interfacesFiles('n1').staged).toBeUndefined();
});

test('with adopt the plan says will be adopted, the apply leaves the server as is, destroy deletes both', async () => {
  await synth(true);
  const planned = words((await project.plan('plan (adopt)')).stdout);
  // The lifecycle's input: what the read found, then on a line of its own the object's JSON.
  const hand = '\\{"identity":\\{"id":"hand","type":"graphite"\\},"target":"pve"\\}';
  const adopted = 'exists on PVE cluster https://127\\.0\\.0\\.1:\\d+, not created by this stack: will be adopted';
  expect(planned).toMatch(new RegExp(`input = <<-EOT ${adopted} ${hand} EOT`));
  expect(planned).not.toMatch(/the apply will refuse it/);
  // Every line one the apply converges: the footer says so without a proviso.
  expect(planned).toMatch(/- fresh: metric server "fresh" is absent \(read at plan time; apply converges it\)/);
  await project.must('apply (adopt)', project.terraform('apply', '-auto-approve', '-no-color'));
  expect(fake.metricServers().hand).toEqual(HAND);
  expect(handWrites().filter((request) => request.includes('metrics'))).toEqual([]);
  expect((await project.plan('plan (clean)')).code).toBe(0);

  await project.must('destroy (adopted)', project.terraform('destroy', '-auto-approve', '-no-color'));
  expect(fake.metricServers()).toEqual({});
  expect(handWrites()).toContain('DELETE /api2/json/nodes/n1/network/vmbr7');
});

test('a refused object adopted later: its lifecycle stays, the apply takes it, destroy deletes it', async () => {
  fake.setMetricServer('hand', HAND);
  fake.setInterfacesFiles('n1', { running: RUNNING });
  await synth(false);
  expect((await project.terraform('apply', '-auto-approve', '-no-color')).code).toBe(1);
  const before = handWrites().length;
  await synth(true);
  const planned = await project.plan('plan (adopt later)');
  expect(planned.stdout).not.toMatch(/hand_lifecycle (will|must)/);
  expect(words(planned.stdout)).not.toMatch(/the apply will refuse it/);
  await project.must('apply (adopt later)', project.terraform('apply', '-auto-approve', '-no-color'));
  expect((await project.plan('plan (adopted later, clean)')).code).toBe(0);
  const writes = handWrites().slice(before);
  expect(writes.filter((request) => request.includes('metrics'))).toEqual([]);
  const destroyed = await project.must(
    'destroy (adopted later)',
    project.terraform('destroy', '-auto-approve', '-no-color'),
  );
  expect(destroyed.stdout).not.toMatch(/left in place/);
  expect(fake.metricServers()).toEqual({});
});

test('removing the constructs leaves refused ones, whatever the record says, and deletes adopted ones', async () => {
  fake.setMetricServer('hand', HAND);
  fake.setInterfacesFiles('n1', { running: RUNNING });
  await synth(false);
  expect((await project.terraform('apply', '-auto-approve', '-no-color')).code).toBe(1);
  const before = handWrites().length;
  // A pull request edits the committed record: both entries now say adopt: true.
  const file = join(project.dir, 'cdktf-homelab.record.json');
  const record = JSON.parse(readFileSync(file, 'utf8'));
  for (const name of ['hand', 'handbr']) record.stacks['adoption-pve'].objects[name].adopt = true;
  writeFileSync(file, JSON.stringify(record));
  await synth(false, true);
  const removed = await project.must(
    'apply (removed, refused)',
    project.terraform('apply', '-auto-approve', '-no-color'),
  );
  expect(words(removed.stdout)).toMatch(/left in place: it existed before this stack declared it/);
  expect(fake.metricServers().hand).toEqual(HAND);
  expect(handWrites().slice(before)).toEqual([]);

  // Declared again with adopt: true, their new lifecycles record the adoption; removing them deletes them.
  await synth(true);
  await project.must('apply (adopt)', project.terraform('apply', '-auto-approve', '-no-color'));
  await synth(true, true);
  await project.must('apply (removed, adopted)', project.terraform('apply', '-auto-approve', '-no-color'));
  expect(fake.metricServers().hand).toBeUndefined();
  expect(handWrites()).toContain('DELETE /api2/json/nodes/n1/network/vmbr7');
  await project.must('destroy (rest)', project.terraform('destroy', '-auto-approve', '-no-color'));
});

test('a bridge on a port the node lacks fails the plan naming it, and the apply writes nothing', async () => {
  await project.must('synth', project.synth({ HOMELAB_MISSING_PORT: '1' }));
  const writes = fake.requests.filter(({ method }) => method !== 'GET').length;
  const planned = await project.terraform('plan', '-no-color');
  expect(planned.code).toBe(1);
  expect(words(planned.stderr)).toMatch(/interface vmbr8 on n1: bridge port enp9s0 is not on n1/);
  const applied = await project.terraform('apply', '-auto-approve', '-no-color');
  expect(applied.code).toBe(1);
  expect(fake.requests.filter(({ method }) => method !== 'GET').length).toBe(writes);
});
