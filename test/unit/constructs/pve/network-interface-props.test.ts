/**
 * Every prop of ProxmoxNetworkInterface judged as a plain-JavaScript app passes it: a wrong type, a
 * missing required prop and a misspelling each get one message naming the construct, the prop and
 * the rule (never a TypeError), every broken rule is reported at once, and the handler boundary
 * refuses what synth refuses when the value was only known at apply.
 */
import { Testing, TerraformStack, TerraformVariable } from 'cdktf';
import { ProxmoxCluster } from '../../../../constructs/pve/cluster';
import { ProxmoxNetworkInterface } from '../../../../constructs/pve/network-interface';
import { parseAs } from '../../../../src/core/parse';
import { networkInterfaceSpec } from '../../../../src/pve/network-interface';
import { synthError as failure } from '../synth-error';
import { onCluster } from './on-cluster';

const BRIDGE = { node: 'n2', iface: 'vmbr1', type: 'bridge' };
const VLAN = { node: 'n2', iface: 'mgmt', type: 'vlan', vlanRawDevice: 'vmbr1', vlanId: 30 };
const BOND = { node: 'n2', iface: 'bond0', type: 'bond', bondMode: 'active-backup', slaves: ['eno1'] };
const IFACE = 'an interface name: a letter, then letters, digits and _, optionally .<vlan>, 2-15 characters';

/** The synth error of an interface with `props` over `base`. */
const synthError = (props: Record<string, unknown>, base: object = BRIDGE, withCluster = true): string =>
  failure((stack) => new ProxmoxNetworkInterface(stack, 'i', onCluster(stack, { ...base, ...props }, withCluster)));

describe('ProxmoxNetworkInterface props from plain JavaScript', () => {
  test.each<[string, unknown, string, object?]>([
    ['node', 2, 'node must be a PVE node name (letters, digits, inner -), got 2'],
    ['iface', 1, `iface must be ${IFACE}, got 1`],
    ['type', 'ovs', 'type must be one of bridge, vlan, bond, got "ovs"'],
    ['autostart', 'yes', 'autostart must be a boolean, got "yes"'],
    [
      'comments',
      7,
      'comments must be a non-empty text whose lines do not end in whitespace or a backslash, ' +
        'with no newline at its end, without %, ${ or control characters other than newline, got 7',
    ],
    ['mtu', '9000', 'mtu must be an integer from 1280 to 65520, got "9000"'],
    ['cidr', 10, 'cidr must be an IPv4 CIDR with a prefix of 8-32, got 10'],
    [
      'cidr6',
      true,
      'cidr6 must be an IPv6 CIDR with a prefix of 8-128 and a global, unique-local or link-local unicast ' +
        'address, got true',
    ],
    ['gateway', ['10.0.0.1'], 'gateway must be an IPv4 address, got ["10.0.0.1"]'],
    ['gateway6', 1, 'gateway6 must be an IPv6 address, got 1'],
    ['bridgePorts', 'eno1', `bridgePorts must be a list of distinct interface names (${IFACE}), got "eno1"`],
    ['bridgeVlanAware', 1, 'bridgeVlanAware must be a boolean, got 1'],
    ['bridgeVids', 10, 'bridgeVids must be a non-empty list of VLAN ids (2-4094) or ranges such as "100-200", got 10'],
    ['vlanId', '30', 'vlanId must be an integer from 1 to 4094, got "30"', VLAN],
    ['vlanRawDevice', 5, `vlanRawDevice must be ${IFACE}, got 5`, VLAN],
    ['slaves', 'eno1', `slaves must be a list of distinct interface names (${IFACE}), got "eno1"`, BOND],
    [
      'bondMode',
      'balance-slb',
      'bondMode must be one of balance-rr, active-backup, balance-xor, broadcast, 802.3ad, balance-tlb, ' +
        'balance-alb, got "balance-slb"',
      BOND,
    ],
    ['bondPrimary', 3, `bondPrimary must be ${IFACE}, got 3`, BOND],
    [
      'bondXmitHashPolicy',
      'layer9',
      'bondXmitHashPolicy must be one of layer2, layer2+3, layer3+4, got "layer9"',
      { ...BOND, bondMode: '802.3ad' },
    ],
    ['cluster', 'pve', 'cluster must be a ProxmoxCluster, got "pve"'],
  ])('%s: a wrong type names the prop and the rule', (prop, value, says, base = BRIDGE) => {
    const extra = prop === 'bridgeVids' ? { bridgeVlanAware: true } : {};
    expect(synthError({ ...extra, [prop]: value }, base)).toBe(`test/i: ${says}`);
  });

  test.each([
    ['node', 'node is required: a PVE node name (letters, digits, inner -)'],
    ['iface', `iface is required: ${IFACE}`],
    ['type', 'type is required: one of bridge, vlan, bond'],
  ])('%s: a missing required prop is refused at synth, not at plan', (prop, says) => {
    expect(synthError({ [prop]: undefined })).toBe(`test/i: ${says}`);
  });

  test('a missing cluster is refused naming it, not a TypeError', () => {
    expect(synthError({}, BRIDGE, false)).toBe('test/i: cluster is required: a ProxmoxCluster');
  });

  test('a misspelled prop is refused with the closest name', () => {
    expect(synthError({ bridgePort: ['eno1'] })).toBe(
      'test/i: bridgePort is not a prop of ProxmoxNetworkInterface; did you mean bridgePorts?',
    );
    expect(synthError({ colour: 'red' })).toBe('test/i: colour is not a prop of ProxmoxNetworkInterface');
  });

  test('every broken rule is reported at once, the table first, then the rules across props', () => {
    expect(synthError({ mtu: 1, vlanId: 5, bridgeVids: ['10'] })).toBe(
      '3 problems in 1 construct:\ntest/i: mtu must be an integer from 1280 to 65520, got 1\n' +
        'test/i: vlanId must be unset on a bridge (it is a vlan setting), got 5\n' +
        'test/i: bridgeVids must be unset unless bridgeVlanAware is true (PVE writes VLAN ids only then), got ["10"]',
    );
  });

  test('a value known only at apply passes synth and is refused by the same rule at the handler', () => {
    const stack = new TerraformStack(Testing.app(), 'test');
    const cluster = new ProxmoxCluster(stack, 'pve', { endpoints: ['https://n1:8006'] });
    const mtu = new TerraformVariable(stack, 'mtu', { type: 'number' });
    const port = new TerraformVariable(stack, 'port', { type: 'string' });
    const props = { cluster, node: 'n2', iface: 'vmbr1', type: 'bridge' as const };
    new ProxmoxNetworkInterface(stack, 'i', { ...props, mtu: mtu.numberValue, bridgePorts: [port.stringValue] });
    expect(() => Testing.synth(stack)).not.toThrow();
    const spec = { ...BRIDGE, options: { mtu: 100, bridge_ports: ['eno 1'] } };
    expect(() => parseAs(networkInterfaceSpec, spec, 'spec')).toThrow(
      'Bad input: spec.options.mtu: must be an integer from 1280 to 65520, got 100; ' +
        `spec.options.bridge_ports: must be a list of distinct interface names (${IFACE}), got ["eno 1"]`,
    );
    expect(() => parseAs(networkInterfaceSpec, { ...BRIDGE, options: { mtu: 'x' } }, 'spec')).toThrow(
      'Bad input: spec.options.mtu: must be an integer from 1280 to 65520, got "x"',
    );
  });
});
