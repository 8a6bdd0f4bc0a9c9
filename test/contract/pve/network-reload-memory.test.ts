/**
 * Issue 26 class 3, a failed reload forgotten: PVE moves interfaces.new over interfaces before
 * ifreload runs, so a reload that failed on the last node left nothing staged and the next plan
 * read every node settled. The node's own task list (GET nodes/{node}/tasks) now keeps it drift,
 * in words, until a reload there succeeds; the apply reloads it again behind the same health gate.
 */
import { pveDomain } from '../../../handlers/pve/domain';
import type { PveTarget } from '../../../src/pve/target';
import type { TokenGrant } from '../../../src/simulator/pve/auth';
import { type FakePve, startFakePve } from '../../fakes/pve/server';
import { invoke, invokeBatch } from '../../support/run-handler';
import { VirtualClock } from '../../support/virtual-clock';

const WRITER = 'root@pam!homelab=fake-secret-0000';
const tokens: Record<string, TokenGrant> = {
  'root@pam!homelab': { secret: 'fake-secret-0000', privileges: 'modify' },
  // Plans only: SDN.Audit to list bridges, Sys.Audit on the nodes to list every token's tasks.
  'reader@pve!plan': { secret: 'read-1111', privileges: 'none', sdnAudit: true, nodes: { n3: 'audit' } },
  'sdn@pve!plan': { secret: 'read-2222', privileges: 'none', sdnAudit: true },
  // Sys.Audit on / (the gate), Sys.Modify alone on n3: it may reload n3 but not list others' tasks there.
  'ops@pve!net': { secret: 'write-3333', privileges: 'audit', nodes: { n3: 'modify-only' }, sdnAudit: true },
};
const NODES = ['n1', 'n2', 'n3'];
const FAILED = 'command ifreload -a failed: exit code 1';

let fake: FakePve;
let clock: VirtualClock;

beforeEach(async () => {
  clock = new VirtualClock();
  // n4 is a member no apply reloads: taking it offline makes the cluster unhealthy.
  fake = await startFakePve({ nodes: [...NODES, 'n4'], tokens, now: clock.now });
});
afterEach(() => fake.stop());

const target = (): PveTarget => ({ endpoints: [fake.url], tokenEnv: 'PROXMOX_VE_API_TOKEN', insecure: true });
const spec = { nodes: NODES, timeoutSeconds: 5, interfaces: Object.fromEntries(NODES.map((n) => [n, ['vmbr7']])) };
const stage = (node: string) =>
  fake.setInterfacesFiles(node, {
    staged: `${fake.interfacesFiles(node).running}auto vmbr7\niface vmbr7 inet manual\n`,
  });
const apply = () =>
  invoke(pveDomain(), 'network-apply', 'apply', target(), spec, { PROXMOX_VE_API_TOKEN: WRITER }, clock);
const read = async (token = WRITER) => {
  const objects = { net: { kind: 'network-apply', spec } };
  const batch = await invokeBatch(pveDomain(), target(), objects, { PROXMOX_VE_API_TOKEN: token });
  return { inSync: batch.result?.['net.in_sync'], summary: batch.result?.['net.summary'] ?? batch.stderr };
};
const reloads = () => fake.requests.filter((r) => r.method === 'PUT' && r.path.endsWith('/network')).length;

/** Applies with n3's reload failing: n1 and n2 reload, n3's task fails, nothing is left staged. */
const failOnLastNode = async () => {
  NODES.forEach(stage);
  fake.setReload('n3', { exitstatus: FAILED, log: ['ifreload -a', `error: ${FAILED}`] });
  const run = await apply();
  expect(run.code).toBe(1);
  expect(fake.interfacesFiles('n3').staged).toBeUndefined();
  fake.setReload('n3', {});
  return fake.tasks().at(-1)!;
};

test('a reload failed on the last node keeps the node drift, named in words, until a reload succeeds', async () => {
  const upid = await failOnLastNode();
  const drift = await read();
  expect(drift.inSync).toBe('false');
  expect(drift.summary).toBe(
    `n1: settled; n2: settled; n3: the last network reload failed (task ${upid}, exit status ${FAILED}) ` +
      'at 2027-01-15 08:00:00 UTC: the next apply reloads it',
  );

  const before = reloads();
  const again = await apply();
  expect(again.code).toBe(0);
  expect(again.stderr).toContain(`n3: the last network reload failed (task ${upid}, exit status ${FAILED})`);
  expect(again.stderr).toContain('reloading it again\nn3: cluster healthy (quorate, 4/4 online)\nn3: reloading (');
  expect(again.stderr).toContain('n3: cluster still healthy');
  expect(fake.requests.filter((r) => r.method === 'PUT').map((r) => r.path)).toContain('/api2/json/nodes/n3/network');
  expect(reloads() - before).toBe(1);
  expect(await read()).toEqual({ inSync: 'true', summary: 'n1: settled; n2: settled; n3: settled' });
});

