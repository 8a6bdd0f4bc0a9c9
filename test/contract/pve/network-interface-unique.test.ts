/**
 * PVE's network API refuses a stage that sends a default gateway while another interface of the node holds one, or
 * a bridge port or bond slave another interface already uses (400: `Default gateway already exists on interface
 * 'vmbr0'.`, `eno1 is already used on interface 'vmbr0'.`; [PM] 14a22df PVE/API2/Network.pm:517-565, checked by
 * create_network :652-657 and update_network :769-774, over the whole file). Regression: the plan read such an
 * interface as only absent or changed, "apply converges it", and the apply failed on PVE's 400; a gateway moved
 * between two declared interfaces failed or passed by the interfaces' names. Now the plan and the apply refuse first,
 * in the same words, and a move stages the interface that lets go first.
 */
import { type DeclaredInterface, lastLine, useNetworkNode } from '../../support/pve-network-node';

const { fake, plan, apply, writes, expectRefusedAlike } = useNetworkNode();

// The fake node's vmbr0: 10.0.0.1/24 on eno1, the node's default gateway 10.0.0.254 (as a fresh PVE install).
const VMBR0 = { bridge_ports: ['eno1'], autostart: true, cidr: '10.0.0.1/24' };
const vmbr1 = (options: Record<string, unknown>): DeclaredInterface => ({
  iface: 'vmbr1',
  type: 'bridge',
  options: { bridge_ports: ['enp2s0'], autostart: true, cidr: '10.10.0.2/24', ...options },
});

test.each([
  {
    what: 'a gateway another interface holds',
    options: { gateway: '10.10.0.1' },
    refusal:
      'interface vmbr1 on n2 sends gateway, but PVE keeps one default gateway of each family per node: ' +
      "Default gateway already exists on interface 'vmbr0'",
  },
  {
    what: 'a bridge port another interface uses',
    options: { bridge_ports: ['eno1'] },
    refusal: "interface vmbr1 on n2 sends bridge port eno1, which is already used on interface 'vmbr0'",
  },
])('$what fails the plan and the apply in the same words, nothing sent', async ({ options, refusal }) => {
  await expectRefusedAlike(
    [vmbr1(options)],
    `batch read: Network interfaces would be refused by PVE: ${refusal}. Remove it there (on the node, or where ` +
      'this stack declares that interface) or here; then plan again',
    `interface vmbr1 on n2 cannot be staged: ${refusal}; nothing was staged`,
  );
});

test('a gateway moved between two declared interfaces stages the one letting go first, as planned', async () => {
  // vmbr1 takes the gateway from vmbr0: by name vmbr0 would stage first, which PVE takes; the reverse move is the
  // one whose name order PVE refuses.
  const made = await apply([vmbr1({ gateway: '10.10.0.1' }), { iface: 'vmbr0', type: 'bridge', options: VMBR0 }]);
  expect([made.code, lastLine(made.stderr)]).toEqual([0, expect.stringContaining('staging')]);
  const back = [vmbr1({}), { iface: 'vmbr0', type: 'bridge', options: { ...VMBR0, gateway: '10.0.0.254' } }];
  const planned = await plan(back);
  expect([planned.code, planned.result?.['.in_sync'], planned.stderr]).toEqual([0, 'false', '']);
  fake().requests.length = 0;
  const applied = await apply(back);
  expect([applied.code, applied.stderr]).toEqual([0, expect.any(String)]);
  expect(writes()).toEqual(['PUT /api2/json/nodes/n2/network/vmbr1', 'PUT /api2/json/nodes/n2/network/vmbr0']);
  expect((await plan(back)).result?.['.in_sync']).toBe('true');
});

test('two bridges swapping ports fail the plan: no order of single stages PVE takes', async () => {
  const made = await apply([
    vmbr1({}),
    { iface: 'vmbr0', type: 'bridge', options: { ...VMBR0, gateway: '10.0.0.254' } },
  ]);
  expect(made.code).toBe(0);
  const swapped = [
    vmbr1({ bridge_ports: ['eno1'] }),
    { iface: 'vmbr0', type: 'bridge', options: { ...VMBR0, bridge_ports: ['enp2s0'], gateway: '10.0.0.254' } },
  ];
  const planned = await plan(swapped);
  expect(planned.code).toBe(1);
  expect(lastLine(planned.stderr)).toBe(
    "batch read: Network interfaces cannot be staged one at a time within PVE's rules: on n2, with nothing staged " +
      'yet, every stage leaves a pair PVE refuses: staging vmbr0 is refused as interface vmbr0 on n2 sends bridge ' +
      "port enp2s0, which is already used on interface 'vmbr1'; staging vmbr1 is refused as interface vmbr1 on n2 " +
      "sends bridge port eno1, which is already used on interface 'vmbr0'. PVE checks the whole file at every " +
      'stage, so the apply would stop part-way. Make the change over two applies (one letting go, then one ' +
      'taking), or fix the node by hand; then plan again',
  );
});
