// ProxmoxNetworkApply at synth: its spec names, per node, the interfaces the stack stages there, so
// the handler can tell someone else's staged changes from the stack's own (issue 16 item 6).
import { Testing, TerraformStack } from 'cdktf';
import { ProxmoxCluster } from '../../../../constructs/pve/cluster';
import { ProxmoxNetworkApply } from '../../../../constructs/pve/network-apply';
import { ProxmoxNetworkInterface } from '../../../../constructs/pve/network-interface';
import { parsedEntry } from '../batch-apply';

const setup = () => {
  const stack = new TerraformStack(Testing.app(), 'test');
  const pve = new ProxmoxCluster(stack, 'pve', { endpoints: ['https://n1:8006'] });
  return { stack, pve };
};
const specOf = (stack: TerraformStack) => parsedEntry(JSON.parse(Testing.synth(stack)), 'pve', 'net').spec;

test('the spec lists the interfaces of each of its nodes, declared before or after it, and no others', () => {
  const { stack, pve } = setup();
  const other = new ProxmoxCluster(stack, 'other', { endpoints: ['https://m1:8006'] });
  new ProxmoxNetworkInterface(stack, 'vlan', { cluster: pve, node: 'n2', iface: 'vmbr1.40', type: 'vlan' });
  new ProxmoxNetworkApply(stack, 'net', { cluster: pve, nodes: ['n3', 'n2'] });
  new ProxmoxNetworkInterface(stack, 'br', { cluster: pve, node: 'n2', iface: 'vmbr1', type: 'bridge' });
  new ProxmoxNetworkInterface(stack, 'bond', { cluster: pve, node: 'n3', iface: 'bond0', type: 'bond' });
  new ProxmoxNetworkInterface(stack, 'n4', { cluster: pve, node: 'n4', iface: 'vmbr9', type: 'bridge' });
  new ProxmoxNetworkInterface(stack, 'm', { cluster: other, node: 'n2', iface: 'vmbr8', type: 'bridge' });
  expect(specOf(stack)).toMatchObject({ interfaces: { n2: ['vmbr1', 'vmbr1.40'], n3: ['bond0'] } });
});

test('reloadForeignChanges reaches the spec when set', () => {
  const { stack, pve } = setup();
  new ProxmoxNetworkApply(stack, 'net', { cluster: pve, nodes: ['n2'], reloadForeignChanges: true });
  expect(specOf(stack)).toMatchObject({ reloadForeignChanges: true });
});

test('reloadForeignChanges that is not a boolean is refused at synth', () => {
  const { stack, pve } = setup();
  const props = { cluster: pve, nodes: ['n2'], reloadForeignChanges: 'yes' as unknown as boolean };
  new ProxmoxNetworkApply(stack, 'net', props);
  expect(() => Testing.synth(stack)).toThrow(/reloadForeignChanges must be a boolean, got "yes"/);
});
