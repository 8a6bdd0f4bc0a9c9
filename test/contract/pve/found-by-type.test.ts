/**
 * What the batch read calls found, for the PVE kinds whose ownership the state keeps (README, Adoption): only an
 * object of the spec's type. A section or interface of another type under the same name is one the object's
 * apply never writes (PVE cannot change a type) and its destroy leaves, so its lifecycle records nothing found
 * and the read names it absent. Before, a metric server whose type the stack changed found its own old section:
 * the replaced lifecycle recorded it as not created by this stack, its destroy deleted the section, and the apply
 * refused to create the new one, forever (an audit, 2026-12-05, type-change.sh).
 */
import { pveDomain } from '../../../handlers/pve/domain';
import { type FakePve, startFakePve } from '../../fakes/pve/server';
import { invokeBatch } from '../../support/run-handler';

const env = { PROXMOX_VE_API_TOKEN: 'root@pam!homelab=fake-secret-0000' };
const RUNNING = 'auto lo\niface lo inet loopback\n\nauto vmbr5\niface vmbr5 inet manual\n\tbridge-ports none\n';

let fake: FakePve;
beforeEach(async () => {
  fake = await startFakePve({ nodes: ['n1'], network: { n1: { physical: ['eno1'], running: RUNNING } } });
});
afterEach(() => fake.stop());

const target = () => ({ endpoints: [fake.url], tokenEnv: 'PROXMOX_VE_API_TOKEN', insecure: true });
const server = (id: string, type: string, port: number) => ({
  kind: 'metric-server',
  spec: { id, type, server: '10.0.0.5', port, options: {} },
});

test('a server or an interface of another type under its name is not found: the read names it absent', async () => {
  fake.setMetricServer('mx', { type: 'graphite', server: '10.0.0.5', port: 2003 });
  const objects = {
    retyped: server('mx', 'influxdb', 8089),
    same: server('mx', 'graphite', 2003),
    vlan: {
      kind: 'network-interface',
      spec: { node: 'n1', iface: 'vmbr5', type: 'vlan', options: { 'vlan-raw-device': 'eno1', 'vlan-id': 5 } },
    },
    bridge: { kind: 'network-interface', spec: { node: 'n1', iface: 'vmbr5', type: 'bridge', options: {} } },
  };
  const batch = await invokeBatch(pveDomain(), target(), objects, env);
  const found = JSON.parse(batch.result?.['.found'] ?? '{}') as Record<string, string[]>;
  expect(Object.values(found).flat().sort()).toEqual(['bridge', 'same']);
  expect(batch.result?.['.absent']).toBe('retyped,vlan');
  expect(batch.result?.['retyped.summary']).toMatch(/is absent: the id is held by a graphite section/);
});
