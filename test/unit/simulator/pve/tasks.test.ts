// The fake's reload task against reference/pve-api.md §A2 and §A4: a UPID at once, a status that
// runs for the configured time, the exit status from the log's last line, the owner rule, the
// error texts for a bad UPID, and a reload that cuts the poll riding on it.
import { startPveSimulator, type PveSimulator } from '../../../../src/simulator/pve/server';
import { call, type CallOptions } from '../../../fakes/pve/test-client';

const NET = '/nodes/n2/network';
const OWNER = 'PVEAPIToken=ops@pve!apply=s1';
const OTHER = 'PVEAPIToken=ops@pve!other=s2';
const AUDITOR = 'PVEAPIToken=ro@pve!read=s3';
const UPID = /^UPID:n2:[0-9A-F]{8}:[0-9A-F]{8}:[0-9A-F]{8}:srvreload:networking:ops@pve!apply:$/;

let fake: PveSimulator;
let clock = 1_800_000_000_000;
const api = (method: string, path: string, options: CallOptions = {}) =>
  call(fake.url, method, path, { auth: OWNER, ...options });
const reload = async (): Promise<string> => (await api('PUT', NET)).body.data;
const status = async (upid: string, auth = OWNER) => api('GET', `/nodes/n2/tasks/${upid}/status`, { auth });

beforeEach(async () => {
  fake = await startPveSimulator({
    nodes: ['n1', 'n2', 'n3'],
    now: () => clock,
    tokens: {
      // The applying token may modify n2 and holds no Sys.Audit anywhere: owning its task is enough.
      'ops@pve!apply': { secret: 's1', privileges: 'none', nodes: { n2: 'modify-only' } },
      'ops@pve!other': { secret: 's2', privileges: 'none', nodes: { n2: 'none' } },
      'ro@pve!read': { secret: 's3', privileges: 'audit' },
    },
  });
});
afterEach(() => fake.stop());

describe('the reload (PUT nodes/{node}/network)', () => {
  test('answers a UPID in PVE format at once and moves interfaces.new over interfaces', async () => {
    await api('POST', NET, { form: { iface: 'vmbr1', type: 'bridge', bridge_ports: 'enp2s0' } });
    const staged = fake.interfacesFiles('n2').staged;
    const upid = await reload();
    expect(upid).toMatch(UPID);
    expect(fake.interfacesFiles('n2')).toEqual({ running: staged });
    expect(fake.tasks()).toEqual([upid]);
  });

  test('is refused before any task starts on a node without ifupdown2', async () => {
    fake.setInterfacesFiles('n2', { ifupdown2: false });
    const res = await api('PUT', NET);
    expect([res.status, res.body.message]).toEqual([500, 'you need ifupdown2 to reload network configuration\n']);
    expect(fake.tasks()).toEqual([]);
  });

  test('runs for the configured time, then stops with OK', async () => {
    fake.setReload('n2', { durationMs: 2000 });
    const upid = await reload();
    expect((await status(upid)).body.data).toMatchObject({
      status: 'running',
      type: 'srvreload',
      id: 'networking',
      upid,
    });
    expect((await status(upid)).body.data.exitstatus).toBeUndefined();
    clock += 2000;
    expect((await status(upid)).body.data).toMatchObject({
      status: 'stopped',
      exitstatus: 'OK',
      node: 'n2',
      user: 'ops@pve',
      tokenid: 'apply',
    });
  });

  test.each<[string, string, string[]]>([
    ['WARNINGS: 1', 'WARNINGS: 1', ['WARN: vmbr9: something odd', 'TASK WARNINGS: 1']],
    [
      'an error',
      'command ifreload -a failed: exit code 1',
      ['error: vmbr1: bridge port enp9 does not exist', 'TASK ERROR: command ifreload -a failed: exit code 1'],
    ],
  ])('ends with %s, the log ending in the matching TASK line', async (_, exitstatus, tail) => {
    fake.setReload('n2', { exitstatus, log: ['reloading', tail[0]!] });
    const upid = await reload();
    expect((await status(upid)).body.data).toMatchObject({ status: 'stopped', exitstatus });
    const log = await api('GET', `/nodes/n2/tasks/${upid}/log`);
    expect(log.body).toEqual({
      data: [
        { n: 1, t: 'reloading' },
        { n: 2, t: tail[0] },
        { n: 3, t: tail[1] },
      ],
      total: 3,
    });
  });

  test('the log honours start and limit (0 reads to the end)', async () => {
    fake.setReload('n2', { log: ['a', 'b', 'c'] });
    const upid = await reload();
    const from = async (query: string) => (await api('GET', `/nodes/n2/tasks/${upid}/log?${query}`)).body.data;
    expect(await from('start=2&limit=1')).toEqual([{ n: 3, t: 'c' }]);
    expect((await from('start=1&limit=0')).map((line: { t: string }) => line.t)).toEqual(['b', 'c', 'TASK OK']);
  });

  test('a held task runs until the test ends it, with the exit status it chooses', async () => {
    fake.setReload('n2', { durationMs: Infinity });
    const upid = await reload();
    clock += 600_000;
    expect((await status(upid)).body.data.status).toBe('running');
    fake.finishTask(upid, 'OK');
    expect((await status(upid)).body.data).toMatchObject({ status: 'stopped', exitstatus: 'OK' });
  });

  test('cuts the configured number of polls riding on the reload, then answers', async () => {
    fake.setReload('n2', { cutPolls: 2 });
    const upid = await reload();
    await expect(status(upid)).rejects.toThrow(/socket hang up|ECONNRESET/);
    await expect(status(upid)).rejects.toThrow(/socket hang up|ECONNRESET/);
    expect((await status(upid)).body.data.exitstatus).toBe('OK');
    expect(fake.requests.filter((r) => r.path.endsWith('/status'))).toHaveLength(3);
  });
});

