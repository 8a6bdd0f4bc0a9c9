// The network constructs at synth: what reaches the spec and identity, the synth-time rules with
// the prop in the message, and the wiring that lets one apply stage and reload (issue 7, item 3).
import { TerraformVariable, Testing, TerraformStack } from 'cdktf';
import { ProxmoxCluster } from '../../../../constructs/pve/cluster';
import { ProxmoxNetworkApply, type ProxmoxNetworkApplyProps } from '../../../../constructs/pve/network-apply';
import {
  ProxmoxNetworkInterface,
  type ProxmoxNetworkInterfaceProps,
} from '../../../../constructs/pve/network-interface';
import { entryOf, parsedEntry, pendingOf, queryOf } from '../batch-apply';

const setup = () => {
  const stack = new TerraformStack(Testing.app(), 'test');
  const pve = new ProxmoxCluster(stack, 'pve', { endpoints: ['https://n1:8006'] });
  return { stack, pve };
};
const synth = (stack: TerraformStack) => JSON.parse(Testing.synth(stack));
/** What a lifecycle is ordered after, its batch's recheck aside (every interface's lifecycle follows that). */
const orderedAfter = (lifecycle: { depends_on?: string[] }) =>
  (lifecycle.depends_on ?? []).filter((address) => !/^data\.external\.\w+_recheck$/.test(address));
const bridge = { node: 'n2', iface: 'vmbr1', type: 'bridge' } as const;

