/**
 * A read token beside the write one (issue 19 item 1) against the fake PVE, which checks each
 * request's privileges as PVE does: a plan with only the read (Sys.Audit) token in the environment
 * reads and shows drift; the apply writes, and polls the reload task it started, with the write
 * token alone; the read token cannot write (403 naming Sys.Modify); and an apply without the write
 * token fails naming its variable before any request.
 */
import { pveDomain } from '../../../handlers/pve/domain';
import type { PveTarget } from '../../../src/pve/target';
import { type FakePve, startFakePve } from '../../fakes/pve/server';
import { invoke, invokeBatch } from '../../support/run-handler';
import { VirtualClock } from '../../support/virtual-clock';

const WRITE = 'root@pam!homelab=fake-secret-0000';
const READ = 'audit@pve!ro=audit-secret';
const tokens = {
  'root@pam!homelab': { secret: 'fake-secret-0000', privileges: 'modify' },
  'audit@pve!ro': { secret: 'audit-secret', privileges: 'audit' },
  'nobody@pve!ro': { secret: 'nobody-secret', privileges: 'none' },
} as const;

let fake: FakePve;
let clock: VirtualClock;
beforeEach(async () => {
  clock = new VirtualClock();
  fake = await startFakePve({ nodes: ['n1', 'n2'], tokens, now: clock.now });
});
afterEach(() => fake.stop());

const target = (): PveTarget => ({
  endpoints: [fake.url],
  tokenEnv: 'PVE_WRITE',
  readTokenEnv: 'PVE_READ',
  insecure: true,
});
const server = { id: 'graphite', type: 'graphite', server: '10.0.0.5', port: 2003, options: {} };
const network = { nodes: ['n2'], timeoutSeconds: 30, interfaces: { n2: ['vmbr7'] } };
const objects = {
  metrics: { kind: 'metric-server', spec: server },
  net: { kind: 'network-apply', spec: network },
};
/** `METHOD path by token-id` of every request so far. */
const requests = () => fake.requests.map((r) => `${r.method} ${r.path.replace('/api2/json/', '')} by ${r.auth}`);

test('a plan with only the read token reads with it and shows drift', async () => {
  fake.setInterfacesFiles('n2', {
    staged: `${fake.interfacesFiles('n2').running}auto vmbr7\niface vmbr7 inet manual\n`,
  });
  const plan = await invokeBatch(pveDomain(), target(), objects, { PVE_READ: READ });
  expect(plan).toMatchObject({ code: 0 });
  expect(plan.result).toMatchObject({
    'metrics.in_sync': 'false',
    'metrics.summary': 'metric server "graphite" is absent',
    'net.in_sync': 'false',
  });
  expect(requests()).toEqual([
    'GET cluster/metrics/server by audit@pve!ro',
    'GET nodes/n2/network by audit@pve!ro',
    'GET nodes/n2/tasks by audit@pve!ro',
    'GET access/permissions by audit@pve!ro',
  ]);
});

test('the apply writes and polls its reload task with the write token alone, and the plan after is clean', async () => {
  fake.setInterfacesFiles('n2', {
    staged: `${fake.interfacesFiles('n2').running}auto vmbr7\niface vmbr7 inet manual\n`,
  });
  const env = { PVE_READ: READ, PVE_WRITE: WRITE };
  expect(await invoke(pveDomain(), 'metric-server', 'apply', target(), server, env, clock)).toMatchObject({ code: 0 });
  expect(await invoke(pveDomain(), 'network-apply', 'apply', target(), network, env, clock)).toMatchObject({ code: 0 });
  const applied = requests();
  expect(applied.some((line) => /^GET nodes\/n2\/tasks\/UPID.*\/status by root@pam!homelab$/.test(line))).toBe(true);
  expect(applied.filter((line) => !line.endsWith('by root@pam!homelab'))).toEqual([]);
  const plan = await invokeBatch(pveDomain(), target(), objects, { PVE_READ: READ });
  expect(plan.result).toMatchObject({ 'metrics.in_sync': 'true', 'net.in_sync': 'true' });
});

test('the read token cannot write: an apply given it as the write token is refused naming Sys.Modify', async () => {
  const applied = await invoke(pveDomain(), 'metric-server', 'apply', target(), server, { PVE_WRITE: READ }, clock);
  expect(applied.code).toBe(1);
  expect(applied.stderr).toMatch(
    /PVE answered 403: Permission check failed \(\/, Sys\.Modify\); the token in PVE_WRITE lacks that privilege/,
  );
  expect(fake.metricServers()).toEqual({});
});

test('an apply with only the read token fails naming the write variable, before any request', async () => {
  const applied = await invoke(pveDomain(), 'metric-server', 'apply', target(), server, { PVE_READ: READ }, clock);
  expect(applied.stderr).toBe(
    'metric-server apply: PVE API token missing: environment variable PVE_WRITE is not set; ' +
      'set it to USER@REALM!TOKENID=SECRET before running terraform',
  );
  expect(fake.requests).toEqual([]);
});

test('one token still serves both: a plan given the write token under the read name reads', async () => {
  const plan = await invokeBatch(pveDomain(), target(), objects, { PVE_READ: WRITE });
  expect(plan).toMatchObject({ code: 0 });
  expect(requests().every((line) => line.endsWith('by root@pam!homelab'))).toBe(true);
});

test('a read token without Sys.Audit fails the plan naming the privilege', async () => {
  const plan = await invokeBatch(pveDomain(), target(), objects, { PVE_READ: 'nobody@pve!ro=nobody-secret' });
  expect(plan).toMatchObject({ code: 1 });
  expect(plan.stderr).toBe(
    'batch read: PVE answered 403: Permission check failed (/, Sys.Audit); the token in PVE_READ lacks that ' +
      `privilege; Endpoint: ${fake.url}; Request: GET /cluster/metrics/server`,
  );
});
