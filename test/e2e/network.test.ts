/**
 * Real terraform on `cdktf synth` output of examples/network.ts against the fake PVE over HTTPS:
 * someone else's staged wifi stanza is named and, until the apply may reload it, blocks every
 * reload; one apply stages a bridge and a VLAN on two nodes and reloads them in order, an offline
 * member blocks the next reload, a cut poll is an unknown outcome, a saved plan's apply reloads nothing staged by
 * hand after the plan (on an interface or on the node), destroy reloads the removals, and
 * no staged text (a `wpa-psk` line) reaches the state, a plan, cdktf.out or terraform's output.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { type FakePve, startFakePve } from '../fakes/pve/server';
import { CdktfProject, filesUnder, type CommandOutcome } from '../support/cdktf-project';
import { makeCert, type TestCert } from '../support/tls';

const TOKEN = 'e2e-pve-secret-5151';
const WIFI_SECRET = 'hunter22-e2e-wifi';
const WIFI = `iface wlp91s0 inet manual\n\twpa-psk ${WIFI_SECRET}\n`;
const SECRETS = [TOKEN, WIFI_SECRET];
// Staged text must never leave the handler: the option and diff syntax too, not just the secret.
const STAGED_TEXT = ['wpa-psk', 'interfaces.new\t', '\n+iface', '@@ -'];
const DECLARED = ['vmbr1', 'vmbr0.40'];
const EXTRA = { HOMELAB_EXAMPLE_EXTRA_BRIDGE: 'vmbr2' };

jest.setTimeout(300_000);

let fake: FakePve;
let project: CdktfProject;
let cert: TestCert;
const outputs: CommandOutcome[] = [];

const record = async (step: Promise<CommandOutcome>) => {
  const outcome = await step;
  outputs.push(outcome);
  return outcome;
};
const plan = (label: string) => record(project.plan(label, '-out', 'plan.bin'));
const apply = (label: string) => record(project.must(label, project.terraform('apply', '-auto-approve', '-no-color')));
/** An apply expected to fail: its exit code and its whole output as one line of words. */
const failingApply = async (label: string) => {
  const outcome = await record(project.terraform('apply', '-auto-approve', '-no-color'));
  project.timings[label] = outcome.seconds;
  return { code: outcome.code, words: `${outcome.stdout}\n${outcome.stderr}`.replace(/\s+/g, ' ') };
};
const words = (outcome: CommandOutcome) => outcome.stdout.replace(/\s+/g, ' ');
/** Requests after `mark`, as "PUT nodes/n2/network", reads left out. */
const writesSince = (mark: number) =>
  fake.requests
    .slice(mark)
    .filter((r) => r.method !== 'GET')
    .map((r) => `${r.method} ${r.path.replace('/api2/json/', '')}`);
const running = (node: string) => fake.interfacesFiles(node).running;

beforeAll(async () => {
  cert = makeCert();
  const tokens = { 'root@pam!homelab': { secret: TOKEN, privileges: 'modify' as const } };
  fake = await startFakePve({ tls: { key: cert.key, cert: cert.cert }, tokens, nodes: ['n1', 'n2', 'n3'] });
  fake.setInterfacesFiles('n2', { staged: `${running('n2')}${WIFI}` });
  const env = {
    PROXMOX_VE_API_TOKEN: `root@pam!homelab=${TOKEN}`,
    PROXMOX_VE_ENDPOINT: fake.url,
    PROXMOX_VE_CA_FILE: cert.certFile,
    HOMELAB_EXAMPLE_TIMEOUT_SECONDS: '3',
    HOMELAB_EXAMPLE_RELOAD_FOREIGN: 'true',
  };
  project = new CdktfProject('build/examples/network.js', 'network', env);
  await project.must('synth', project.synth());
  await project.must('init', project.terraform('init', '-no-color'));
});

afterAll(async () => {
  console.log(`network e2e timings (s): ${project?.report()}`);
  await fake?.stop();
  project?.cleanup();
  cert?.cleanup();
});