describe('polling a task (GET nodes/{node}/tasks/{upid}/status)', () => {
  test.each<[string, string]>([
    ['the owner, without Sys.Audit on the node', OWNER],
    ['an auditor of the node', AUDITOR],
  ])('answers %s', async (_, auth) => {
    const upid = await reload();
    expect((await status(upid, auth)).status).toBe(200);
  });

  test('refuses another token of the same user without Sys.Audit on the node', async () => {
    const upid = await reload();
    const res = await status(upid, OTHER);
    expect([res.status, res.reason]).toEqual([403, 'Permission check failed (/nodes/n2, Sys.Audit)']);
  });

  test.each<[string, (upid: string) => string, string]>([
    ['a UPID PVE cannot parse', () => 'UPID:n2:nope', 'unable to parse worker upid'],
    ['an unknown task', (upid) => upid.replace(/:[0-9A-F]{8}:srvreload/, ':00000001:srvreload'), 'no such task'],
    ["another node's task", (upid) => upid, 'no such task'],
  ])('answers 400 for %s', async (label, make, message) => {
    const upid = make(await reload());
    const node = label.startsWith('another') ? 'n3' : 'n2';
    const res = await api('GET', `/nodes/${node}/tasks/${upid}/status`, { auth: AUDITOR });
    expect([res.status, res.body.errors]).toEqual([400, { upid: message }]);
  });

  test('takes a UPID whose : @ ! are percent-encoded, as pveproxy unescapes the path', async () => {
    const upid = await reload();
    expect((await status(encodeURIComponent(upid))).body.data.upid).toBe(upid);
  });

  test('logs every call in order, so a test can check what ran when', async () => {
    const upid = await reload();
    await status(upid);
    expect(fake.requests.map((r) => `${r.method} ${r.path}`)).toEqual([
      `PUT /api2/json${NET}`,
      `GET /api2/json/nodes/n2/tasks/${upid}/status`,
    ]);
    expect(fake.requests.every((r) => r.auth === 'ops@pve!apply')).toBe(true);
  });
});
