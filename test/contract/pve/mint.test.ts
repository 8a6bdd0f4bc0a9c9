/**
 * PVE tokens minted per run (issue 19 item 2) against the fake PVE, which creates and removes tokens
 * by PVE's rules (api-tokens.ts): each run mints one token for its role's user with the role's
 * bootstrap token, makes every request with it (the reload and the polls of its task alike), and
 * removes it at the end, after a failure too; a run that never ends leaves a token that stops
 * authenticating once its expiry is past, and its 401 names the bootstrap token's variable and the
 * token's user, not the run's internal variable; a bootstrap token without User.Modify mints nothing.
 */
import { pveDomain } from '../../../handlers/pve/domain';
import { PveClient } from '../../../src/pve/client';
import type { PveTarget } from '../../../src/pve/target';
import { type FakePve, startFakePve } from '../../fakes/pve/server';
import { invokeBatch, invokeBatchApply } from '../../support/run-handler';
import { VirtualClock } from '../../support/virtual-clock';

// The bootstraps README, Least privilege, documents: User.Modify on the role user's group alone.
const tokens = {
  'boot@pve!read': { secret: 'boot-read', privileges: 'none', userModify: ['cdktf-read'] },
  'boot@pve!apply': { secret: 'boot-apply', privileges: 'none', userModify: ['cdktf-provision'] },
  'plain@pve!apply': { secret: 'plain-apply', privileges: 'modify' },
} as const;
const users = {
  'cdktf-read@pve': { privileges: 'audit', groups: ['cdktf-read'] },
  'cdktf-apply@pve': { privileges: 'modify', groups: ['cdktf-provision'] },
} as const;
const env = { PVE_BOOT_READ: 'boot@pve!read=boot-read', PVE_BOOT_APPLY: 'boot@pve!apply=boot-apply' };
const BOOTSTRAPS = ['boot@pve!apply', 'boot@pve!read', 'plain@pve!apply'];

let fake: FakePve;
let clock: VirtualClock;
beforeEach(async () => {
  // Now, not the default's 2027: a plan run times its mint by the system clock.
  clock = new VirtualClock(Date.now());
  fake = await startFakePve({ nodes: ['n1', 'n2'], tokens, users, now: clock.now });
});
afterEach(() => fake.stop());

const target = (): PveTarget => ({
  endpoints: [fake.url],
  tokenEnv: 'PVE_BOOT_APPLY',
  readTokenEnv: 'PVE_BOOT_READ',
  insecure: true,
  mint: { readUser: 'cdktf-read@pve', provisionUser: 'cdktf-apply@pve', expireSeconds: 600 },
});
const server = { id: 'graphite', type: 'graphite', server: '10.0.0.5', port: 2003, options: {} };
const network = { nodes: ['n2'], timeoutSeconds: 30, interfaces: { n2: ['vmbr7'] } };
const stageVmbr7 = () =>
  fake.setInterfacesFiles('n2', {
    staged: `${fake.interfacesFiles('n2').running}auto vmbr7\niface vmbr7 inet manual\n`,
  });
/** `METHOD path by token` for every request so far, the minted token ids made `<user>!minted-<role>`. */
const requests = () =>
  fake.requests.map((r) => {
    const auth = (r.auth ?? '').replace(/!homelab-(read|write)-[0-9a-f]{12}$/, '!minted-$1');
    const path = r.path.replace('/api2/json/', '').replace(/homelab-(read|write)-[0-9a-f]{12}/, 'minted');
    return `${r.method} ${path} by ${auth}`;
  });

test('a plan mints one token for the read user, reads with it alone, and removes it', async () => {
  const plan = await invokeBatch(pveDomain(), target(), { metrics: { kind: 'metric-server', spec: server } }, env);
  expect(plan).toMatchObject({ code: 0 });
  expect(requests()).toEqual([
    'POST access/users/cdktf-read%40pve/token/minted by boot@pve!read',
    'GET cluster/metrics/server by cdktf-read@pve!minted-read',
    'DELETE access/users/cdktf-read%40pve/token/minted by boot@pve!read',
  ]);
  expect(fake.requests[0]?.body).toMatchObject({ privsep: '0' });
  expect(Number(fake.requests[0]?.body.expire) - Date.now() / 1000).toBeGreaterThan(590);
  expect(fake.tokenIds()).toEqual(BOOTSTRAPS);
});