test('the plan names each declared interface and the lines already staged, never their text', async () => {
  const planned = await plan('plan (create)');
  expect(planned.code).toBe(2);
  for (const node of ['n2', 'n3']) {
    for (const iface of DECLARED) expect(words(planned)).toContain(`interface ${iface} on ${node} is absent`);
  }
  // reloadForeignChanges: true, so the apply reloads them too: no line says otherwise.
  expect(words(planned)).toContain('- net: n2: 2 staged lines, 1 by someone else: wlp91s0; n3: settled -');
  expect(words(planned)).toContain('(read at plan time; apply converges it)');
});

test("without reloadForeignChanges the apply stages, but reloads no node while n2 holds someone's wifi", async () => {
  await project.must('synth (no foreign reload)', project.synth({ HOMELAB_EXAMPLE_RELOAD_FOREIGN: 'false' }));
  const mark = fake.requests.length;
  const refused = await failingApply('apply (foreign refused)');
  expect(refused.code).toBe(1);
  expect(refused.words).toContain(
    'Network apply refused: changes staged by someone else: n2 holds staged changes to wlp91s0, which this ' +
      'stack does not declare',
  );
  expect(refused.words).toContain('set reloadForeignChanges: true on the ProxmoxNetworkApply');
  // Its plan said so, and did not promise convergence.
  expect(refused.words).toContain(
    '- net: n2: 2 staged lines, 1 by someone else: wlp91s0; n3: settled; the apply refuses to reload while someone ' +
      "else's changes are staged (reloadForeignChanges: false)",
  );
  expect(refused.words).toContain('(read at plan time; apply converges it unless its line says otherwise)');
  expect(writesSince(mark).filter((w) => w.startsWith('POST')).length).toBe(4);
  expect(writesSince(mark).filter((w) => /^PUT nodes\/n\d\/network$/.test(w))).toEqual([]);
  // Back to where the demo starts: the stack's staging discarded, the hand edit kept.
  fake.setInterfacesFiles('n2', { staged: `${running('n2')}${WIFI}` });
  fake.setInterfacesFiles('n3', {});
  await project.must('synth (foreign reload)', project.synth());
});