// An audit (2026-12-05): the list asked for the newest 20 `srvreload` tasks, every service's reloads among them.
test('a failed reload stays drift behind reloads of other services', async () => {
  await failOnLastNode();
  for (let i = 0; i < 25; i += 1) {
    await clock.sleep(60_000); // each a minute later, as a certificate renewal's reloads come
    fake.startTask('n3', 'srvreload', 'pveproxy', 'root@pam!homelab');
  }
  expect(await read()).toMatchObject({ inSync: 'false' });
  expect((await read()).summary).toContain('n3: the last network reload failed');
});

test('the health gate still stops the reload of a node whose last reload failed', async () => {
  await failOnLastNode();
  fake.setNodeOnline('n4', false);
  const before = reloads();
  const run = await apply();
  expect(run.code).toBe(1);
  expect(run.stderr.split('\n').pop()).toMatch(/Network apply refused before reloading n3: the cluster is not healthy/);
  expect(reloads()).toBe(before);
  expect((await read()).summary).toMatch(/n3: the last network reload failed/);
});

test('an outcome the run could not read is judged by the task itself: hung is drift, ended OK is clean', async () => {
  stage('n3');
  fake.setReload('n3', { durationMs: Infinity });
  const run = await apply();
  expect(run.stderr.split('\n').pop()).toMatch(/outcome unknown: check the task on n3 .*still running after 5\.0 s$/);
  const upid = fake.tasks().at(-1)!;
  const drift = await read();
  expect(drift.inSync).toBe('false');
  expect(drift.summary).toContain(
    `n3: the last network reload (task ${upid}, started 2027-01-15 08:00:00 UTC) has not ended, so its outcome is ` +
      'unknown: the next apply reloads it',
  );
  fake.finishTask(upid, 'OK');
  expect(await read()).toMatchObject({ inSync: 'true' });
});

test('a poll cut by the reload is an unknown outcome for the run, and clean once the task list says OK', async () => {
  stage('n3');
  fake.setReload('n3', { cutPolls: 1000 });
  const run = await apply();
  expect(run.stderr.split('\n').pop()).toMatch(/Network reload outcome unknown/);
  expect(await read()).toEqual({ inSync: 'true', summary: 'n1: settled; n2: settled; n3: settled' });
});

test('a token with Sys.Audit on the node sees another token’s failed reload; one without it is blind', async () => {
  await failOnLastNode();
  expect((await read('reader@pve!plan=read-1111')).summary).toMatch(/n3: the last network reload failed \(task /);
  const blind = await read('sdn@pve!plan=read-2222');
  expect(blind.inSync).toBe('false');
  expect(blind.summary).toContain(
    "n3: cannot tell whether the last network reload succeeded: PVE lists another token's tasks only to a token " +
      'holding Sys.Audit on /nodes/n3, and the token in PROXMOX_VE_API_TOKEN does not (PVEAuditor on / has it); ' +
      'grant it, then plan again',
  );
});

test('the fake lists a node’s tasks as PVE does: newest archived first, filtered by type and owner', async () => {
  stage('n2');
  fake.setReload('n2', { exitstatus: FAILED });
  await apply();
  const { PveClient } = await import('../../../src/pve/client');
  const client = new PveClient(target(), { PROXMOX_VE_API_TOKEN: 'sdn@pve!plan=read-2222' });
  try {
    const query = { typefilter: 'srvreload', source: 'all' };
    expect(await client.call('GET', 'nodes/n2/tasks', query)).toEqual([]);
    const owner = new PveClient(target(), { PROXMOX_VE_API_TOKEN: WRITER });
    const rows = await owner.call<Array<Record<string, unknown>>>('GET', 'nodes/n2/tasks', query);
    await owner.close();
    expect(rows).toEqual([
      expect.objectContaining({
        upid: fake.tasks()[0],
        type: 'srvreload',
        id: 'networking',
        user: 'root@pam',
        tokenid: 'homelab',
        status: FAILED,
        starttime: 1_800_000_000,
        endtime: 1_800_000_000,
      }),
    ]);
  } finally {
    await client.close();
  }
});

test('an apply whose token cannot see the last reload leaves the node alone and names the privilege', async () => {
  await failOnLastNode();
  const before = reloads();
  const env = { PROXMOX_VE_API_TOKEN: 'ops@pve!net=write-3333' };
  const run = await invoke(pveDomain(), 'network-apply', 'apply', target(), { ...spec, nodes: ['n3'] }, env, clock);
  expect(run.code).toBe(0);
  expect(run.stderr).toBe(
    'n3: settled, nothing to reload; cannot tell whether the last network reload succeeded: ' +
      "PVE lists another token's tasks only to a token holding Sys.Audit on /nodes/n3, " +
      'and the token in PROXMOX_VE_API_TOKEN does not ' +
      '(PVEAuditor on / has it), so a failed reload there is not reloaded again until it does',
  );
  expect(reloads()).toBe(before);
});
