/**
 * The network-apply handler against the fake PVE (pve-api.md §A2-A4) over the CLI contract, on a
 * virtual clock so a 30 s task wait runs at once: staged-line readings, the health gate before and
 * after each node, standalone quorum, outcomes OK / WARNINGS / error / unknown, and a stopped chain.
 */
import { pveDomain } from '../../../handlers/pve/domain';
import type { PveApi } from '../../../src/pve/api';
import { PveClient } from '../../../src/pve/client';
import type { PveTarget } from '../../../src/pve/target';
import { type FakePve, type FakePveOptions, startFakePve } from '../../fakes/pve/server';
import { invoke, invokeBatch } from '../../support/run-handler';
import { VirtualClock } from '../../support/virtual-clock';

const env = { PROXMOX_VE_API_TOKEN: 'root@pam!homelab=fake-secret-0000' };
const WIFI = 'iface wlp91s0 inet manual\n\twpa-psk hunter22-network-secret\n';
const UPID = /UPID:n\d:[0-9A-F]{8}:[0-9A-F]{8}:[0-9A-F]{8}:srvreload:networking:root@pam!homelab:/;

let fake: FakePve;
let clock: VirtualClock;

const start = async (options: FakePveOptions = { nodes: ['n1', 'n2', 'n3'] }) => {
  clock = new VirtualClock();
  fake = await startFakePve({ ...options, now: clock.now });
};
beforeEach(() => start());
afterEach(() => fake.stop());

const target = (): PveTarget => ({ endpoints: [fake.url], tokenEnv: 'PROXMOX_VE_API_TOKEN', insecure: true });
/** The stack declares vmbr7 on each node, the bridge `stage` stages by default. */
const spec = (nodes: string[], timeoutSeconds = 30) => ({
  nodes,
  timeoutSeconds,
  interfaces: Object.fromEntries(nodes.map((node) => [node, ['vmbr7']])),
});
const apply = (nodes: string[], domain = pveDomain()) =>
  invoke(domain, 'network-apply', 'apply', target(), spec(nodes), env, clock);

/** Stages `extra` on top of the node's running file; by default the stack's own vmbr7. */
const stage = (node: string, extra = `auto vmbr7\niface vmbr7 inet manual\n`) =>
  fake.setInterfacesFiles(node, { staged: `${fake.interfacesFiles(node).running}${extra}` });
/** "PUT n2" for every reload, "DELETE …" and so on: every request that is not a read. */
const writes = () =>
  fake.requests.filter((r) => r.method !== 'GET').map((r) => `${r.method} ${r.path.replace('/api2/json/', '')}`);
/** Whether anything was written on `node` (the check for foreign changes reads every node first). */
const touched = (node: string) => fake.requests.some((r) => r.method !== 'GET' && r.path.includes(`/nodes/${node}/`));