test('one apply stages every interface, then reloads n2 and then n3, and the next plan is clean', async () => {
  const mark = fake.requests.length;
  const applied = await apply('apply (create)');
  const writes = writesSince(mark);
  const reloads = writes.filter((w) => /^PUT nodes\/n\d\/network$/.test(w));
  expect(reloads).toEqual(['PUT nodes/n2/network', 'PUT nodes/n3/network']);
  expect(writes.filter((w) => w.startsWith('POST')).length).toBe(4);
  expect(writes.indexOf(reloads[0]!)).toBe(4); // every interface staged before the first reload
  expect(applied.stdout).toMatch(/pve_apply \(local-exec\): net: n2: cluster healthy \(quorate, 3\/3 online\)/);
  expect(applied.stdout).toMatch(
    /pve_apply \(local-exec\): net: n2: reloading \(UPID:n2:[0-9A-F:]+srvreload:networking:/,
  );
  expect(applied.stdout).toMatch(/pve_apply \(local-exec\): net: n3: OK in \d+\.\d s/);
  expect([...applied.stdout.matchAll(/\(local-exec\): Executing:/g)]).toHaveLength(1);
  for (const node of ['n2', 'n3']) {
    for (const iface of DECLARED) expect(running(node)).toContain(`iface ${iface} inet static`);
    expect(fake.interfacesFiles(node).staged).toBeUndefined();
  }
  expect((await plan('plan (after create)')).code).toBe(0);
});

test('a bridge added to a settled stack is live after one apply, though the plan read nothing staged', async () => {
  await project.must('synth (extra bridge)', project.synth(EXTRA));
  const planned = await plan('plan (extra bridge)');
  expect(words(planned)).toContain('1 of 6 objects are not in sync: - extra-n3: interface vmbr2 on n3 is absent');
  // The apply follows every interface on its nodes, so it is planned though its own reading is settled.
  expect(await project.plannedObjects('plan.bin')).toEqual(['extra-n3', 'net']);
  const mark = fake.requests.length;
  await apply('apply (extra bridge)');
  expect(writesSince(mark)).toEqual(['POST nodes/n3/network', 'PUT nodes/n3/network']);
  expect(running('n3')).toContain('iface vmbr2 inet manual');
  expect((await plan('plan (after extra bridge)')).code).toBe(0);
});

test('with a member offline, the next apply with something to reload refuses before touching any node', async () => {
  fake.setNodeOnline('n1', false);
  fake.setInterfacesFiles('n3', { staged: `${running('n3')}auto vmbr9\niface vmbr9 inet manual\n` });
  expect(words(await plan('plan (offline member)'))).toContain('- net: n2: settled; n3: 2 staged lines');
  const mark = fake.requests.length;
  const refused = await failingApply('apply (offline member)');
  expect(refused.code).toBe(1);
  expect(refused.words).toContain(
    'Network apply refused before reloading n3: the cluster is not healthy (quorate=true offline=[n1])',
  );
  expect(writesSince(mark)).toEqual([]);
  fake.setNodeOnline('n1', true);
  fake.setInterfacesFiles('n3', {}); // the hand edit is discarded, as a revert would
});

test('a reload whose polls are all cut fails as "outcome unknown" with the UPID, never as failed', async () => {
  await project.must('synth (vlan mtu)', project.synth({ ...EXTRA, HOMELAB_EXAMPLE_VLAN_MTU: '1400' }));
  fake.setReload('n3', { cutPolls: 1000 });
  const mark = fake.requests.length;
  const failed = await failingApply('apply (cut polls)');
  expect(failed.code).toBe(1);
  expect(failed.words).toMatch(
    /outcome unknown: check the task on n3 \(UPID:n3:[0-9A-F:]+srvreload:networking:root@pam!homelab:\)/,
  );
  expect(failed.words).not.toMatch(/reload failed on n3|n3: OK in/);
  expect(writesSince(mark).filter((w) => w.startsWith('PUT nodes/n3/network/'))).toEqual([
    'PUT nodes/n3/network/vmbr0.40',
  ]);
  fake.setReload('n3', {});
});

test('once the task ended OK, the next plan reads everything in sync and one apply leaves it clean', async () => {
  const [lastTask] = fake.tasks().slice(-1);
  fake.finishTask(lastTask!); // the fake's reload already ended OK; this pins it
  const planned = await plan('plan (after unknown)');
  // A failed provisioner taints its resource, so Terraform re-runs the apply step; nothing is staged.
  // OpenTofu words it "is tainted, so it must be replaced".
  expect(planned.stdout).toMatch(/terraform_data\.pve_apply is tainted, so (it )?must be replaced/);
  expect(planned.stdout).not.toMatch(/not in sync/);
  expect(planned.stdout).toMatch(/Plan: 1 to add, 0 to change, 1 to destroy/);
  const applied = await apply('apply (after unknown)');
  expect(applied.stdout).toContain('every object is in sync, nothing to apply');
  expect((await plan('plan (clean again)')).code).toBe(0);
});

// Regression: the apply staged what its own read showed differing, over an mtu set by hand after the plan (its PUT
// sent delete=mtu) and the network apply reloaded it: the plan's reading now travels to the apply, which refuses it.
test('a saved plan applied after an interface was edited by hand stages and reloads nothing', async () => {
  const edit = (from: RegExp, to: string) =>
    fake.setInterfacesFiles('n3', { running: running('n3').replace(from, to) });
  // The stanza of vmbr1 with the hand's mtu (vmbr0.40 has an mtu 1400 of the stack's since the cut-polls test).
  const handMtu = /iface vmbr1 inet static\n(\t.*\n)*\tmtu 1400\n/;
  edit(/#lab storage bridge/, '#by hand');
  expect(words(await plan('plan (comments by hand)'))).toContain('interface vmbr1 on n3 differs: comments is');
  edit(/(iface vmbr1 inet static\n(?:\t.*\n)*)/, '$1\tmtu 1400\n');
  const mark = fake.requests.length;
  const tasks = fake.tasks().length;
  const applied = await record(project.terraform('apply', '-no-color', 'plan.bin'));
  expect(applied.code).toBe(1);
  expect(words(applied)).toMatch(
    /vmbr1-n3: not applied: interface vmbr1 on n3 cannot be applied as planned: it was changed after the plan read/,
  );
  expect(writesSince(mark)).toEqual([]);
  expect(fake.tasks()).toHaveLength(tasks);
  expect(running('n3')).toMatch(handMtu);
  expect(words(await plan('plan (after the refusal)'))).toMatch(/mtu is 1400, want unset/);
  await apply('apply (as planned)');
  expect(running('n3')).not.toMatch(handMtu);
  expect((await plan('plan (clean after the refusal)')).code).toBe(0);
});

// Regression: a saved plan that named a change to vmbr1 on n3 only, applied after an mtu was staged by hand on vmbr2
// there (read in sync by that plan), made the hand's mtu live with the reload it ran for vmbr1.
test('a saved plan applied after a declared interface was staged by hand reloads nothing on its node', async () => {
  fake.setInterfacesFiles('n3', { running: running('n3').replace(/#lab storage bridge/, '#by hand') });
  const planned = words(await plan('plan (vmbr1 by hand)'));
  expect(planned).toContain('interface vmbr1 on n3 differs: comments is');
  expect(planned).not.toContain('vmbr2 on n3 differs');
  const handMtu = /iface vmbr2 inet manual\n(\t.*\n)*\tmtu 1300\n/;
  fake.setInterfacesFiles('n3', { staged: running('n3').replace(/(iface vmbr2 inet manual\n)/, '$1\tmtu 1300\n') });
  const mark = fake.requests.length;
  const tasks = fake.tasks().length;
  const applied = await record(project.terraform('apply', '-no-color', 'plan.bin'));
  expect(applied.code).toBe(1);
  expect(words(applied)).toContain(
    'net: not applied: Network apply of n2, n3 cannot be applied as planned: on n3, vmbr2 reads otherwise than the ' +
      'plan read it',
  );
  expect(words(applied)).toContain('nothing was reloaded: plan again');
  expect(writesSince(mark)).toEqual(['PUT nodes/n3/network/vmbr1']); // staged as planned, not made live
  expect(fake.tasks()).toHaveLength(tasks);
  expect(running('n3')).not.toMatch(handMtu);
  expect(words(await plan('plan (after the reload refusal)'))).toContain(
    'interface vmbr2 on n3 differs: mtu is 1300, want unset',
  );
  await apply('apply (reload as planned)');
  expect(running('n3')).toContain('#lab storage bridge');
  expect(running('n3')).not.toMatch(handMtu);
  expect((await plan('plan (clean after the reload refusal)')).code).toBe(0);
});

test('destroy stages the removal of exactly the declared interfaces, then reloads the nodes', async () => {
  const mark = fake.requests.length;
  await record(project.must('destroy', project.terraform('destroy', '-auto-approve', '-no-color')));
  const writes = writesSince(mark);
  const firstReload = writes.indexOf('PUT nodes/n2/network');
  expect(writes.slice(0, firstReload).sort()).toEqual([
    'DELETE nodes/n2/network/vmbr0.40',
    'DELETE nodes/n2/network/vmbr1',
    'DELETE nodes/n3/network/vmbr0.40',
    'DELETE nodes/n3/network/vmbr1',
    'DELETE nodes/n3/network/vmbr2',
  ]);
  expect(writes.slice(firstReload)).toEqual(['PUT nodes/n2/network', 'PUT nodes/n3/network']);
  for (const node of ['n2', 'n3']) for (const iface of DECLARED) expect(running(node)).not.toContain(`iface ${iface} `);
  expect(running('n2')).toContain('iface wlp91s0'); // undeclared: left as it was
});

test('no staged text, wpa-psk value or token reaches the state, a plan, cdktf.out or terraform output', async () => {
  const planJson = await project.terraform('show', '-json', 'plan.bin');
  const places: Array<[string, string]> = [
    ['state', readFileSync(project.statePath, 'utf8')],
    ['plan JSON', planJson.stdout],
    ...outputs.map((o, i): [string, string] => [`terraform output ${i}`, `${o.stdout}\n${o.stderr}`]),
    ...filesUnder(join(project.dir, 'cdktf.out')).map((file): [string, string] => [file, readFileSync(file, 'utf8')]),
  ];
  for (const [place, text] of places) {
    // The handler bundle is code: it holds the hunk-header pattern it parses with, never data.
    const forbidden = place.endsWith('/pve.js') ? SECRETS : [...SECRETS, ...STAGED_TEXT];
    for (const found of forbidden.filter((needle) => text.includes(needle))) expect({ place, found }).toBeUndefined();
  }
});
