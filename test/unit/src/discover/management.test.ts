// Each PVE node's management interface is left out unless asked for (issue 27: discover adopted each node's vmbr0),
// and the summary groups what was left out by why and says what discover cannot tell.
import { kubeDeclarations } from '../../../../src/discover/kube';
import { managementInterfaces, pveDeclarations } from '../../../../src/discover/pve';
import { discoveredStack } from '../../../../src/discover/stack';

const declaredIds = (discovered: { declarations: ReadonlyArray<{ construct: string; id: string }> }) =>
  discovered.declarations.map((d) => `${d.construct} ${d.id}`);

const rows = [
  { iface: 'eno1', type: 'eth' },
  { iface: 'bond0', type: 'bond', slaves: 'eno1', bond_mode: 'balance-rr' },
  { iface: 'vmbr0', type: 'bridge', bridge_ports: 'bond0', cidr: '10.0.0.1/24', address: '10.0.0.1' },
  { iface: 'vmbr0.40', type: 'vlan', cidr: '10.40.0.1/24', 'vlan-id': 40, 'vlan-raw-device': 'vmbr0' },
  { iface: 'vmbr1', type: 'bridge', cidr6: 'fd00::0:1/64' },
];

describe('PVE management interfaces', () => {
  test('the bridge carrying the node address in cluster/status and the bond under it are left out, named', () => {
    const found = pveDeclarations({ cluster: {}, networks: [{ node: 'n1', address: '10.0.0.1', rows }] }, new Set());
    expect(declaredIds(found)).toEqual([
      'ProxmoxCluster pve',
      'ProxmoxNetworkInterface vmbr0.40-n1',
      'ProxmoxNetworkInterface vmbr1-n1',
    ]);
    expect(found.skipped).toEqual([
      { what: 'interface bond0 on n1', why: "under vmbr0, the node's management interface", group: 'management' },
      {
        what: 'interface vmbr0 on n1',
        why: "it carries 10.0.0.1, n1's address in cluster/status",
        group: 'management',
      },
    ]);
  });

  test('--include-management declares them', () => {
    const networks = [{ node: 'n1', address: '10.0.0.1', rows }];
    const found = pveDeclarations({ cluster: {}, networks }, new Set(), { includeManagement: true });
    expect(declaredIds(found)).toContain('ProxmoxNetworkInterface vmbr0-n1');
    expect(found.skipped).toEqual([]);
  });

  test('a VLAN carrying the address leaves out the bridge it rides on, and the VLANs beside it stay', () => {
    const vlanRows = [
      { iface: 'vmbr0', type: 'bridge', bridge_ports: 'eno1' },
      { iface: 'vmbr0.10', type: 'vlan', address: '10.10.0.5', 'vlan-id': 10, 'vlan-raw-device': 'vmbr0' },
      { iface: 'mgmt', type: 'vlan', cidr: '10.20.0.5/24', 'vlan-id': 20, 'vlan-raw-device': 'vmbr0' },
    ];
    expect(managementInterfaces({ node: 'n1', address: '10.10.0.5', rows: vlanRows })).toEqual(
      new Map([
        ['vmbr0.10', "it carries 10.10.0.5, n1's address in cluster/status"],
        ['vmbr0', "under vmbr0.10, the node's management interface"],
      ]),
    );
  });

  test('an IPv6 address is compared in its canonical form', () => {
    expect([...managementInterfaces({ node: 'n1', address: 'FD00:0::1', rows }).keys()]).toEqual(['vmbr1']);
  });

  test('a node without an address in cluster/status is said in the summary, as is that PVE keeps no mark', () => {
    const found = pveDeclarations({ cluster: {}, networks: [{ node: 'n1', rows }] }, new Set());
    const { summary } = discoveredStack([found], { stack: 's', from: 'm', language: 'ts', read: [] });
    expect(summary).toContain(
      'note: cluster/status gave no address for n1: its management interface was not told apart',
    );
    expect(summary.join('\n')).toMatch(/note: PVE keeps no mark of ownership .* remove them from this stack by hand/);
  });
});

test('the summary groups what is left out by why, each group under one heading', () => {
  const pve = pveDeclarations({ cluster: {}, networks: [{ node: 'n1', address: '10.0.0.1', rows }] }, new Set());
  const repos = kubeDeclarations({
    cluster: {},
    clusterId: 'kube',
    version: 'v1alpha1',
    namespaces: [
      {
        namespace: 'jr2',
        repos: [
          {
            metadata: { name: 'docs', labels: { 'core.jr2.dev/bound': 'true' } },
            spec: { url: 'https://x.example/d' },
          },
        ],
      },
    ],
    secrets: new Set(),
  });
  const { summary } = discoveredStack([pve, repos], { stack: 's', from: 'm', language: 'ts', read: [] });
  expect(summary.slice(1, 7)).toEqual([
    'left out 1, managed by a cdktf-homelab stack already (its mark is on the target: a second stack adopting it ' +
      'would fight the first; declare it in the stack that owns it):',
    '  Repo jr2/docs: it carries the label core.jr2.dev/bound',
    "left out 2, each PVE node's management interface (it carries the node's address in cluster/status: a change " +
      'to it can cut the node off; --include-management declares it):',
    "  interface bond0 on n1: under vmbr0, the node's management interface",
    "  interface vmbr0 on n1: it carries 10.0.0.1, n1's address in cluster/status",
    expect.stringMatching(/^note: PVE keeps no mark/),
  ]);
});
