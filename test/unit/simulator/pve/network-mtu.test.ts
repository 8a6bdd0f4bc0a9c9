// The fake's writer dies as PVE's does on check_mtu ([PC] f665029 src/PVE/Network/Interfaces.pm:96-110), so a
// handler test against it meets the 500 a node would give: here for a bond's slaves (:905) and a VLAN's device
// (:982); a bridge's ports (:1027) are in network.test.ts.
import { startPveSimulator, type PveSimulator } from '../../../../src/simulator/pve/server';
import { call } from '../../../fakes/pve/test-client';

const NET = '/nodes/n2/network';

let fake: PveSimulator;
beforeEach(async () => {
  fake = await startPveSimulator({ nodes: ['n2'] });
  const { running } = fake.interfacesFiles('n2');
  fake.setInterfacesFiles('n2', { running: `${running}iface enp2s0 inet manual\n\tmtu 9000\n` });
});
afterEach(() => fake.stop());

test.each<[string, Record<string, string>, number, string | null]>([
  [
    'a bond below its slave is refused',
    { iface: 'bond0', type: 'bond', slaves: 'enp2s0', mtu: '1500' },
    500,
    "interface 'bond0' - mtu 1500 is lower than 'enp2s0' - mtu 9000\n",
  ],
  [
    "a bond without an mtu on the same slave is staged (it takes the slave's)",
    { iface: 'bond0', type: 'bond', slaves: 'enp2s0' },
    200,
    null,
  ],
  [
    'a VLAN above its device without an mtu is refused',
    { iface: 'eno1.20', type: 'vlan', mtu: '9000' },
    500,
    "interface 'eno1' - mtu 1500 is lower than 'eno1.20' - mtu 9000\n",
  ],
  [
    'a VLAN above its vlan-raw-device is refused',
    { iface: 'vlan20', type: 'vlan', 'vlan-raw-device': 'enp2s0', mtu: '9216' },
    500,
    "interface 'enp2s0' - mtu 9000 is lower than 'vlan20' - mtu 9216\n",
  ],
  ["a VLAN at its device's mtu is staged", { iface: 'enp2s0.20', type: 'vlan', mtu: '9000' }, 200, null],
])('%s', async (_, form, status, message) => {
  const res = await call(fake.url, 'POST', NET, { form });
  expect([res.status, res.body.message ?? null]).toEqual([status, message]);
  expect(fake.interfacesFiles('n2').staged === undefined).toBe(status !== 200);
});
