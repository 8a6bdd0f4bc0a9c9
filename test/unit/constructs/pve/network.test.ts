// The network constructs at synth: what reaches the spec and identity, the synth-time rules with
// the prop in the message, and the wiring that lets one apply stage and reload (issue 7, item 3).
import { TerraformVariable, Testing, TerraformStack } from 'cdktf';
import { ProxmoxCluster } from '../../../../constructs/pve/cluster';
import { ProxmoxNetworkApply, type ProxmoxNetworkApplyProps } from '../../../../constructs/pve/network-apply';
import {
  ProxmoxNetworkInterface,
  type ProxmoxNetworkInterfaceProps,
} from '../../../../constructs/pve/network-interface';

const setup = () => {
  const stack = new TerraformStack(Testing.app(), 'test');
  const pve = new ProxmoxCluster(stack, 'pve', { endpoints: ['https://n1:8006'] });
  return { stack, pve };
};
const synth = (stack: TerraformStack) => JSON.parse(Testing.synth(stack));
const bridge = { node: 'n2', iface: 'vmbr1', type: 'bridge' } as const;

describe('ProxmoxNetworkInterface', () => {
  test('all defaults: the spec holds node, iface, type and no options; the identity names the interface', () => {
    const { stack, pve } = setup();
    new ProxmoxNetworkInterface(stack, 'br', { cluster: pve, ...bridge });
    const data = synth(stack).resource.terraform_data;
    expect(JSON.parse(data.br_converge.input.spec)).toEqual({ ...bridge, options: {} });
    expect(JSON.parse(data.br_lifecycle.input.identity)).toEqual(bridge);
    expect(data.br_lifecycle.provisioner[0]['local-exec'].command).toMatch(/network-interface destroy$/);
  });

  test('props map to PVE parameter names, lists sorted, VLAN ids as text', () => {
    const { stack, pve } = setup();
    const props = { bridgePorts: ['enp3s0', 'enp2s0'], bridgeVlanAware: true, bridgeVids: [10, '100-200'], mtu: 9000 };
    new ProxmoxNetworkInterface(stack, 'br', { cluster: pve, ...bridge, ...props });
    expect(JSON.parse(synth(stack).resource.terraform_data.br_converge.input.spec).options).toEqual({
      bridge_ports: ['enp2s0', 'enp3s0'],
      bridge_vlan_aware: true,
      bridge_vids: ['10', '100-200'],
      mtu: 9000,
    });
  });

  test('a node given as a Terraform variable is refused, since it names the interface', () => {
    const { stack, pve } = setup();
    const node = new TerraformVariable(stack, 'node', { type: 'string' }).stringValue;
    expect(() => new ProxmoxNetworkInterface(stack, 'br', { cluster: pve, ...bridge, node })).toThrow(
      /node must be a plain value known at synth/,
    );
  });

  test('a Terraform variable in a field is kept as a reference and not judged at synth', () => {
    const { stack, pve } = setup();
    const mtu = new TerraformVariable(stack, 'mtu', { type: 'number' }).numberValue;
    new ProxmoxNetworkInterface(stack, 'br', { cluster: pve, ...bridge, mtu });
    expect(synth(stack).resource.terraform_data.br_converge.input.spec).toMatch(/^\$\{jsonencode\(.*var\.mtu/);
  });

  test.each<[string, Partial<ProxmoxNetworkInterfaceProps>, RegExp]>([
    ['a node name with an underscore', { node: 'n_2' }, /test\/br: node must be a PVE node name .*, got "n_2"/],
    ['an iface longer than 15 characters', { iface: 'vmbr1234567890123' }, /iface must be an interface name/],
    ['an unknown type', { type: 'OVSBridge' as never }, /type must be one of bridge, vlan, bond, got "OVSBridge"/],
    ['an mtu of 100', { mtu: 100 }, /mtu must be an integer from 1280 to 65520, got 100/],
    [
      'a cidr without a prefix',
      { cidr: '10.0.0.2' },
      /cidr must be an IPv4 CIDR with a prefix of 8-32, got "10.0.0.2"/,
    ],
    ['a VLAN field on a bridge', { vlanId: 5 }, /vlanId must be unset on a bridge \(it is a vlan setting\), got 5/],
    [
      'VLAN ids on a bridge that is not VLAN-aware',
      { bridgeVids: [10] },
      /bridgeVids must be unset unless bridgeVlanAware/,
    ],
    [
      'a port listed twice',
      { bridgePorts: ['eno1', 'eno1'] },
      /bridgePorts must be a list of distinct interface names/,
    ],
    ['a bond not named bond<N>', { type: 'bond', iface: 'uplink' }, /iface must be bond<number>/],
    [
      'a VLAN whose name and id disagree',
      { type: 'vlan', iface: 'vmbr0.20', vlanId: 30 },
      /vlanId must be unset or 20/,
    ],
    ['a comment line ending in a space', { comments: 'uplink ' }, /comments must be a non-empty text whose lines/],
  ])('rejects %s at synth, naming the prop', (_, props, message) => {
    const { stack, pve } = setup();
    expect(() => new ProxmoxNetworkInterface(stack, 'br', { cluster: pve, ...bridge, ...props })).toThrow(message);
  });
});

describe('ProxmoxNetworkApply', () => {
  test('all defaults: a 30 s wait, the node list as identity, a teardown reload as its destroy', () => {
    const { stack, pve } = setup();
    new ProxmoxNetworkApply(stack, 'net', { cluster: pve, nodes: ['n3', 'n2'] });
    const data = synth(stack).resource.terraform_data;
    expect(JSON.parse(data.net_converge.input.spec)).toEqual({ nodes: ['n3', 'n2'], timeoutSeconds: 30 });
    expect(JSON.parse(data.net_lifecycle.input.identity)).toEqual({ nodes: ['n3', 'n2'] });
    expect(data.net_lifecycle.provisioner[0]['local-exec'].command).toMatch(/network-apply destroy$/);
    expect(data.net_converge.triggers_replace.follows).toEqual([]);
  });

  test('it follows the interfaces on its nodes, declared before or after it, and no others', () => {
    const { stack, pve } = setup();
    const other = new ProxmoxCluster(stack, 'other', { endpoints: ['https://m1:8006'] });
    new ProxmoxNetworkInterface(stack, 'before', { cluster: pve, ...bridge });
    new ProxmoxNetworkApply(stack, 'net', { cluster: pve, nodes: ['n2', 'n3'] });
    new ProxmoxNetworkInterface(stack, 'after', { cluster: pve, ...bridge, node: 'n3' });
    new ProxmoxNetworkInterface(stack, 'elsewhere', { cluster: pve, ...bridge, node: 'n4' });
    new ProxmoxNetworkInterface(stack, 'othercluster', { cluster: other, ...bridge });
    const data = synth(stack).resource.terraform_data;
    expect(data.net_converge.triggers_replace.follows).toEqual([
      '${terraform_data.before_converge.id}',
      '${terraform_data.after_converge.id}',
    ]);
    // destroy order: the interfaces stage their removal before the apply's teardown reload
    expect(data.before_lifecycle.depends_on).toEqual(['terraform_data.net_lifecycle']);
    expect(data.after_lifecycle.depends_on).toEqual(['terraform_data.net_lifecycle']);
    expect(data.elsewhere_lifecycle.depends_on).toBeUndefined();
    expect(data.othercluster_lifecycle.depends_on).toBeUndefined();
  });

  test.each<[string, Partial<ProxmoxNetworkApplyProps>, RegExp]>([
    ['no node', { nodes: [] }, /test\/net: nodes must be a non-empty list of node names, got \[\]/],
    ['a node twice', { nodes: ['n2', 'n2'] }, /nodes must be free of duplicates/],
    ['a node name with a slash', { nodes: ['n2/x'] }, /nodes must be PVE node names .*, got "n2\/x"/],
    ['a wait of 0 s', { timeoutSeconds: 0 }, /timeoutSeconds must be an integer from 1 to 3600, got 0/],
  ])('rejects %s at synth', (_, props, message) => {
    const { stack, pve } = setup();
    expect(() => new ProxmoxNetworkApply(stack, 'net', { cluster: pve, nodes: ['n2'], ...props })).toThrow(message);
  });
});
