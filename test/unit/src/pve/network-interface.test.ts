/**
 * The network interface's definition: its rules as a truth table over plain props, the spec they
 * build, and the handler boundary refusing a hand-written or tampered spec by the same rules.
 */
import { specOf } from '../../../../src/core/fields';
import { parseAs } from '../../../../src/core/parse';
import { type InterfaceType, NETWORK_INTERFACE_FIELDS } from '../../../../src/pve/network-fields';
import {
  interfaceProblems,
  networkInterfaceIdentity,
  networkInterfaceSpec,
} from '../../../../src/pve/network-interface';

const problems = (type: InterfaceType, iface: string, props: Record<string, unknown>) =>
  interfaceProblems({ node: 'n2', iface, type, ...props }).map(({ prop, says }) => `${prop} ${says}`);

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
    ['a global IPv6 address', 'bridge', 'vmbr1', { cidr6: '2a01:4f8:c0c:1::2/64' }],
    ['a link-local IPv6 address', 'bridge', 'vmbr1', { cidr6: 'fe80::2/64' }],
  ])('accepts %s', (_, type, iface, props) => {
    expect(problems(type, iface, props)).toEqual([]);
  });

  test.each<[string, InterfaceType, string, Record<string, unknown>, string]>([
    ['a name over 15 characters', 'bridge', 'vmbr_uplink_0001', {}, 'iface must be an interface name'],
    ['an alias name', 'bridge', 'vmbr1:0', {}, 'iface must be an interface name'],
    ['mtu below 1280', 'bridge', 'vmbr1', { mtu: 1000 }, 'mtu must be an integer from 1280 to 65520'],
    ['a /7 IPv4 CIDR', 'bridge', 'vmbr1', { cidr: '10.0.0.2/7' }, 'cidr must be an IPv4 CIDR with a prefix of 8-32'],
    // PVE's check_ipv6_settings takes only Net::IP 1.26's GLOBAL-, UNIQUE-LOCAL- and LINK-LOCAL-UNICAST
    // ([PM] 14a22df PVE/API2/Network.pm:573-592): these staged nothing, PVE answered 400 at apply.
    ...['2001:db8::2/64', '2002:a00:1::2/64', '2001::2/64', 'ff02::2/64', '::ffff:10.0.0.2/120', 'fec0::2/64'].map(
      (cidr6): [string, InterfaceType, string, Record<string, unknown>, string] => [
        `an IPv6 address PVE refuses as a host address (${cidr6})`,
        'bridge',
        'vmbr1',
        { cidr6 },
        'cidr6 must be an IPv6 CIDR with a prefix of 8-128 and a global, unique-local or link-local unicast address',
      ],
    ),
    ['an address with a leading zero', 'bridge', 'vmbr1', { gateway: '10.0.0.01' }, 'gateway must be an IPv4 address'],
    [
      'an IPv6 gateway with a zone',
      'bridge',
      'vmbr1',
      { gateway6: 'fe80::1%eth0' },
      'gateway6 must be an IPv6 address',
    ],
    [
      'a comment line ending in a space',
      'bridge',
      'vmbr1',
      { comments: 'uplink ' },
      'comments must be a non-empty text',
    ],
    // Issue 16 item 4: ifupdown2 joined the next stanza's `auto` line to a comment ending in `\`.
    [
      'a comment ending in a backslash',
      'bridge',
      'vmbr1',
      { comments: 'uplink\\' },
      'comments must be a non-empty text',
    ],
    ['a comment line ending in a backslash', 'bridge', 'vmbr1', { comments: 'a\\\nb' }, 'comments must be a non-empty'],
    ['a comment holding %', 'bridge', 'vmbr1', { comments: '% for x in y:' }, 'comments must be a non-empty text'],
    ['a comment holding ${', 'bridge', 'vmbr1', { comments: 'up ${x}' }, 'comments must be a non-empty text'],
    [
      'a comment holding a carriage return',
      'bridge',
      'vmbr1',
      { comments: 'a\rb' },
      'comments must be a non-empty text',
    ],
    ['a comment holding a NUL', 'bridge', 'vmbr1', { comments: 'a\u0000b' }, 'comments must be a non-empty text'],
    // PVE writes `#<line>` per line of split(/\n/), which drops trailing empty lines, and reads `<line>\n` back
    // ([PC] f665029 src/PVE/Network/Interfaces.pm:215, 777-779): "uplink\n" read back "uplink" and never settled.
    ['a comment ending in a newline', 'bridge', 'vmbr1', { comments: 'uplink\n' }, 'comments must be a non-empty text'],
    ['a comment of a newline alone', 'bridge', 'vmbr1', { comments: '\n' }, 'comments must be a non-empty text'],
    [
      'a port listed twice',
      'bridge',
      'vmbr1',
      { bridgePorts: ['eno1', 'eno1'] },
      'bridgePorts must be a list of distinct',
    ],
    [
      'VLAN id 1 on a bridge',
      'bridge',
      'vmbr1',
      { bridgeVlanAware: true, bridgeVids: ['1'] },
      'bridgeVids must be a non-empty list of VLAN ids',
    ],
    [
      'a downward range',
      'bridge',
      'vmbr1',
      { bridgeVlanAware: true, bridgeVids: ['200-100'] },
      'bridgeVids must be a non-empty list',
    ],
    [
      'VLAN ids on a bridge that is not VLAN-aware',
      'bridge',
      'vmbr1',
      { bridgeVids: ['10'] },
      'bridgeVids must be unset unless bridgeVlanAware',
    ],
    [
      'a bridge setting on a VLAN',
      'vlan',
      'vmbr1.20',
      { bridgePorts: ['eno1'] },
      'bridgePorts must be unset on a vlan',
    ],
    ['an id that contradicts the name', 'vlan', 'vmbr1.20', { vlanId: 21 }, 'vlanId must be unset or 20'],
    [
      'a device that contradicts the name',
      'vlan',
      'vmbr1.20',
      { vlanRawDevice: 'vmbr2' },
      'vlanRawDevice must be unset or "vmbr1"',
    ],
    ['VLAN id 0 in the name', 'vlan', 'vmbr1.0', {}, 'iface must be a VLAN id from 1 to 4094 in the name'],
    ['vlan<id> without a device', 'vlan', 'vlan20', {}, 'vlanRawDevice must be set unless the name is <device>.<id>'],
    ['a custom VLAN without an id', 'vlan', 'mgmt', { vlanRawDevice: 'vmbr1' }, 'vlanId must be set unless the name'],
    ['a bond not named bond<n>', 'bond', 'lag0', { slaves: ['eno1'] }, 'iface must be bond<number>'],
    ['an OVS bond mode', 'bond', 'bond0', { bondMode: 'balance-slb' }, 'bondMode must be one of balance-rr'],
    [
      'a primary outside active-backup',
      'bond',
      'bond0',
      { slaves: ['eno1'], bondPrimary: 'eno1' },
      'bondPrimary must be unset unless',
    ],
    [
      'a primary that is not a slave',
      'bond',
      'bond0',
      { slaves: ['eno1'], bondMode: 'active-backup', bondPrimary: 'eno2' },
      'bondPrimary must be one of slaves',
    ],
    [
      'a hash policy in active-backup',
      'bond',
      'bond0',
      { bondMode: 'active-backup', bondXmitHashPolicy: 'layer2' },
      'bondXmitHashPolicy must be unset unless',
    ],
  ])('refuses %s', (_, type, iface, props, expected) => {
    expect(problems(type, iface, props).join('\n')).toContain(expected);
  });

  test('does not judge values the known predicate marks as unknown (tokens)', () => {
    const token = '${TfToken[TOKEN.1]}';
    const props = { node: 'n2', iface: 'vmbr1', type: 'bridge', cidr: token };
    expect(interfaceProblems(props, (value) => value !== token)).toEqual([]);
  });
});