describe('ProxmoxNetworkInterface', () => {
  test('all defaults: the spec holds node, iface, type and no options; the identity names the interface', () => {
    const { stack, pve } = setup();
    new ProxmoxNetworkInterface(stack, 'br', { cluster: pve, ...bridge });
    const json = synth(stack);
    const data = json.resource.terraform_data;
    expect(parsedEntry(json, 'pve', 'br')).toEqual({ kind: 'network-interface', spec: { ...bridge, options: {} } });
    const [found, object] = data.br_lifecycle.input.split('\n');
    expect(JSON.parse(object).identity).toEqual(bridge);
    expect(found).toBe('${lookup(local.pve_found, "br", "")}');
    expect(data.br_lifecycle.lifecycle.ignore_changes).toEqual(['input']);
    const brHook = data.br_lifecycle.provisioner[0]['local-exec'];
    expect([...brHook.interpreter, brHook.command].join(' ')).toMatch(/destroy-hook\.sh .*pve\.js pve destroy$/);
    expect(data.br_lifecycle.provisioner[0]['local-exec'].environment.HOMELAB_KIND).toBe('network-interface');
  });

  test('props map to PVE parameter names, lists sorted, VLAN ids as text', () => {
    const { stack, pve } = setup();
    const props = { bridgePorts: ['enp3s0', 'enp2s0'], bridgeVlanAware: true, bridgeVids: [10, '100-200'], mtu: 9000 };
    new ProxmoxNetworkInterface(stack, 'br', { cluster: pve, ...bridge, ...props });
    expect(parsedEntry(synth(stack), 'pve', 'br').spec.options).toEqual({
      bridge_ports: ['enp2s0', 'enp3s0'],
      bridge_vlan_aware: true,
      bridge_vids: ['10', '100-200'],
      mtu: 9000,
    });
  });

  test('a node given as a Terraform variable is refused, since it names the interface', () => {
    const { stack, pve } = setup();
    const node = new TerraformVariable(stack, 'node', { type: 'string' }).stringValue;
    new ProxmoxNetworkInterface(stack, 'br', { cluster: pve, ...bridge, node });
    expect(() => Testing.synth(stack)).toThrow(/node must be a plain value known at synth/);
  });

  test('a Terraform variable in a field is kept as a reference and not judged at synth', () => {
    const { stack, pve } = setup();
    const mtu = new TerraformVariable(stack, 'mtu', { type: 'number' }).numberValue;
    new ProxmoxNetworkInterface(stack, 'br', { cluster: pve, ...bridge, mtu });
    expect(entryOf(synth(stack), 'pve', 'br').text).toMatch(
      /^\{"kind":"network-interface","spec":\$\{jsonencode\(.*var\.mtu/,
    );
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
    // Issue 16 item 4: ifupdown2 joins the line after a comment ending in `\`: the next `auto` line was lost.
    ['a comment ending in a backslash', { comments: 'uplink\\' }, /comments must be .*a backslash.*, got "uplink\\"/],
    ['a comment holding ${', { comments: 'up ${x}' }, /comments must be a non-empty text whose lines/],
    ['a comment holding %', { comments: '50% of the uplink' }, /comments must be a non-empty text whose lines/],
    ['a comment holding a carriage return', { comments: 'a\rb' }, /comments must be a non-empty text whose lines/],
  ])('rejects %s at synth, naming the prop', (_, props, message) => {
    const { stack, pve } = setup();
    new ProxmoxNetworkInterface(stack, 'br', { cluster: pve, ...bridge, ...props });
    expect(() => Testing.synth(stack)).toThrow(message);
  });
});

describe('interfaces on one node', () => {
  const bond = { node: 'n2', iface: 'bond0', type: 'bond' as const, slaves: ['enp3s0', 'enp4s0'] };

  test('a bridge declared before the bond it names as a port is applied after it and destroyed before it', () => {
    const { stack, pve } = setup();
    new ProxmoxNetworkInterface(stack, 'br', { cluster: pve, ...bridge, bridgePorts: ['bond0', 'enp2s0'] });
    new ProxmoxNetworkInterface(stack, 'bond', { cluster: pve, ...bond });
    const json = synth(stack);
    const data = json.resource.terraform_data;
    expect(parsedEntry(json, 'pve', 'br').after).toEqual(['bond']);
    expect(parsedEntry(json, 'pve', 'bond').after).toBeUndefined();
    expect(orderedAfter(data.br_lifecycle)).toEqual(['terraform_data.bond_lifecycle']);
    expect(orderedAfter(data.bond_lifecycle)).toEqual([]);
  });

  test.each<[string, Array<'vlan' | 'br'>]>([
    ['before', ['vlan', 'br']],
    ['after', ['br', 'vlan']],
  ])('a VLAN vmbr1.10 declared %s its bridge vmbr1 is applied after it', (_, order) => {
    const { stack, pve } = setup();
    const declare = {
      vlan: () =>
        new ProxmoxNetworkInterface(stack, 'vlan', { cluster: pve, node: 'n2', iface: 'vmbr1.10', type: 'vlan' }),
      br: () => new ProxmoxNetworkInterface(stack, 'br', { cluster: pve, ...bridge }),
    };
    for (const id of order) declare[id]();
    const json = synth(stack);
    expect(parsedEntry(json, 'pve', 'vlan').after).toEqual(['br']);
    expect(parsedEntry(json, 'pve', 'br').after).toBeUndefined();
    expect(orderedAfter(json.resource.terraform_data.vlan_lifecycle)).toEqual(['terraform_data.br_lifecycle']);
  });

  test('a VLAN named vlan<id> is applied after its vlanRawDevice', () => {
    const { stack, pve } = setup();
    new ProxmoxNetworkInterface(stack, 'vlan', {
      cluster: pve,
      node: 'n2',
      iface: 'vlan10',
      type: 'vlan',
      vlanRawDevice: 'bond0',
    });
    new ProxmoxNetworkInterface(stack, 'bond', { cluster: pve, ...bond });
    expect(parsedEntry(synth(stack), 'pve', 'vlan').after).toEqual(['bond']);
  });

  // A port bond0.20 with no stanza is a VLAN of bond0 to PVE's writer (Interfaces.pm:1004-1028): the apply
  // refuses the bridge while bond0 is not on the node, so the bridge must stage after it.
  test('a bridge on a port <device>.<id> is applied after that device', () => {
    const { stack, pve } = setup();
    new ProxmoxNetworkInterface(stack, 'br', { cluster: pve, ...bridge, bridgePorts: ['bond0.20'] });
    new ProxmoxNetworkInterface(stack, 'bond', { cluster: pve, ...bond });
    expect(orderedAfter(synth(stack).resource.terraform_data.br_lifecycle)).toEqual(['terraform_data.bond_lifecycle']);
  });

  test('an interface of that name on another node, or a port the stack does not declare, orders nothing', () => {
    const { stack, pve } = setup();
    new ProxmoxNetworkInterface(stack, 'br', { cluster: pve, ...bridge, bridgePorts: ['bond0', 'enp2s0'] });
    new ProxmoxNetworkInterface(stack, 'bond', { cluster: pve, ...bond, node: 'n3' });
    const json = synth(stack);
    expect(parsedEntry(json, 'pve', 'br').after).toBeUndefined();
    expect(orderedAfter(json.resource.terraform_data.br_lifecycle)).toEqual([]);
  });

  // Issue 16 item 7: two declarations staged over each other, and every apply reloaded the node.
  test('a second declaration of an interface on one node of one cluster is refused, naming both', () => {
    const { stack, pve } = setup();
    new ProxmoxNetworkInterface(stack, 'first', { cluster: pve, ...bridge });
    new ProxmoxNetworkInterface(stack, 'second', { cluster: pve, ...bridge, mtu: 9000 });
    expect(() => Testing.synth(stack)).toThrow(
      'test/second: iface must be declared once per node (test/first declares it on n2 too), got "vmbr1"',
    );
  });

  test('the same interface name on another node, or of another cluster, is no duplicate', () => {
    const { stack, pve } = setup();
    const other = new ProxmoxCluster(stack, 'other', { endpoints: ['https://m1:8006'] });
    new ProxmoxNetworkInterface(stack, 'a', { cluster: pve, ...bridge });
    new ProxmoxNetworkInterface(stack, 'b', { cluster: pve, ...bridge, node: 'n3' });
    new ProxmoxNetworkInterface(stack, 'c', { cluster: other, ...bridge });
    expect(Object.keys(synth(stack).resource.terraform_data)).toEqual(
      expect.arrayContaining(['a_lifecycle', 'b_lifecycle', 'c_lifecycle']),
    );
  });

  test('a network apply on the node comes after each of them, whatever their order among themselves', () => {
    const { stack, pve } = setup();
    new ProxmoxNetworkInterface(stack, 'br', { cluster: pve, ...bridge, bridgePorts: ['bond0'] });
    new ProxmoxNetworkApply(stack, 'net', { cluster: pve, nodes: ['n2'] });
    new ProxmoxNetworkInterface(stack, 'bond', { cluster: pve, ...bond });
    const json = synth(stack);
    expect(parsedEntry(json, 'pve', 'net').after).toEqual(['br', 'bond']);
    expect(orderedAfter(json.resource.terraform_data.br_lifecycle)).toEqual([
      'terraform_data.net_lifecycle',
      'terraform_data.bond_lifecycle',
    ]);
  });
});

describe('ProxmoxNetworkApply', () => {
  test('all defaults: a 30 s wait, the node list as identity, a teardown reload as its destroy', () => {
    const { stack, pve } = setup();
    new ProxmoxNetworkApply(stack, 'net', { cluster: pve, nodes: ['n3', 'n2'] });
    const json = synth(stack);
    const data = json.resource.terraform_data;
    expect(entryOf(json, 'pve', 'net')).toEqual({
      text:
        '{"kind":"network-apply","spec":{"interfaces":{"n2":[],"n3":[]},"nodes":["n3","n2"],' +
        '"reloadForeignChanges":false,"timeoutSeconds":30}}',
      pending: pendingOf('pve', 'net'),
    });
    expect(JSON.parse(data.net_lifecycle.input).identity).toEqual({ nodes: ['n3', 'n2'] });
    const netHook = data.net_lifecycle.provisioner[0]['local-exec'];
    expect([...netHook.interpreter, netHook.command].join(' ')).toMatch(/destroy-hook\.sh .*pve\.js pve destroy$/);
    expect(data.net_lifecycle.provisioner[0]['local-exec'].environment.HOMELAB_KIND).toBe('network-apply');
  });

  test('it comes after the interfaces on its nodes, declared before or after it, and drifts with them', () => {
    const { stack, pve } = setup();
    const other = new ProxmoxCluster(stack, 'other', { endpoints: ['https://m1:8006'] });
    new ProxmoxNetworkInterface(stack, 'before', { cluster: pve, ...bridge });
    new ProxmoxNetworkApply(stack, 'net', { cluster: pve, nodes: ['n2', 'n3'] });
    new ProxmoxNetworkInterface(stack, 'after', { cluster: pve, ...bridge, node: 'n3' });
    new ProxmoxNetworkInterface(stack, 'elsewhere', { cluster: pve, ...bridge, node: 'n4' });
    new ProxmoxNetworkInterface(stack, 'othercluster', { cluster: other, ...bridge });
    const json = synth(stack);
    const data = json.resource.terraform_data;
    expect(parsedEntry(json, 'pve', 'net').after).toEqual(['before', 'after']);
    // an interface not in sync puts the apply among the read's drifted (batch.ts), so its entry is unknown
    expect(JSON.parse(queryOf(json, 'pve').net ?? '').follows).toEqual(['before', 'after']);
    expect(entryOf(json, 'pve', 'net').pending).toBe(pendingOf('pve', 'net'));
    // destroy order: the interfaces stage their removal before the apply's teardown reload
    expect(orderedAfter(data.before_lifecycle)).toEqual(['terraform_data.net_lifecycle']);
    expect(orderedAfter(data.after_lifecycle)).toEqual(['terraform_data.net_lifecycle']);
    expect(orderedAfter(data.elsewhere_lifecycle)).toEqual([]);
    expect(orderedAfter(data.othercluster_lifecycle)).toEqual([]);
  });

  test.each<[string, Partial<ProxmoxNetworkApplyProps>, RegExp]>([
    ['no node', { nodes: [] }, /test\/net: nodes must be a non-empty list of node names, got \[\]/],
    ['a node twice', { nodes: ['n2', 'n2'] }, /nodes must be free of duplicates/],
    ['a node name with a slash', { nodes: ['n2/x'] }, /nodes must be PVE node names .*, got \["n2\/x"\]/],
    ['a wait of 0 s', { timeoutSeconds: 0 }, /timeoutSeconds must be an integer from 1 to 3600, got 0/],
  ])('rejects %s at synth', (_, props, message) => {
    const { stack, pve } = setup();
    new ProxmoxNetworkApply(stack, 'net', { cluster: pve, nodes: ['n2'], ...props });
    expect(() => Testing.synth(stack)).toThrow(message);
  });
});
