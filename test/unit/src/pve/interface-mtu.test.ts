/**
 * The pure rule PVE's writer dies on ([PC] f665029 src/PVE/Network/Interfaces.pm:96-110 check_mtu): a bond slave
 * above its bond (:905), a VLAN above its device (:982), a bridge above a port (:1027). The plan must say so, or it
 * promises a stage the apply then fails with a 500.
 */
import { mtuConflicts, nodeView } from '../../../../src/pve/interface-mtu';

const rows = [
  { iface: 'eno1', type: 'eth' },
  { iface: 'enp2s0', type: 'eth', mtu: '9000' },
  { iface: 'bond0', type: 'bond', slaves: 'eno1' },
];
const spec = (iface: string, type: string, options: Record<string, unknown>) => ({ node: 'n2', iface, type, options });
const jumbo = (ports: string[], mtu: unknown = 9000) => spec('vmbr1', 'bridge', { bridge_ports: ports, mtu });
const conflicts = (...declared: ReturnType<typeof spec>[]) => mtuConflicts(nodeView(rows, declared));

describe('a bridge against its ports', () => {
  test('a port without an mtu counts as 1500, as PVE takes it', () => {
    expect(conflicts(jumbo(['eno1', 'enp2s0']))).toEqual([
      "bridge vmbr1's mtu 9000 is above its port eno1's mtu 1500 (unset: PVE takes 1500)",
    ]);
  });

  test('a port with an mtu at or above the bridge, a bond without one, or a bridge without one is fine', () => {
    expect(conflicts(jumbo(['enp2s0', 'bond0']))).toEqual([]);
    expect(conflicts(jumbo(['eno1'], null))).toEqual([]);
    expect(conflicts(jumbo(['eno1'], 1500))).toEqual([]);
  });

  test('a port the same stack declares on the node counts with its declared mtu, not its row', () => {
    expect(conflicts(jumbo(['bond1']), spec('bond1', 'bond', { slaves: ['eno1'], mtu: 9000 }))).toEqual([]);
    expect(conflicts(jumbo(['bond0']), spec('bond0', 'bond', { mtu: 1500 }))).toEqual([
      "bridge vmbr1's mtu 9000 is above its port bond0's mtu 1500",
    ]);
    expect(conflicts(jumbo(['enp2s0.20']), spec('enp2s0.20', 'vlan', {}))).toEqual([
      "bridge vmbr1's mtu 9000 is above its port enp2s0.20's mtu 1500 (unset: PVE takes 1500)",
    ]);
  });

  test("a <device>.<id> port without a row is a VLAN with its device's mtu; a port not there is left alone", () => {
    expect(conflicts(jumbo(['enp2s0.20', 'enp9s0']))).toEqual([]);
    expect(conflicts(jumbo(['eno1.20']))).toEqual([
      "bridge vmbr1's mtu 9000 is above its port eno1.20's mtu 1500 (unset: PVE takes 1500)",
    ]);
    // Not the bond's rule: the implicit port is a VLAN, so a bond device without an mtu gives it 1500.
    expect(conflicts(jumbo(['bond0.20']))).toEqual([
      "bridge vmbr1's mtu 9000 is above its port bond0.20's mtu 1500 (unset: PVE takes 1500)",
    ]);
    expect(conflicts(jumbo(['enp2s0'], 9216))).toEqual(["bridge vmbr1's mtu 9216 is above its port enp2s0's mtu 9000"]);
  });
});

describe('a bond against its slaves', () => {
  test.each<[string, Record<string, unknown>, string[]]>([
    [
      'a slave above a bond with an mtu is refused',
      { slaves: ['enp2s0'], mtu: 1500 },
      ["slave enp2s0's mtu 9000 is above its bond bond2's mtu 1500"],
    ],
    ["a bond without an mtu takes its slave's", { slaves: ['enp2s0'] }, []],
    ['a slave without an mtu never is', { slaves: ['eno1'], mtu: 1280 }, []],
    ["a bond at its slave's mtu is fine", { slaves: ['enp2s0'], mtu: 9000 }, []],
  ])('%s', (_, options, expected) => {
    expect(conflicts(spec('bond2', 'bond', options))).toEqual(expected);
  });

  test('a declared bond raised above the bond that holds it as a slave is refused', () => {
    expect(
      conflicts(spec('bond0', 'bond', { slaves: ['bond3'], mtu: 1500 }), spec('bond3', 'bond', { mtu: 9000 })),
    ).toEqual(["slave bond3's mtu 9000 is above its bond bond0's mtu 1500"]);
  });
});

describe('a VLAN against its device', () => {
  test.each<[string, ReturnType<typeof spec>, string[]]>([
    [
      'above a NIC without an mtu (named <device>.<id>)',
      spec('eno1.20', 'vlan', { mtu: 9000 }),
      ["VLAN eno1.20's mtu 9000 is above its device eno1's mtu 1500 (unset: PVE takes 1500)"],
    ],
    [
      'above its vlan-raw-device',
      spec('vlan20', 'vlan', { 'vlan-raw-device': 'enp2s0', mtu: 9216 }),
      ["VLAN vlan20's mtu 9216 is above its device enp2s0's mtu 9000"],
    ],
    ['on a bond without an mtu', spec('bond0.20', 'vlan', { mtu: 9000 }), []],
    ["at its device's mtu", spec('enp2s0.20', 'vlan', { mtu: 9000 }), []],
    ['without an mtu', spec('eno1.20', 'vlan', {}), []],
    ['on a device the node lacks (the missing-interface check names it)', spec('eno9.20', 'vlan', { mtu: 9000 }), []],
  ])('%s', (_, vlan, expected) => {
    expect(conflicts(vlan)).toEqual(expected);
  });
});

// The stack changes one interface under or over those the node holds: every pair it breaks is named.
test('a declared mtu lowered under a VLAN, bridge and slave the node holds names each', () => {
  const held = [
    { iface: 'enp2s0', type: 'eth', mtu: '9000' },
    { iface: 'bond1', type: 'bond', slaves: 'enp2s0', mtu: '9000' },
    { iface: 'bond1.30', type: 'vlan', mtu: '9000' },
    { iface: 'vmbr2', type: 'bridge', bridge_ports: 'bond1', mtu: '9000' },
  ];
  expect(mtuConflicts(nodeView(held, []))).toEqual([]);
  expect(mtuConflicts(nodeView(held, [spec('bond1', 'bond', { slaves: ['enp2s0'], mtu: 1500 })]))).toEqual([
    "slave enp2s0's mtu 9000 is above its bond bond1's mtu 1500",
    "VLAN bond1.30's mtu 9000 is above its device bond1's mtu 1500",
    "bridge vmbr2's mtu 9000 is above its port bond1's mtu 1500",
  ]);
  // Left out, the mtu is deleted: the bond takes its slaves' and the rule holds.
  expect(mtuConflicts(nodeView(held, [spec('bond1', 'bond', { slaves: ['enp2s0'] })]))).toEqual([]);
});
