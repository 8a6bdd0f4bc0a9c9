/**
 * The pure rule PVE's writer dies on when a bridge's mtu is above a port's ([PC] f665029
 * src/PVE/Network/Interfaces.pm:96-110 check_mtu, called for each bridge port at :1027): the plan must
 * say so, or it promises a stage the apply then fails with a 500.
 */
import { bridgeMtuConflicts, nodeView } from '../../../../src/pve/bridge-mtu';

const rows = [
  { iface: 'eno1', type: 'eth' },
  { iface: 'enp2s0', type: 'eth', mtu: '9000' },
  { iface: 'bond0', type: 'bond' },
];
const jumbo = (ports: string[], mtu: unknown = 9000) => ({
  node: 'n2',
  iface: 'vmbr1',
  type: 'bridge',
  options: { bridge_ports: ports, mtu },
});

describe('bridgeMtuConflicts', () => {
  test('a port without an mtu counts as 1500, as PVE takes it', () => {
    expect(bridgeMtuConflicts(jumbo(['eno1', 'enp2s0']), nodeView(rows, []))).toEqual([
      "mtu 9000 is above bridge port eno1's mtu 1500 (unset: PVE takes 1500)",
    ]);
  });

  test('a port with an mtu at or above the bridge, a bond without one, or a bridge without one is fine', () => {
    expect(bridgeMtuConflicts(jumbo(['enp2s0', 'bond0']), nodeView(rows, []))).toEqual([]);
    expect(bridgeMtuConflicts(jumbo(['eno1'], null), nodeView(rows, []))).toEqual([]);
    expect(bridgeMtuConflicts(jumbo(['eno1'], 1500), nodeView(rows, []))).toEqual([]);
  });

  test('a port the same stack declares on the node counts with its declared mtu, not its row', () => {
    const raised = { node: 'n2', iface: 'bond1', type: 'bond', options: { slaves: ['eno1'], mtu: 9000 } };
    expect(bridgeMtuConflicts(jumbo(['bond1']), nodeView(rows, [raised]))).toEqual([]);
    const pinned = { node: 'n2', iface: 'bond0', type: 'bond', options: { mtu: 1500 } };
    expect(bridgeMtuConflicts(jumbo(['bond0']), nodeView(rows, [pinned]))).toEqual([
      "mtu 9000 is above bridge port bond0's mtu 1500",
    ]);
    const vlan = { node: 'n2', iface: 'enp2s0.20', type: 'vlan', options: {} };
    expect(bridgeMtuConflicts(jumbo(['enp2s0.20']), nodeView(rows, [vlan]))).toEqual([
      "mtu 9000 is above bridge port enp2s0.20's mtu 1500 (unset: PVE takes 1500)",
    ]);
  });

  test("a <device>.<id> port without a row takes its device's mtu; a port not there is left alone", () => {
    expect(bridgeMtuConflicts(jumbo(['enp2s0.20', 'enp9s0']), nodeView(rows, []))).toEqual([]);
    expect(bridgeMtuConflicts(jumbo(['eno1.20']), nodeView(rows, []))).toEqual([
      "mtu 9000 is above bridge port eno1.20's mtu 1500 (unset: PVE takes 1500)",
    ]);
    expect(bridgeMtuConflicts(jumbo(['enp2s0'], 9216), nodeView(rows, []))).toEqual([
      "mtu 9216 is above bridge port enp2s0's mtu 9000",
    ]);
  });
});
