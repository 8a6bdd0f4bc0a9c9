// Unit test of what a plan read of a network interface (interface-basis.ts): a field of its row changes the reading,
// what moves without a write to it (a reload's active, its place in the file) does not, and its free lines
// (`wpa-psk`, `pre-up`) never reach the basis, in text or in the digest.
import { interfaceBasis, interfaceMoved } from '../../../../src/pve/interface-basis';
import type { NetworkInterfaceSpec } from '../../../../src/pve/network-interface';

const spec = { node: 'n2', iface: 'vmbr1', type: 'bridge', options: {} } as unknown as NetworkInterfaceSpec;
const row = { iface: 'vmbr1', type: 'bridge', method: 'manual', bridge_ports: 'enp2s0', autostart: 1, priority: 5 };
const planned = interfaceBasis(spec, [row]);

test.each([
  ['a reload made it active', { ...row, active: 1, exists: 1 }],
  ['another interface moved its place in the file', { ...row, priority: 9 }],
  ['its free lines changed (a wpa-psk)', { ...row, options: ['wpa-psk s3cret'], options6: ['pre-up x'] }],
])('an interface read after %s reads as the plan read it', (_what, live) => {
  expect(interfaceBasis(spec, [live])).toBe(planned);
});

test.each([
  ['an mtu set', { ...row, mtu: 1400 }],
  ['a port changed', { ...row, bridge_ports: 'enp3s0' }],
  ['its method changed', { ...row, method: 'dhcp' }],
])('an interface with %s reads otherwise, and the apply refuses it', (_what, live) => {
  expect(interfaceMoved(spec, planned, [live])?.message).toMatch(
    /^interface vmbr1 on n2 cannot be applied as planned: it was changed after the plan read it .* nothing was staged/,
  );
});

test('an interface deleted, made, or of another type after the plan is refused, saying which', () => {
  expect(interfaceMoved(spec, planned, [])?.message).toContain('it was deleted');
  expect(interfaceMoved(spec, planned, [{ ...row, type: 'OVSBridge' }])?.message).toContain('it was deleted');
  expect(interfaceMoved(spec, interfaceBasis(spec, []), [row])?.message).toContain('created after the plan');
  expect(interfaceMoved(spec, interfaceBasis(spec, []), [{ ...row, type: 'vlan' }])).toBeUndefined();
});

test('the basis holds no text of the row', () => {
  expect(interfaceBasis(spec, [{ ...row, options: ['wpa-psk s3cret'] }])).toMatch(/^interface read [0-9a-f]{16}$/);
});