describe('the spec props make', () => {
  test('keys declared fields by PVE parameter, ports sorted and VLAN ids as strings', () => {
    const spec = specOf(NETWORK_INTERFACE_FIELDS, {
      node: 'n2',
      iface: 'vmbr1',
      type: 'bridge',
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

describe('networkInterfaceSpec', () => {
  const bridge = { node: 'n2', iface: 'vmbr1', type: 'bridge' };
  const parsed = (spec: unknown) => () => parseAs(networkInterfaceSpec, spec, 'spec');

  test('a spec the construct synthesizes is accepted as it is', () => {
    const spec = { ...bridge, options: { cidr: '10.10.0.2/24', bridge_ports: ['enp2s0'], autostart: true } };
    expect(parseAs(networkInterfaceSpec, spec, 'spec')).toEqual(spec);
  });

  test.each([
    [
      'a field of another type',
      { ...bridge, options: { 'vlan-id': 3 } },
      'Bad input: spec.options.vlan-id: must be unset on a bridge (it is a vlan setting), got 3',
    ],
    [
      'a field no interface has',
      { ...bridge, options: { bridge_stp: 'on' } },
      'Bad input: spec.options.bridge_stp: is not a field of a network interface spec',
    ],
    [
      'VLAN ids as numbers, where the spec holds them as text',
      { ...bridge, options: { bridge_vlan_aware: true, bridge_vids: [10] } },
      'Bad input: spec.options.bridge_vids: must be a list of texts, such as ["10", "100-200"], got [10]',
    ],
    [
      'a value out of range',
      { ...bridge, options: { mtu: 3 } },
      'Bad input: spec.options.mtu: must be an integer from 1280 to 65520, got 3',
    ],
    [
      'a value of the wrong type',
      { ...bridge, options: { mtu: 'x' } },
      'Bad input: spec.options.mtu: must be an integer from 1280 to 65520, got "x"',
    ],
    [
      'a cross-field rule',
      { ...bridge, options: { bridge_vids: ['10'] } },
      'Bad input: spec.options.bridge_vids: must be unset unless bridgeVlanAware is true ' +
        '(PVE writes VLAN ids only then), got ["10"]',
    ],
    [
      'a VLAN without its device',
      { node: 'n2', iface: 'mgmt', type: 'vlan', options: { 'vlan-id': 5 } },
      'Bad input: spec.options.vlan-raw-device: must be set unless the name is <device>.<id>, got undefined',
    ],
  ])('%s is refused naming the field and the value', (_, spec, message) => {
    expect(parsed(spec)).toThrow(message);
  });

  test.each([
    // Issue 16 item 4: ifupdown2 joined the next stanza's `auto` line to a comment ending in `\`.
    [
      'a comment ending in a backslash',
      { ...bridge, options: { comments: 'uplink\\' } },
      /^Bad input: spec\.options\.comments: must be a non-empty text whose lines do not end in .* a backslash/,
    ],
    ['a bad node name', { ...bridge, node: 'n_2', options: {} }, /^Bad input: spec\.node: must be a PVE node name/],
    ['an unknown type', { ...bridge, type: 'OVSBridge', options: {} }, /^Bad input: spec\.type: /],
  ])('%s is refused naming the field', (_, spec, message) => {
    expect(parsed(spec)).toThrow(message);
  });

  test('every broken rule of a spec is named at once', () => {
    expect(parsed({ ...bridge, iface: 'vmbr1:0', options: { mtu: 3, cidr: '10.0.0.2' } })).toThrow(
      'Bad input: spec.iface: must be an interface name: a letter, then letters, digits and _, optionally ' +
        '.<vlan>, 2-15 characters, got "vmbr1:0"; spec.options.mtu: must be an integer from 1280 to 65520, got 3; ' +
        'spec.options.cidr: must be an IPv4 CIDR with a prefix of 8-32, got "10.0.0.2"',
    );
  });

  test('the identity names are judged by the same rules', () => {
    expect(() => parseAs(networkInterfaceIdentity, { ...bridge, iface: 'a b' }, 'identity')).toThrow(
      /^Bad input: identity\.iface: must be an interface name/,
    );
  });
});