describe('reading staged lines', () => {
  test('a plan reads each node once for every apply object and names interfaces, never staged text', async () => {
    stage('n2', WIFI);
    const objects = {
      a: { kind: 'network-apply', spec: spec(['n2', 'n3']) },
      b: { kind: 'network-apply', spec: spec(['n3']) },
    };
    const batch = await invokeBatch(pveDomain(), target(), objects, env);
    // Per node: its staging, its last reload (none yet, so whether the token would see one).
    expect(fake.requests.map((r) => `${r.method} ${r.path}`).sort()).toEqual([
      'GET /api2/json/access/permissions',
      'GET /api2/json/access/permissions',
      'GET /api2/json/nodes/n2/network',
      'GET /api2/json/nodes/n2/tasks',
      'GET /api2/json/nodes/n3/network',
      'GET /api2/json/nodes/n3/tasks',
    ]);
    expect(batch.result).toMatchObject({
      'a.in_sync': 'false',
      'a.summary':
        'n2: 2 staged lines, 1 by someone else: wlp91s0; n3: settled; ' +
        "the apply refuses to reload while someone else's changes are staged (reloadForeignChanges: false)",
      'a.diff': '{"n2":{"live":2,"want":0}}',
      'b.in_sync': 'true',
      'b.summary': 'n3: settled',
    });
    expect(JSON.stringify(batch)).not.toMatch(/wpa|hunter22|@@/);
  });

  test('a node that cannot be read is named, and the object is not in sync', async () => {
    fake.setNodeOnline('n3', false);
    const batch = await invokeBatch(
      pveDomain(),
      target(),
      { a: { kind: 'network-apply', spec: spec(['n2', 'n3']) } },
      env,
    );
    expect(batch.result?.['a.in_sync']).toBe('false');
    expect(batch.result?.['a.summary']).toMatch(
      /^n2: settled; n3: cannot be read \(PVE answered 595: No route to host/,
    );
  });
});

describe('reloading node by node', () => {
  test('nodes reload in the declared order, each gated before and after, with one progress line per step', async () => {
    stage('n3');
    stage('n2');
    fake.setReload('n2', { durationMs: 2000 });
    const run = await apply(['n3', 'n2']);
    expect(run.code).toBe(0);
    const lines = run.stderr.replace(new RegExp(UPID.source, 'g'), 'UPID').split('\n');
    expect(lines).toEqual([
      'n3: 2 staged lines',
      'n3: cluster healthy (quorate, 3/3 online)',
      'n3: reloading (UPID)',
      'n3: OK in 0.0 s',
      'n3: cluster still healthy (quorate, 3/3 online)',
      'n2: 2 staged lines',
      'n2: cluster healthy (quorate, 3/3 online)',
      'n2: reloading (UPID)',
      'n2: OK in 2.0 s',
      'n2: cluster still healthy (quorate, 3/3 online)',
    ]);
    expect(writes()).toEqual(['PUT nodes/n3/network', 'PUT nodes/n2/network']);
    expect(clock.sleeps).toEqual([0, 0, 1000, 1000]);
  });

  test('polls go out with the credential that started the task, the UPID raw in the path', async () => {
    stage('n2');
    fake.setReload('n2', { durationMs: 1500 });
    await apply(['n2']);
    const [upid] = fake.tasks();
    const polls = fake.requests.filter((r) => r.path.includes('/tasks/'));
    expect(polls.map((r) => [r.path, r.auth])).toEqual(
      Array(3).fill([`/api2/json/nodes/n2/tasks/${upid}/status`, 'root@pam!homelab']),
    );
    expect(fake.requests.find((r) => r.method === 'PUT')?.auth).toBe('root@pam!homelab');
  });

  test('a node with nothing staged is not reloaded and needs no health reading', async () => {
    const run = await apply(['n2', 'n3']);
    expect(run.stderr).toBe('n2: settled, nothing to reload\nn3: settled, nothing to reload');
    expect(writes()).toEqual([]);
    expect(fake.requests.some((r) => r.path.endsWith('cluster/status'))).toBe(false);
  });

  test('a standalone node is quorate: its reload passes the gate', async () => {
    await fake.stop();
    await start({ clusterName: null, nodes: ['pve'] });
    stage('pve');
    const run = await apply(['pve']);
    expect(run.code).toBe(0);
    expect(run.stderr).toContain('pve: cluster healthy (standalone, 1/1 online)');
    expect(writes()).toEqual(['PUT nodes/pve/network']);
  });
});

describe('the health gate', () => {
  test('before: a member offline refuses before any node is reloaded, naming the member', async () => {
    stage('n2');
    stage('n3');
    fake.setNodeOnline('n1', false);
    const run = await apply(['n2', 'n3']);
    expect(run.code).toBe(1);
    expect(run.stderr.split('\n').pop()).toBe(
      'network-apply apply: Network apply refused before reloading n2: the cluster is not healthy ' +
        '(quorate=true offline=[n1]), and reloading a node while a member is out is how an outage completes; ' +
        'nothing was reloaded on n2; n3 not reloaded. Bring the member back (or restore quorum), then apply again',
    );
    expect(writes()).toEqual([]);
    expect(touched('n3')).toBe(false);
  });

  test('after: a member lost during a reload stops the chain, and the nodes after it are untouched', async () => {
    stage('n2');
    stage('n3');
    const run = await apply(['n2', 'n3'], pveDomain(loseMemberAfterFirstReload('n1')));
    expect(run.code).toBe(1);
    expect(run.stderr).toMatch(/^n2: OK in 0\.0 s$/m);
    expect(run.stderr.split('\n').pop()).toBe(
      'network-apply apply: Network apply stopped after reloading n2: the cluster is not healthy after the reload ' +
        "(quorate=true offline=[n1]); check n2's network before anything else is reloaded; n3 not reloaded. " +
        'Apply again once every member is online',
    );
    expect(writes()).toEqual(['PUT nodes/n2/network']);
    expect(touched('n3')).toBe(false);
  });
});

/** The real client, with `member` going offline once the first reload's task has been read as stopped. */
const loseMemberAfterFirstReload =
  (member: string) =>
  (t: PveTarget, e: NodeJS.ProcessEnv): PveApi => {
    const client = new PveClient(t, e);
    const call: PveApi['call'] = async (method, path, params, options) => {
      const data = await client.call(method, path, params, options);
      if (path.endsWith('/status') && (data as { status?: string }).status === 'stopped')
        fake.setNodeOnline(member, false);
      return data as never;
    };
    return { call, envelope: client.envelope.bind(client), close: () => client.close() };
  };

describe('task outcomes', () => {
  test('WARNINGS passes with the warning printed, and the chain goes on', async () => {
    stage('n2');
    stage('n3');
    fake.setReload('n2', { exitstatus: 'WARNINGS: 1', log: ['ifreload -a', 'WARN: vmbr9: bridge has no ports'] });
    const run = await apply(['n2', 'n3']);
    expect(run.code).toBe(0);
    expect(run.stderr).toContain('n2: WARNINGS: 1 in 0.0 s\nn2: warning: WARN: vmbr9: bridge has no ports\n');
    expect(writes()).toEqual(['PUT nodes/n2/network', 'PUT nodes/n3/network']);
  });

  test('an error fails with the last 20 log lines, secrets masked, and stops the chain', async () => {
    stage('n2');
    stage('n3');
    const log = [...Array.from({ length: 25 }, (_, i) => `step ${i + 1}`), 'wpa-psk hunter22-network-secret'];
    fake.setReload('n2', { exitstatus: 'command ifreload -a failed: exit code 1', log });
    const run = await apply(['n2', 'n3']);
    expect(run.code).toBe(1);
    const tail = run.stderr.split('\n').filter((line) => line.startsWith('n2: task log: '));
    expect(tail).toHaveLength(20);
    expect(tail[0]).toBe('n2: task log: step 8');
    expect(tail.slice(-2)).toEqual([
      'n2: task log: wpa-psk <redacted>',
      'n2: task log: TASK ERROR: command ifreload -a failed: exit code 1',
    ]);
    expect(run.stderr).not.toContain('hunter22');
    const failure = run.stderr.split('\n').pop();
    expect(failure).toMatch(/^network-apply apply: Network reload failed: reload failed on n2: command ifreload -a /);
    expect(failure).toMatch(/failed: exit code 1 \(UPID:n2:.*\); its log ends above; n3 not reloaded$/);
    expect(touched('n3')).toBe(false);
  });

  // Issue 16 item 15: only the passphrase's first word was masked, and the final line carried it whole.
  test('a passphrase with spaces is masked to the end of the line in the log and in the error line', async () => {
    stage('n2');
    const echoed = 'wlp91s0: wpa-psk correct horse battery staple: rejected';
    fake.setReload('n2', { exitstatus: echoed, log: ['ifreload -a', `error: ${echoed}`] });
    const run = await apply(['n2']);
    expect(run.code).toBe(1);
    expect(run.stderr).toContain('n2: task log: error: wlp91s0: wpa-psk <redacted>\n');
    expect(run.stderr).toContain('n2: task log: TASK ERROR: wlp91s0: wpa-psk <redacted>\n');
    expect(run.stderr.split('\n').pop()).toMatch(/reload failed on n2: wlp91s0: wpa-psk <redacted> \(UPID:n2:/);
    expect(run.stderr).not.toMatch(/horse|battery|staple|rejected/);
  });

  test('a reload that cuts every poll is an unknown outcome, never a failure, after the budget', async () => {
    stage('n2');
    stage('n3');
    fake.setReload('n2', { cutPolls: 1000 });
    const run = await apply(['n2', 'n3']);
    expect(run.code).toBe(1);
    const last = run.stderr.split('\n').pop()!;
    expect(last).toMatch(
      /^network-apply apply: Network reload outcome unknown: outcome unknown: check the task on n2 \(UPID:n2:/,
    );
    expect(last).toMatch(/: no status reading in 30\.0 s \(last error: .*\); n3 not reloaded$/);
    expect(last).not.toMatch(/failed on|OK in/);
    expect(clock.sleeps.reduce((a, b) => a + b, 0)).toBe(30_000);
    expect(touched('n3')).toBe(false);
  });

  test('a poll cut once is retried and the reload ends OK', async () => {
    stage('n2');
    fake.setReload('n2', { cutPolls: 1, durationMs: 500 });
    const run = await apply(['n2']);
    expect(run.code).toBe(0);
    expect(run.stderr).toContain('n2: OK in 1.0 s');
  });

  test('a poll the reload left hanging is abandoned after 5 s and the next one reads the outcome', async () => {
    stage('n2');
    fake.hang('GET', /\/tasks\/.*\/status$/);
    // The target allows an hour per call: without the poll's own cap this test would time out.
    const patient = { ...target(), timeoutSeconds: 3600 };
    const run = await invoke(pveDomain(), 'network-apply', 'apply', patient, spec(['n2']), env, clock);
    expect(run.code).toBe(0);
    expect(run.stderr).toContain('n2: OK in 1.0 s');
  });

  test('a task still running at the ceiling is an unknown outcome that says so', async () => {
    stage('n2');
    fake.setReload('n2', { durationMs: Infinity });
    const run = await invoke(pveDomain(), 'network-apply', 'apply', target(), spec(['n2'], 5), env, clock);
    expect(run.stderr.split('\n').pop()).toMatch(
      /outcome unknown: check the task on n2 \(UPID:n2:.*\): still running after 5\.0 s$/,
    );
  });
});

describe('destroy', () => {
  test('reloads whatever the teardown staged on the identity nodes, behind the same gate', async () => {
    stage('n3');
    const run = await invoke(pveDomain(), 'network-apply', 'destroy', target(), { nodes: ['n2', 'n3'] }, env, clock);
    expect(run.code).toBe(0);
    expect(run.stderr).toContain('n3: cluster healthy (quorate, 3/3 online)');
    expect(writes()).toEqual(['PUT nodes/n3/network']);
  });
});
