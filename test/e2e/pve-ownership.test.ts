/**
 * Ownership of the PVE kinds that keep it in the stack's state (README, Adoption), on real terraform (or tofu)
 * against the fake PVE, in the three ways an audit found it lost:
 * - a saved plan that read a server and a bridge absent, applied after someone else made them: the apply took
 *   them over and its lifecycles recorded them as the stack's, so its destroy deleted another stack's server.
 *   Now the apply refuses them, writes nothing to them and records no lifecycle of them; an object of the stack's
 *   own whose create was cut after its POST still converges on the next apply;
 * - a construct renamed (same PVE object): its tombstone deleted the server and the new lifecycle, recording the
 *   plan's read of it, refused to create it again, forever. Now the lifecycle moves, and nothing is written;
 * - a server with tokenVersion renamed: its resend resource did not move, so the apply sent the token again;
 * - a server's type changed (PVE cannot change it in place): the replaced lifecycle recorded the stack's own
 *   section, which its replacement then deleted, as not created by this stack, and the apply refused to create
 *   the new one, forever. Now the read finds only a section of the spec's type: the replacement deletes the old
 *   section, the apply creates the new one, and a section the stack never created is still left alone.
 */
import { type FakePve, startFakePve } from '../fakes/pve/server';
import { CdktfProject, type CommandOutcome } from '../support/cdktf-project';
import { bridgeStanza, interfacesFile } from '../support/pve-network-node';
import { makeCert, type TestCert } from '../support/tls';
import { rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

jest.setTimeout(600_000);

const RUNNING = interfacesFile(['eno1']);
/** The running file with a bridge someone else made: stack a, or a human. */
const withBridge = (iface: string) => interfacesFile(['eno1'], [bridgeStanza(iface, 'none')]);
const THEIRS = { type: 'graphite', server: '192.0.2.1', port: 2003 };

let fake: FakePve;
let project: CdktfProject;
let cert: TestCert;

const words = (outcome: CommandOutcome) => `${outcome.stdout}\n${outcome.stderr}`.replace(/\s+/g, ' ');
const server = (construct: string, id: string, more: Record<string, unknown> = {}) => ({
  construct,
  id,
  type: 'graphite',
  server: '192.0.2.7',
  port: 2003,
  ...more,
});
const bridge = (construct: string, iface: string, more: Record<string, unknown> = {}) => ({
  construct,
  node: 'n1',
  iface,
  ...more,
});
const synth = (objects: readonly object[]) =>
  project.must('synth', project.synth({ HOMELAB_OBJECTS: JSON.stringify(objects) }));
const apply = (...args: string[]) => project.terraform('apply', '-auto-approve', '-no-color', ...args);
/** The writes (not GETs) the fake received from `from` on, to the paths `pattern` matches. */
const writesTo = (pattern: RegExp, from = 0) =>
  fake.requests
    .slice(from)
    .filter(({ method, path }) => method !== 'GET' && pattern.test(path))
    .map(({ method, path }) => `${method} ${path}`);
const stateList = async () => (await project.must('state list', project.terraform('state', 'list'))).stdout;

beforeAll(async () => {
  cert = makeCert();
  const tokens = { 'root@pam!homelab': { secret: 'ownership-secret', privileges: 'modify' as const } };
  fake = await startFakePve({
    tls: { key: cert.key, cert: cert.cert },
    tokens,
    nodes: ['n1'],
    network: { n1: { physical: ['eno1'], running: RUNNING } },
  });
  project = new CdktfProject('build/e2e/pve-ownership-app.js', 'pve-ownership', {
    PROXMOX_VE_ENDPOINT: fake.url,
    PROXMOX_VE_CA_FILE: cert.certFile,
    PROXMOX_VE_API_TOKEN: 'root@pam!homelab=ownership-secret',
    INFLUX_TOKEN: 'influx-token-1',
  });
  // The record is kept for cdktf.json's app alone: a rename is told from it.
  const app = join(__dirname, '..', '..', 'build', 'e2e', 'pve-ownership-app.js');
  writeFileSync(join(project.dir, 'cdktf.json'), JSON.stringify({ language: 'typescript', app: `node ${app}` }));
  // A stack with no object names no provider for init to install.
  await synth([server('seed', 'seed')]);
  await project.must('init', project.terraform('init', '-no-color'));
});

afterEach(async () => {
  await project.must('destroy (between tests)', project.terraform('destroy', '-auto-approve', '-no-color'));
  // Each test starts from an empty record: a rename is told from the names it holds.
  rmSync(join(project.dir, 'cdktf-homelab.record.json'), { force: true });
  for (const id of Object.keys(fake.metricServers())) fake.deleteMetricServer(id);
  fake.setInterfacesFiles('n1', { running: RUNNING });
});

afterAll(async () => {
  console.log(`pve-ownership e2e timings (s): ${project?.report()}`);
  await fake?.stop();
  project?.cleanup();
  cert?.cleanup();
});

test('a saved plan that read a server and a bridge absent refuses them once they exist, records neither', async () => {
  await synth([server('shared', 'shared'), bridge('sharedbr', 'vmbr5', { comments: 'b' }), server('mine', 'mine')]);
  await project.must('plan -out', project.terraform('plan', '-no-color', '-out', 'b.plan'));
  // Another stack applies them between this plan and its apply.
  fake.setMetricServer('shared', THEIRS);
  fake.setInterfacesFiles('n1', { running: withBridge('vmbr5') });
  const from = fake.requests.length;

  const applied = await apply('b.plan');
  expect(applied.code).toBe(1);
  for (const name of ['shared', 'sharedbr']) {
    expect(words(applied)).toMatch(new RegExp(`- ${name}: exists on PVE cluster \\S+, though the plan read it absent`));
  }
  expect(words(applied)).toMatch(/they appeared after the plan .*nothing on PVE cluster \S+ was applied/);
  expect(fake.metricServers().shared).toEqual(THEIRS);
  expect(writesTo(/metrics\/server\/shared|network/, from)).toEqual([]);
  // No lifecycle of theirs: the next plan records them as found, not as this stack's.
  expect(await stateList()).not.toMatch(/shared(br)?_lifecycle/);

  const planned = await project.plan('plan (after the refused apply)');
  for (const name of ['shared', 'sharedbr']) {
    expect(words(planned)).toMatch(new RegExp(`- ${name}: exists on PVE cluster \\S+, not created by this stack`));
  }
  expect((await apply()).code).toBe(1); // refused as found; mine is created
  expect(fake.metricServers().mine).toBeDefined();
  const destroyed = await project.must('destroy', project.terraform('destroy', '-auto-approve', '-no-color'));
  expect(words(destroyed)).toMatch(/left in place: it existed before this stack declared it/);
  expect(fake.metricServers()).toEqual({ shared: THEIRS });
  expect(writesTo(/metrics\/server\/shared|network\/vmbr5/, from)).toEqual([]);
});

test("a create of the stack's own cut after its POST converges on the next apply", async () => {
  await synth([server('cut', 'cut')]);
  // The create's read-back fails once the POST has landed: Terraform records the apply as failed.
  fake.beforeNext('POST', /metrics\/server\/cut$/, () =>
    fake.failNext('GET', /metrics\/server\/cut$/, 500, 'connection cut'),
  );
  expect((await apply()).code).toBe(1);
  expect(fake.metricServers().cut).toBeDefined();
  const again = await project.must('apply (after the cut)', apply());
  expect(words(again)).not.toMatch(/refuse|not created by this stack|appeared/);
  expect((await project.plan('plan (converged)')).code).toBe(0);
  const destroyed = await project.must('destroy', project.terraform('destroy', '-auto-approve', '-no-color'));
  expect(words(destroyed)).toMatch(/metric server "cut": deleting/);
  expect(fake.metricServers().cut).toBeUndefined();
});

test('renamed constructs move their lifecycles: nothing is deleted or written, a found one stays refused', async () => {
  fake.setMetricServer('handsrv', THEIRS);
  await synth([server('old', 'srv'), bridge('oldbr', 'vmbr6'), server('hand', 'handsrv')]);
  expect((await apply()).code).toBe(1); // handsrv refused, the others created
  const from = fake.requests.length;

  await synth([server('new', 'srv'), bridge('newbr', 'vmbr6'), server('hand2', 'handsrv')]);
  const planned = await project.plan('plan (renamed)');
  for (const [from, to] of [
    ['old', 'new'],
    ['oldbr', 'newbr'],
    ['hand', 'hand2'],
  ]) {
    expect(planned.stdout).toContain(`terraform_data.${from}_lifecycle has moved to terraform_data.${to}_lifecycle`);
  }
  expect(planned.stdout).not.toMatch(/_lifecycle (will be destroyed|will be created|must be replaced)/);
  expect(words(planned)).toMatch(/- hand2: exists on PVE cluster \S+, not created by this stack/);
  expect(words(planned)).not.toMatch(/- new(br)?: exists/);

  expect((await apply()).code).toBe(1); // hand2 still refused
  expect(writesTo(/metrics\/server|network/, from)).toEqual([]);
  const destroyed = await project.must('destroy', project.terraform('destroy', '-auto-approve', '-no-color'));
  expect(words(destroyed)).toMatch(/metric server "srv": deleting/);
  expect(fake.metricServers()).toEqual({ handsrv: THEIRS });
});

// An audit last session: only the lifecycle moved, so `new_resend` was created and the apply sent the token again.
test('a renamed server with tokenVersion moves its resend resource too: the token is not sent again', async () => {
  const influx = { type: 'influxdb', port: 8086, tokenEnv: 'INFLUX_TOKEN', tokenVersion: 1 };
  await synth([server('oldtok', 'tok', influx)]);
  await project.must('apply (tokenVersion)', apply());
  const from = fake.requests.length;

  await synth([server('newtok', 'tok', influx)]);
  const planned = await project.plan('plan (renamed, tokenVersion)');
  expect(planned.stdout).toContain('terraform_data.oldtok_resend has moved to terraform_data.newtok_resend');
  expect(planned.stdout).not.toMatch(/_resend (will be created|will be destroyed|must be replaced)/);
  await project.must('apply (renamed, tokenVersion)', apply());
  expect(writesTo(/metrics\/server/, from)).toEqual([]);
  expect((await project.plan('plan (renamed, applied)')).code).toBe(0);
});

test('a server renamed as it gets tokenVersion plans its first resend: a move from no resend is ignored', async () => {
  const influx = { type: 'influxdb', port: 8086, tokenEnv: 'INFLUX_TOKEN' };
  await synth([server('plain', 'ptok', influx)]);
  await project.must('apply (no tokenVersion)', apply());

  await synth([server('plain2', 'ptok', { ...influx, tokenVersion: 1 })]);
  const planned = await project.plan('plan (renamed, tokenVersion added)');
  expect(planned.stdout).toContain('terraform_data.plain_lifecycle has moved to terraform_data.plain2_lifecycle');
  expect(planned.stdout).toContain('terraform_data.plain2_resend will be created');
  await project.must('apply (renamed, tokenVersion added)', apply());
  expect((await project.plan('plan (tokenVersion added, applied)')).code).toBe(0);
});

test("changing a server's type replaces its own section; one the stack found is left alone", async () => {
  fake.setMetricServer('handx', THEIRS);
  await synth([server('m', 'mx'), server('hx', 'handx')]);
  expect((await apply()).code).toBe(1); // handx refused
  const influx = { type: 'influxdb', port: 8089 };
  await synth([server('m', 'mx', influx), server('hx', 'handx', influx)]);
  const planned = await project.plan('plan (type changed)');
  expect(words(planned)).not.toMatch(/- m: exists on/);

  const applied = await apply();
  expect(applied.code).toBe(1);
  expect(words(applied)).toMatch(/hx: not applied: .*a graphite section already holds this id/);
  expect(words(applied)).not.toMatch(/m: not applied/);
  expect(fake.metricServers().mx).toMatchObject({ type: 'influxdb', port: 8089 });
  expect(fake.metricServers().handx).toEqual(THEIRS);
  const again = await project.plan('plan (type changed, applied)');
  expect(words(again)).not.toMatch(/- m: /);

  const destroyed = await project.must('destroy', project.terraform('destroy', '-auto-approve', '-no-color'));
  expect(words(destroyed)).toMatch(/metric server "mx": deleting/);
  expect(fake.metricServers()).toEqual({ handx: THEIRS });
});
