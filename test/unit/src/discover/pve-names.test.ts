// discover over PVE rows without a name (an audit last session): a network row without `iface` was named
// `interface undefined on n1`, and one carrying the node's address made a real interface called `undefined` the
// management interface.
import { pveDeclarations } from '../../../../src/discover/pve';
import { discoveredStack } from '../../../../src/discover/stack';

const found = (rows: unknown[]) =>
  pveDeclarations({ cluster: {}, networks: [{ node: 'n1', address: '10.0.0.1', rows }] }, new Set());
const summaryOf = (discovered: ReturnType<typeof found>) =>
  discoveredStack([discovered], { stack: 's', from: 'cdktf-homelab', language: 'ts', read: [] }).summary.join('\n');

test('an interface listed without iface is left out as one without a name, saying why', () => {
  const discovered = found([{ type: 'bridge', bridge_ports: '' }]);
  expect(discovered.skipped).toEqual([
    {
      what: 'an interface without a name on n1',
      why: 'its row holds no name (iface), which an interface is declared and found by',
    },
  ]);
  expect(summaryOf(discovered)).not.toContain('undefined');
});

test('an iface that is not text is left out by what it holds, not as its text', () => {
  expect(found([{ iface: 7, type: 'bridge' }]).skipped).toEqual([
    {
      what: 'an interface without a name on n1',
      why: "its row's name (iface) is 7, not text, and an interface is declared and found by its name",
    },
  ]);
});

test('a nameless interface carrying the address leaves out what it rests on, and no interface named undefined', () => {
  const discovered = found([
    { type: 'bridge', bridge_ports: 'bond0', cidr: '10.0.0.1/24' },
    { iface: 'bond0', type: 'bond', slaves: '', bond_mode: 'balance-rr' },
    { iface: 'undefined', type: 'bridge' },
  ]);
  expect(discovered.skipped).toEqual([
    {
      what: 'an interface without a name on n1',
      why: 'its row holds no name (iface), which an interface is declared and found by',
    },
    {
      what: 'interface bond0 on n1',
      why: "under an interface without a name, the node's management interface",
      group: 'management',
    },
  ]);
  expect(discovered.declarations.map((d) => d.id)).toEqual(['pve', 'undefined-n1']);
});
