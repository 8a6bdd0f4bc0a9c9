import type { InterfaceType } from '../../../../src/pve/network-fields';
import { interfaceProblems, interfaceSpec } from '../../../../src/pve/network-rules';

const problems = (type: InterfaceType, iface: string, props: Record<string, unknown>) =>
  interfaceProblems('n2', iface, type, props).map(({ prop, rule }) => `${prop}: ${rule}`);

describe('interfaceProblems', () => {
  test.each<[string, InterfaceType, string, Record<string, unknown>]>([
    [
      'a bridge with every field',
      'bridge',
      'vmbr1',
      {
        cidr: '10.0.0.2/24',
        cidr6: 'fd00::2/64',
        gateway: '10.0.0.1',
        gateway6: 'fd00::1',
        autostart: true,
        comments: 'a\nb $5 \\ c',
        mtu: 9000,
        bridgePorts: ['enp2s0', 'eno1'],
        bridgeVlanAware: true,
        bridgeVids: ['10', 20, '100-200'],
      },
    ],
    ['a VLAN named <device>.<id>', 'vlan', 'vmbr1.20', { cidr: '10.20.0.2/24' }],
    ['a VLAN named vlan<id>', 'vlan', 'vlan20', { vlanRawDevice: 'vmbr1' }],
    ['a custom-named VLAN', 'vlan', 'mgmt', { vlanRawDevice: 'vmbr1', vlanId: 30 }],
    [
      'an active-backup bond',
      'bond',
      'bond0',
      { slaves: ['eno1', 'eno2'], bondMode: 'active-backup', bondPrimary: 'eno1' },
    ],
    ['an LACP bond', 'bond', 'bond1', { slaves: ['eno1'], bondMode: '802.3ad', bondXmitHashPolicy: 'layer3+4' }],
  ])('accepts %s', (_, type, iface, props) => {
    expect(problems(type, iface, props)).toEqual([]);
  });

  test.each<[string, InterfaceType, string, Record<string, unknown>, string]>([
    ['a name over 15 characters', 'bridge', 'vmbr_uplink_0001', {}, 'iface: an interface name'],
    ['an alias name', 'bridge', 'vmbr1:0', {}, 'iface: an interface name'],
    ['mtu below 1280', 'bridge', 'vmbr1', { mtu: 1000 }, 'mtu: an integer from 1280 to 65520'],
    ['a /7 IPv4 CIDR', 'bridge', 'vmbr1', { cidr: '10.0.0.2/7' }, 'cidr: an IPv4 CIDR with a prefix of 8-32'],
    ['an address with a leading zero', 'bridge', 'vmbr1', { gateway: '10.0.0.01' }, 'gateway: an IPv4 address'],
    ['an IPv6 gateway with a zone', 'bridge', 'vmbr1', { gateway6: 'fe80::1%eth0' }, 'gateway6: an IPv6 address'],
    ['a comment line ending in a space', 'bridge', 'vmbr1', { comments: 'uplink ' }, 'comments: a non-empty text'],
    // Issue 16 item 4: ifupdown2 joined the next stanza's `auto` line to a comment ending in `\`.
    ['a comment ending in a backslash', 'bridge', 'vmbr1', { comments: 'uplink\\' }, 'comments: a non-empty text'],
    ['a comment line ending in a backslash', 'bridge', 'vmbr1', { comments: 'a\\\nb' }, 'comments: a non-empty'],
    ['a comment holding %', 'bridge', 'vmbr1', { comments: '% for x in y:' }, 'comments: a non-empty text'],
    ['a comment holding ${', 'bridge', 'vmbr1', { comments: 'up ${x}' }, 'comments: a non-empty text'],
    ['a comment holding a carriage return', 'bridge', 'vmbr1', { comments: 'a\rb' }, 'comments: a non-empty text'],
    ['a comment holding a NUL', 'bridge', 'vmbr1', { comments: 'a\u0000b' }, 'comments: a non-empty text'],
    ['a port listed twice', 'bridge', 'vmbr1', { bridgePorts: ['eno1', 'eno1'] }, 'bridgePorts: a list of distinct'],
    [
      'VLAN id 1 on a bridge',
      'bridge',
      'vmbr1',
      { bridgeVlanAware: true, bridgeVids: ['1'] },
      'bridgeVids: a non-empty list of VLAN ids',
    ],
    [
      'a downward range',
      'bridge',
      'vmbr1',
      { bridgeVlanAware: true, bridgeVids: ['200-100'] },
      'bridgeVids: a non-empty list',
    ],
    [
      'VLAN ids on a bridge that is not VLAN-aware',
      'bridge',
      'vmbr1',
      { bridgeVids: ['10'] },
      'bridgeVids: unset unless bridgeVlanAware',
    ],
    ['a bridge setting on a VLAN', 'vlan', 'vmbr1.20', { bridgePorts: ['eno1'] }, 'bridgePorts: unset on a vlan'],
    ['an id that contradicts the name', 'vlan', 'vmbr1.20', { vlanId: 21 }, 'vlanId: unset or 20'],
    [
      'a device that contradicts the name',
      'vlan',
      'vmbr1.20',
      { vlanRawDevice: 'vmbr2' },
      'vlanRawDevice: unset or "vmbr1"',
    ],
    ['VLAN id 0 in the name', 'vlan', 'vmbr1.0', {}, 'iface: a VLAN id from 1 to 4094 in the name'],
    ['vlan<id> without a device', 'vlan', 'vlan20', {}, 'vlanRawDevice: set unless the name is <device>.<id>'],
    ['a custom VLAN without an id', 'vlan', 'mgmt', { vlanRawDevice: 'vmbr1' }, 'vlanId: set unless the name'],
    ['a bond not named bond<n>', 'bond', 'lag0', { slaves: ['eno1'] }, 'iface: bond<number>'],
    ['an OVS bond mode', 'bond', 'bond0', { bondMode: 'balance-slb' }, 'bondMode: one of balance-rr'],
    [
      'a primary outside active-backup',
      'bond',
      'bond0',
      { slaves: ['eno1'], bondPrimary: 'eno1' },
      'bondPrimary: unset unless',
    ],
    [
      'a primary that is not a slave',
      'bond',
      'bond0',
      { slaves: ['eno1'], bondMode: 'active-backup', bondPrimary: 'eno2' },
      'bondPrimary: one of slaves',
    ],
    [
      'a hash policy in active-backup',
      'bond',
      'bond0',
      { bondMode: 'active-backup', bondXmitHashPolicy: 'layer2' },
      'bondXmitHashPolicy: unset unless',
    ],
  ])('refuses %s', (_, type, iface, props, expected) => {
    expect(problems(type, iface, props).join('\n')).toContain(expected);
  });

  test('does not judge values the skip predicate marks as unknown (tokens)', () => {
    const token = '${TfToken[TOKEN.1]}';
    expect(interfaceProblems('n2', 'vmbr1', 'bridge', { cidr: token }, (value) => value === token)).toEqual([]);
  });
});

describe('interfaceSpec', () => {
  test('keys declared fields by PVE parameter, ports sorted and VLAN ids as strings', () => {
    const spec = interfaceSpec('n2', 'vmbr1', 'bridge', {
      bridgePorts: ['enp2s0', 'eno1'],
      bridgeVlanAware: true,
      bridgeVids: [10, '20-30'],
      mtu: 9000,
    });
    expect(spec).toEqual({
      node: 'n2',
      iface: 'vmbr1',
      type: 'bridge',
      options: { bridge_ports: ['eno1', 'enp2s0'], bridge_vlan_aware: true, bridge_vids: ['10', '20-30'], mtu: 9000 },
    });
  });
});
