import {
  createForm,
  diffInterface,
  findInterface,
  interfaceReading,
  isInSync,
  missingInterfaces,
  summarizeInterface,
  updateForm,
} from '../../../../src/pve/network-interface-diff';
import type { NetworkInterfaceSpec } from '../../../../src/pve/network-interface';

const bridge: NetworkInterfaceSpec = {
  node: 'n2',
  iface: 'vmbr1',
  type: 'bridge',
  options: { cidr: '10.10.0.2/24', bridge_ports: ['enp2s0', 'eno2'], autostart: true, mtu: 9000, comments: 'uplink' },
};
// As PVE answers: 0/1 flags, mtu as the file's text, ports sorted, comments with a final newline.
const bridgeRow = {
  iface: 'vmbr1',
  type: 'bridge',
  method: 'static',
  method6: 'manual',
  families: ['inet'],
  priority: 5,
  autostart: 1,
  bridge_ports: 'eno2 enp2s0',
  bridge_stp: 'off',
  bridge_fd: '0',
  cidr: '10.10.0.2/24',
  address: '10.10.0.2',
  netmask: '24',
  active: 1,
  mtu: '9000',
  comments: 'uplink\n',
};
const vlan: NetworkInterfaceSpec = { node: 'n2', iface: 'vmbr1.20', type: 'vlan', options: { cidr: '10.20.0.2/24' } };
const vlanRow = {
  iface: 'vmbr1.20',
  type: 'vlan',
  method: 'static',
  families: ['inet'],
  cidr: '10.20.0.2/24',
  'vlan-raw-device': 'vmbr1',
  'vlan-id': '20',
};

describe('diffInterface', () => {
  test('a row as PVE reports it is in sync with the spec that wrote it', () => {
    const state = diffInterface(bridge, bridgeRow);
    expect(state).toEqual({ state: 'present', changes: {} });
    expect(summarizeInterface(bridge, state)).toBe('interface vmbr1 on n2 is in sync');
  });

  test('a VLAN named <device>.<id> is in sync without declaring the device or id', () => {
    expect(isInSync(diffInterface(vlan, vlanRow))).toBe(true);
  });

  test.each<[string, Record<string, unknown>, Record<string, { live: unknown; want: unknown }>]>([
    ['a changed mtu', { mtu: '1500' }, { mtu: { live: 1500, want: 9000 } }],
    ['autostart off', { autostart: undefined }, { autostart: { live: false, want: true } }],
    ['a port missing', { bridge_ports: 'eno2' }, { bridge_ports: { live: ['eno2'], want: ['eno2', 'enp2s0'] } }],
    ['no address', { cidr: undefined }, { cidr: { live: null, want: '10.10.0.2/24' } }],
    ['an undeclared gateway', { gateway: '10.10.0.1' }, { gateway: { live: '10.10.0.1', want: null } }],
    [
      'DHCP by hand, which any write turns to static or manual by its address',
      { method: 'dhcp', cidr: undefined },
      { cidr: { live: null, want: '10.10.0.2/24' }, method: { live: 'dhcp', want: 'static' } },
    ],
    [
      'an inet6 stanza by hand, which any write without cidr6 drops',
      { families: ['inet6', 'inet'], method6: 'auto' },
      { method6: { live: 'auto', want: 'manual' }, families: { live: ['inet', 'inet6'], want: ['inet'] } },
    ],
    [
      'VLAN awareness switched on by hand',
      { bridge_vlan_aware: 1, bridge_vids: '2-4094' },
      { bridge_vlan_aware: { live: true, want: false }, bridge_vids: { live: ['2-4094'], want: null } },
    ],
  ])('reports %s', (_, patch, changes) => {
    expect(diffInterface(bridge, { ...bridgeRow, ...patch })).toEqual({ state: 'present', changes });
  });

  test('a VLAN-aware bridge without declared ids matches the 2-4094 PVE writes', () => {
    const aware = { ...bridge, options: { ...bridge.options, bridge_vlan_aware: true } };
    expect(isInSync(diffInterface(aware, { ...bridgeRow, bridge_vlan_aware: 1, bridge_vids: '2-4094' }))).toBe(true);
  });

  test('ids an update stored comma-separated compare like the space-separated ones', () => {
    const aware = { ...bridge, options: { ...bridge.options, bridge_vlan_aware: true, bridge_vids: ['10', '20-30'] } };
    expect(isInSync(diffInterface(aware, { ...bridgeRow, bridge_vlan_aware: 1, bridge_vids: '10,20-30' }))).toBe(true);
  });

  test('an absent name is absent', () => {
    expect(summarizeInterface(bridge, diffInterface(bridge, undefined))).toBe('interface vmbr1 on n2 is absent');
  });

  test('a name holding another type is foreign: PUT cannot change a type', () => {
    const state = diffInterface(bridge, { iface: 'vmbr1', type: 'eth' });
    expect(state).toEqual({ state: 'foreign', liveType: 'eth' });
    expect(summarizeInterface(bridge, state)).toMatch(
      /is a eth, not a bridge: PVE cannot change an interface's type, so the apply refuses it;/,
    );
  });

  test('options lines (wpa-psk, pre-up) are never read, so they never reach a summary or form', () => {
    const row = { ...bridgeRow, mtu: '1500', options: ['wpa-psk hunter22', 'pre-up /bin/true --key=s3cret'] };
    const state = diffInterface(bridge, row);
    const everything = JSON.stringify([
      state,
      summarizeInterface(bridge, state),
      updateForm(bridge, row),
      createForm(bridge),
    ]);
    expect(everything).not.toMatch(/hunter22|s3cret|wpa-psk|pre-up/);
  });
});