test('a batch apply mints one token for the provision user, reloads and polls the task with it', async () => {
  stageVmbr7();
  const objects = { metrics: { kind: 'metric-server', spec: server }, net: { kind: 'network-apply', spec: network } };
  const applied = await invokeBatchApply(pveDomain(), target(), objects, env, clock);
  expect(applied).toMatchObject({ code: 0 });
  const mints = requests().filter((line) => line.includes('/token/'));
  expect(mints).toEqual([
    'POST access/users/cdktf-apply%40pve/token/minted by boot@pve!apply',
    'DELETE access/users/cdktf-apply%40pve/token/minted by boot@pve!apply',
  ]);
  const run = fake.requests.filter((r) => !r.path.includes('/token/'));
  const reload = run.find((r) => r.method === 'PUT' && r.path.endsWith('/nodes/n2/network'));
  const polls = run.filter((r) => /\/tasks\/UPID[^/]*\/status$/.test(r.path));
  expect(polls.length).toBeGreaterThan(0);
  // The task's owner is the token that reloaded; a poll with any other token would be refused.
  expect(new Set([reload?.auth, ...polls.map((r) => r.auth)]).size).toBe(1);
  expect(new Set(run.map((r) => r.auth))).toEqual(new Set([reload?.auth]));
  expect(reload?.auth).toMatch(/^cdktf-apply@pve!homelab-write-[0-9a-f]{12}$/);
  expect(fake.tokenIds()).toEqual(BOOTSTRAPS);
});

test('a failed apply removes its token too', async () => {
  fake.failNext('POST', /metrics\/server\/graphite/, 500, 'cfs lock timeout');
  const applied = await invokeBatchApply(
    pveDomain(),
    target(),
    { metrics: { kind: 'metric-server', spec: server } },
    env,
  );
  expect(applied.code).toBe(1);
  expect(requests().filter((line) => line.startsWith('DELETE'))).toEqual([
    'DELETE access/users/cdktf-apply%40pve/token/minted by boot@pve!apply',
  ]);
  expect(fake.tokenIds()).toEqual(BOOTSTRAPS);
});

test('a run that never ends leaves a token refused once its expiry is past, the 401 naming the variable', async () => {
  const context = { env, log: () => undefined, clock };
  const killed = await pveDomain().connect(target(), context, 'write');
  expect(await killed.call('GET', 'cluster/metrics/server')).toEqual([]);
  expect(fake.tokenIds()).toHaveLength(BOOTSTRAPS.length + 1);
  await clock.sleep(601_000);
  const refused = await killed.call('GET', 'cluster/metrics/server').catch((error: Error) => error.message);
  expect(refused).toMatch(/PVE answered 401: Authentication failed!/);
  // The 401 names the variable the user set and whose token it was, not the run's internal variable.
  expect(refused).toContain(
    'the token minted for this run from the token in PVE_BOOT_APPLY ' +
      '(a token of cdktf-apply@pve, expiring 600 s after the run began) was refused',
  );
  expect(refused).not.toContain('HOMELAB_MINTED_TOKEN');
});

test('a bootstrap token without User.Modify mints nothing and the run fails naming it', async () => {
  const plain = { ...target(), tokenEnv: 'PVE_PLAIN' };
  const applied = await invokeBatchApply(
    pveDomain(),
    plain,
    { metrics: { kind: 'metric-server', spec: server } },
    {
      PVE_PLAIN: 'plain@pve!apply=plain-apply',
    },
  );
  expect(applied.stderr).toMatch(
    new RegExp(
      'PVE token not minted: the token in PVE_PLAIN could not create one for cdktf-apply@pve; ' +
        'Cause: PVE answered 403: Permission check failed',
    ),
  );
  expect(fake.metricServers()).toEqual({});
});

test("privsep: a token created separated has no rights of its own, one created with privsep=0 its user's", async () => {
  const boot = new PveClient({ endpoints: [fake.url], tokenEnv: 'B', insecure: true }, { B: env.PVE_BOOT_READ });
  const mint = (id: string, privsep: boolean) =>
    boot.call<{ value: string; 'full-tokenid': string }>('POST', `access/users/cdktf-read@pve/token/${id}`, {
      privsep,
    });
  const client = ({ value, 'full-tokenid': id }: { value: string; 'full-tokenid': string }) =>
    new PveClient({ endpoints: [fake.url], tokenEnv: 'T', insecure: true }, { T: `${id}=${value}` });
  const separated = client(await mint('sep', true));
  await expect(separated.call('GET', 'cluster/metrics/server')).rejects.toThrow(/403: Permission check failed/);
  expect(await client(await mint('full', false)).call('GET', 'cluster/metrics/server')).toEqual([]);
  await boot.close();
});
