// The handler boundary of the network kinds: a spec that the constructs would refuse at synth is
// refused again when a hand-written or tampered one reaches the handler, naming the field.
import { parseAs } from '../../../../src/core/parse';
import { networkApplyIdentity, networkApplySpec, networkInterfaceSpec } from '../../../../src/pve/network-specs';

const bridge = { node: 'n2', iface: 'vmbr1', type: 'bridge' };
const refusal = (schema: Parameters<typeof parseAs>[0], value: unknown): string => {
  try {
    parseAs(schema, value, 'spec');
    return 'accepted';
  } catch (error) {
    return (error as Error).message;
  }
};

describe('networkInterfaceSpec', () => {
  test('a spec the construct synthesizes is accepted as it is', () => {
    const spec = { ...bridge, options: { cidr: '10.10.0.2/24', bridge_ports: ['enp2s0'], autostart: true } };
    expect(parseAs(networkInterfaceSpec, spec, 'spec')).toEqual(spec);
  });

  test.each([
    [
      'a field of another type',
      { ...bridge, options: { 'vlan-id': 3 } },
      /^Bad input: spec\.options\.vlan-id: not a field a bridge has/,
    ],
    [
      'a value out of range',
      { ...bridge, options: { mtu: 3 } },
      /^Bad input: spec\.options\.mtu: must be an integer from 1280 to 65520$/,
    ],
    [
      'a cross-field rule',
      { ...bridge, options: { bridge_vids: ['10'] } },
      /spec\.options\.bridge_vids: must be unset unless bridgeVlanAware/,
    ],
    [
      'a comment ending in a backslash (issue 16 item 4)',
      { ...bridge, options: { comments: 'uplink\\' } },
      /^Bad input: spec\.options\.comments: must be a non-empty text whose lines do not end in .* a backslash/,
    ],
    ['a bad node name', { ...bridge, node: 'n_2', options: {} }, /^Bad input: spec\.node: /],
    [
      'a VLAN without its device',
      { node: 'n2', iface: 'mgmt', type: 'vlan', options: { 'vlan-id': 5 } },
      /spec\.options\.vlan-raw-device: must be set unless/,
    ],
    ['an unknown type', { ...bridge, type: 'OVSBridge', options: {} }, /^Bad input: spec\.type: /],
  ])('%s is refused naming the field', (_, spec, message) => {
    expect(refusal(networkInterfaceSpec, spec)).toMatch(message);
  });
});

describe('networkApplySpec', () => {
  test('nodes in order and a wait are accepted', () => {
    expect(parseAs(networkApplySpec, { nodes: ['n3', 'n2'], timeoutSeconds: 30 }, 'spec')).toEqual({
      nodes: ['n3', 'n2'],
      timeoutSeconds: 30,
    });
  });

  test.each([
    ['a node twice', { nodes: ['n2', 'n2'], timeoutSeconds: 30 }, /spec\.nodes: a list of distinct node names/],
    ['no node', { nodes: [], timeoutSeconds: 30 }, /^Bad input: spec\.nodes: /],
    ['a wait of 0 s', { nodes: ['n2'], timeoutSeconds: 0 }, /^Bad input: spec\.timeoutSeconds: /],
    ['a node name carrying a path', { nodes: ['n2/../x'], timeoutSeconds: 30 }, /^Bad input: spec\.nodes\.0: /],
  ])('%s is refused', (_, spec, message) => {
    expect(refusal(networkApplySpec, spec)).toMatch(message);
  });

  test('the identity is the node list alone', () => {
    expect(refusal(networkApplyIdentity, { nodes: ['n2', 'n3'] })).toBe('accepted');
  });
});
