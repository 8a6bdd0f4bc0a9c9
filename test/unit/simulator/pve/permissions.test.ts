// The fake's token rights beyond Sys.*: which bridges `GET nodes/{node}/network` lists (SDN.Audit on
// the bridge, [PM] Network.pm index and [AC] RPCEnvironment.pm check_sdn_bridge), and a token's own
// effective permissions (`GET /access/permissions`, [AC] API2/AccessControl.pm).
import { startPveSimulator, type PveSimulator } from '../../../../src/simulator/pve/server';
import { call } from '../../../fakes/pve/test-client';

const NET = '/nodes/n2/network';
const TOKENS = {
  'root@pam!homelab': { secret: 's0', privileges: 'modify' as const },
  'ops@pve!sys': { secret: 's1', privileges: 'modify' as const, sdnAudit: false },
  'ops@pve!one': { secret: 's2', privileges: 'modify' as const, sdnAudit: ['vmbr1'] },
  'ops@pve!vlan': { secret: 's3', privileges: 'modify' as const, sdnAudit: ['vmbr1/40'] },
};

let fake: PveSimulator;
const as = (token: string) => `PVEAPIToken=${token}=${TOKENS[token as keyof typeof TOKENS].secret}`;
const ifacesSeenBy = async (token: string) => {
  const { body } = await call(fake.url, 'GET', NET, { auth: as(token) });
  return body.data.map((row: { iface: string }) => row.iface);
};

beforeEach(async () => {
  fake = await startPveSimulator({ nodes: ['n1', 'n2'], tokens: TOKENS });
  const { running } = fake.interfacesFiles('n2');
  fake.setInterfacesFiles('n2', { running: `${running}auto vmbr1\niface vmbr1 inet manual\n\tbridge-ports none\n` });
});
afterEach(() => fake.stop());

describe('bridges in the list', () => {
  test.each([
    ['root@pam!homelab', ['eno1', 'enp2s0', 'vmbr0', 'vmbr1']],
    ['ops@pve!sys', ['eno1', 'enp2s0']],
    ['ops@pve!one', ['eno1', 'enp2s0', 'vmbr1']],
    ['ops@pve!vlan', ['eno1', 'enp2s0', 'vmbr1']],
  ])('%s sees the bridges it holds SDN.Audit on (or on a VLAN below), and every other row', async (token, seen) => {
    expect(await ifacesSeenBy(token)).toEqual(seen);
  });

  test('a token without SDN.Audit reads a bridge it cannot see as missing from the list, not as an error', async () => {
    const { status, body } = await call(fake.url, 'GET', NET, { auth: as('ops@pve!sys') });
    expect(status).toBe(200);
    expect(body.data.some((row: { type: string }) => row.type === 'bridge')).toBe(false);
  });
});

describe('GET /access/permissions', () => {
  test('a token reads its own privileges on one path, the bridge path included', async () => {
    const path = '/sdn/zones/localnetwork/vmbr0';
    const mine = await call(fake.url, 'GET', `/access/permissions?path=${encodeURIComponent(path)}`, {
      auth: as('ops@pve!one'),
    });
    expect(mine.body).toEqual({ data: { [path]: { 'Sys.Audit': 1, 'Sys.Modify': 1 } } });
    const root = await call(fake.url, 'GET', `/access/permissions?path=${encodeURIComponent(path)}`, {
      auth: as('root@pam!homelab'),
    });
    expect(root.body.data[path]).toEqual({ 'Sys.Audit': 1, 'Sys.Modify': 1, 'SDN.Audit': 1 });
  });

  test('without a path, it lists the top-level paths and those its ACLs name', async () => {
    const { body } = await call(fake.url, 'GET', '/access/permissions', { auth: as('ops@pve!one') });
    expect(Object.keys(body.data)).toContain('/sdn/zones/localnetwork/vmbr1');
    expect(body.data['/sdn/zones/localnetwork/vmbr1']).toHaveProperty(['SDN.Audit']);
    expect(body.data['/sdn']).not.toHaveProperty(['SDN.Audit']);
  });

  test("another token's privileges need Sys.Audit on /access", async () => {
    const nobody = { ...TOKENS, 'none@pve!x': { secret: 's9', privileges: 'none' as const } };
    await fake.stop();
    fake = await startPveSimulator({ nodes: ['n1', 'n2'], tokens: nobody });
    const refused = await call(fake.url, 'GET', '/access/permissions?userid=ops@pve!sys', {
      auth: 'PVEAPIToken=none@pve!x=s9',
    });
    expect([refused.status, refused.reason]).toEqual([403, 'Permission check failed (/access, Sys.Audit)']);
    const allowed = await call(fake.url, 'GET', '/access/permissions?userid=ops@pve!sys&path=/', {
      auth: as('root@pam!homelab'),
    });
    expect(allowed.body.data).toEqual({ '/': { 'Sys.Audit': 1, 'Sys.Modify': 1 } });
  });
});