// Issue 16 item 7: a port the node does not have passed the plan and failed the apply with PVE's 500.
describe('interfaceReading', () => {
  const nics = [
    { iface: 'eno2', type: 'eth' },
    { iface: 'enp2s0', type: 'eth' },
  ];
  const none = new Set<string>();

  test('an interface whose named interfaces are all on the node reads as its diff alone', () => {
    expect(interfaceReading(bridge, [bridgeRow, ...nics], none)).toEqual({
      inSync: true,
      summary: 'interface vmbr1 on n2 is in sync',
      diff: {},
    });
  });

  test.each<[string, NetworkInterfaceSpec, string]>([
    ['a bridge port', { ...bridge, options: { bridge_ports: ['eno2', 'enp9s0'] } }, 'bridge port enp9s0'],
    [
      'a bond slave',
      { node: 'n2', iface: 'bond0', type: 'bond', options: { slaves: ['enp9s0'] } },
      'bond slave enp9s0',
    ],
    ['the device in a VLAN name', { ...vlan, iface: 'vmbr9.20' }, 'VLAN device vmbr9'],
    [
      'a declared VLAN device',
      { node: 'n2', iface: 'vlan20', type: 'vlan', options: { 'vlan-raw-device': 'bond1' } },
      'VLAN device bond1',
    ],
  ])('%s the node does not have is named in the summary, and the object is not in sync', (_, spec, named) => {
    const reading = interfaceReading(spec, nics, none);
    expect(reading.inSync).toBe(false);
    expect(reading.summary).toBe(`interface ${spec.iface} on n2 is absent; ${named} is not on n2`);
  });

  test('an in-sync interface whose port left the node is not in sync', () => {
    expect(interfaceReading(bridge, [bridgeRow, nics[0]], none)).toMatchObject({
      inSync: false,
      summary: 'interface vmbr1 on n2: bridge port enp2s0 is not on n2',
    });
  });

  test('a named interface the same stack declares on the node is not missing: the batch creates it first', () => {
    const spec = { ...bridge, options: { bridge_ports: ['bond0', 'eno2'] } };
    expect(missingInterfaces(spec, nics, new Set(['bond0', 'vmbr1']))).toEqual([]);
    expect(missingInterfaces(spec, nics, none)).toEqual(['bridge port bond0 is not on n2']);
  });
});

describe('findInterface', () => {
  test('finds the row by name in the collection data', () => {
    expect(findInterface([{ iface: 'eno1' }, bridgeRow], 'vmbr1')).toBe(bridgeRow);
    expect(findInterface([{ iface: 'eno1' }], 'vmbr1')).toBeUndefined();
    expect(findInterface({ data: [] }, 'vmbr1')).toBeUndefined();
  });
});

describe('forms', () => {
  test('create posts iface and type to the collection, flags as 1, lists space-separated', () => {
    expect(createForm(bridge)).toEqual({
      iface: 'vmbr1',
      type: 'bridge',
      cidr: '10.10.0.2/24',
      bridge_ports: 'enp2s0 eno2',
      autostart: 1,
      mtu: 9000,
      comments: 'uplink',
    });
  });

  test('a flag declared false is not sent: PVE writes bridge-vlan-aware yes for any defined value', () => {
    const off = { ...bridge, options: { bridge_vlan_aware: false } };
    expect(createForm(off)).toEqual({ iface: 'vmbr1', type: 'bridge' });
  });

  test.each<[string, NetworkInterfaceSpec, Record<string, unknown>, string | undefined]>([
    ['nothing to clear', bridge, bridgeRow, undefined],
    [
      'an undeclared gateway and mtu',
      { ...bridge, options: { cidr: '10.10.0.2/24', autostart: true } },
      { ...bridgeRow, gateway: '10.10.0.1' },
      'comments,mtu,gateway,bridge_ports',
    ],
    [
      'a flag now declared false',
      { ...bridge, options: { ...bridge.options, autostart: false } },
      bridgeRow,
      'autostart',
    ],
    [
      'VLAN awareness dropped',
      bridge,
      { ...bridgeRow, bridge_vlan_aware: 1, bridge_vids: '10 20' },
      'bridge_vlan_aware,bridge_vids',
    ],
    [
      'ids back to the default',
      { ...bridge, options: { ...bridge.options, bridge_vlan_aware: true } },
      { ...bridgeRow, bridge_vlan_aware: 1, bridge_vids: '10 20' },
      'bridge_vids',
    ],
    ['a name-derived VLAN device', vlan, vlanRow, undefined],
  ])('update sends type and every declared field, clearing %s', (_, spec, live, cleared) => {
    const form = updateForm(spec, live);
    expect(form.type).toBe(spec.type);
    expect(form.delete).toBe(cleared);
    expect(form.iface).toBeUndefined();
  });
});
