/** seesBridge reads `GET /access/permissions` as PVE answers it; unlistedNames finds possible hidden bridges. */
import { blindBridge, seesBridge, unlistedNames } from '../../../../src/pve/bridge-sight';

const PATH = '/sdn/zones/localnetwork/vmbr1';

describe('seesBridge', () => {
  test.each<[string, unknown, boolean]>([
    ['SDN.Audit, propagated', { [PATH]: { 'SDN.Audit': 1 } }, true],
    ['SDN.Audit set without propagation (0 is still held)', { [PATH]: { 'SDN.Audit': 0 } }, true],
    ['SDN.Use alone', { [PATH]: { 'SDN.Use': 1, 'Sys.Audit': 1 } }, true],
    ['only Sys privileges', { [PATH]: { 'Sys.Audit': 1, 'Sys.Modify': 1 } }, false],
    ['an empty map for the path', { [PATH]: {} }, false],
    ['another path only', { '/sdn': { 'SDN.Audit': 1 } }, false],
    ['not an object', 'yes', false],
    ['null', null, false],
  ])('%s', (_, answer, expected) => {
    expect(seesBridge(answer, 'vmbr1')).toBe(expected);
  });
});

describe('unlistedNames', () => {
  const rows = [{ iface: 'eno1' }, { iface: 'enp2s0' }];
  test.each<[string, object, string[]]>([
    [
      'a bridge missing from the list, and a port the list lacks',
      { iface: 'vmbr1', type: 'bridge', options: { bridge_ports: ['vmbr9', 'eno1'] } },
      ['vmbr1', 'vmbr9'],
    ],
    [
      'a bond missing from the list: PVE hides only bridges',
      { iface: 'bond0', type: 'bond', options: { slaves: ['eno1'] } },
      [],
    ],
    ['a VLAN whose device is missing', { iface: 'vmbr0.40', type: 'vlan', options: {} }, ['vmbr0']],
    ['a VLAN whose device the stack declares', { iface: 'vmbr3.40', type: 'vlan', options: {} }, []],
  ])('%s', (_, spec, expected) => {
    expect(unlistedNames({ node: 'n2', ...spec } as never, rows, new Set(['vmbr3']))).toEqual(expected);
  });
});

test('the blind message names the object, the bridge, the privilege and its ACL path', () => {
  expect(blindBridge('n2', 'vmbr0.40', 'vmbr0')).toEqual({
    title: 'interface vmbr0.40 on n2 cannot be read',
    detail: expect.stringMatching(
      /SDN\.Audit \(or SDN\.Use\) on \/sdn\/zones\/localnetwork\/vmbr0.*vmbr0 is missing from n2's list/,
    ),
  });
});
