// The pure interface forms against the fake node: whatever createForm or updateForm stages must
// read back in sync, or an interface PVE accepted would show as drifted on every plan.
import { specOf } from '../../../src/core/fields';
import { parseAs } from '../../../src/core/parse';
import { type InterfaceType, NETWORK_INTERFACE_FIELDS } from '../../../src/pve/network-fields';
import { interfaceProblems, networkInterfaceSpec } from '../../../src/pve/network-interface';
import { createForm, diffInterface, findInterface, updateForm } from '../../../src/pve/network-interface-diff';
import { startFakePve, type FakePve } from '../../fakes/pve/server';
import { call } from '../../fakes/pve/test-client';

const NET = '/nodes/n2/network';
let fake: FakePve;

beforeAll(async () => {
  fake = await startFakePve({ nodes: ['n1', 'n2'], network: { n2: { physical: ['eno1', 'eno2', 'eno3', 'enp2s0'] } } });
});
afterAll(() => fake.stop());
afterEach(() => call(fake.url, 'DELETE', NET));

const form = (values: Record<string, string | number>) =>
  Object.fromEntries(Object.entries(values).map(([k, v]) => [k, String(v)]));
/** The spec a construct with these props writes, as the handler boundary hands it on. */
const interfaceSpec = (node: string, iface: string, type: InterfaceType, props: Record<string, unknown>) =>
  parseAs(networkInterfaceSpec, specOf(NETWORK_INTERFACE_FIELDS, { node, iface, type, ...props }), 'spec');
const rows = async () => (await call(fake.url, 'GET', NET)).body.data;

type Case = [string, InterfaceType, string, Record<string, unknown>, Record<string, unknown>];
const cases: Case[] = [
  [
    'a bridge with every field, then most removed',
    'bridge',
    'vmbr1',
    {
      cidr: '10.10.0.2/24',
      cidr6: 'fd00:10::2/64',
      gateway6: 'fd00:10::1',
      autostart: true,
      comments: 'uplink\nsecond line',
      bridgePorts: ['enp2s0', 'eno2'],
      bridgeVlanAware: true,
      bridgeVids: ['10', 20, '100-200'],
    },
    { cidr: '10.10.0.3/24', bridgePorts: ['eno2'] },
  ],
  [
    'a VLAN-aware bridge on the default ids, then not VLAN-aware',
    'bridge',
    'vmbr2',
    { bridgeVlanAware: true },
    { autostart: true, bridgeVlanAware: false },
  ],
  [
    'a VLAN named after its bridge',
    'vlan',
    'vmbr0.20',
    { cidr: '10.20.0.2/24', autostart: true, comments: 'mgmt' },
    { mtu: 1400 },
  ],
  [
    'a custom-named VLAN',
    'vlan',
    'mgmt',
    { vlanRawDevice: 'vmbr0', vlanId: 30, cidr: '10.30.0.2/24' },
    { vlanRawDevice: 'vmbr0', vlanId: 31 },
  ],
  [
    'an active-backup bond, then LACP',
    'bond',
    'bond0',
    { slaves: ['eno3', 'eno2'], bondMode: 'active-backup', bondPrimary: 'eno3' },
    { slaves: ['eno2'], bondMode: '802.3ad', bondXmitHashPolicy: 'layer3+4' },
  ],
];

test.each(cases)('%s reads back in sync after create and after update', async (_, type, iface, first, second) => {
  for (const props of [first, second]) expect(interfaceProblems({ node: 'n2', iface, type, ...props })).toEqual([]);
  const created = interfaceSpec('n2', iface, type, first);
  const post = await call(fake.url, 'POST', NET, { form: form(createForm(created)) });
  expect(post.body).toEqual({ data: null });
  expect(diffInterface(created, findInterface(await rows(), iface))).toEqual({ state: 'present', changes: {} });

  const updated = interfaceSpec('n2', iface, type, second);
  const live = findInterface(await rows(), iface)!;
  expect(diffInterface(updated, live)).not.toEqual({ state: 'present', changes: {} });
  const put = await call(fake.url, 'PUT', `${NET}/${encodeURIComponent(iface)}`, {
    form: form(updateForm(updated, live)),
  });
  expect(put.body).toEqual({ data: null });
  expect(diffInterface(updated, findInterface(await rows(), iface))).toEqual({ state: 'present', changes: {} });
});
