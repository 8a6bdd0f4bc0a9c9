/**
 * The order a node's interfaces are staged in, which the plan checks and the apply follows: PVE's writer runs
 * check_mtu over the whole file at every stage ([PC] f665029 src/PVE/Network/Interfaces.pm:96-110), so a fixed order
 * (each interface after those it names) stopped an apply that planned clean when two linked mtus changed at once.
 */
import { describeStuck, stagingOrder } from '../../../../src/pve/stage-order';

const spec = (iface: string, type: string, options: Record<string, unknown>) => ({ node: 'n2', iface, type, options });
const bond = (iface: string, slaves: string[], mtu?: number) =>
  spec(iface, 'bond', { slaves, ...(mtu === undefined ? {} : { mtu }) });
const bridge = (ports: string[], mtu?: number) =>
  spec('vmbr1', 'bridge', { bridge_ports: ports, ...(mtu === undefined ? {} : { mtu }) });
const vlan = (iface: string, mtu?: number) => spec(iface, 'vlan', mtu === undefined ? {} : { mtu });
const row = (iface: string, type: string, fields: Record<string, string> = {}) => ({ iface, type, ...fields });

const eth = [row('eno1', 'eth'), row('enp2s0', 'eth')];
const bond0 = (mtu: string) => row('bond0', 'bond', { slaves: 'enp2s0', mtu });
const vmbr1 = (mtu: string) => row('vmbr1', 'bridge', { bridge_ports: 'bond0', mtu });
const order = (rows: unknown[], ...specs: ReturnType<typeof spec>[]) => {
  const { order: staged, stuck } = stagingOrder(rows, specs);
  return stuck === undefined ? staged.map((s) => s.iface) : describeStuck('n2', stuck);
};

test.each([
  ['a bridge and its port raised: the port first', [bond0('1500'), vmbr1('1500')], 9000, 9000, ['bond0', 'vmbr1']],
  ['a bridge and its port lowered: the bridge first', [bond0('9000'), vmbr1('9000')], 1500, 1500, ['vmbr1', 'bond0']],
  [
    'a port raised alone under a bridge lowered: the port first',
    [bond0('1500'), vmbr1('1500')],
    9000,
    1400,
    ['bond0', 'vmbr1'],
  ],
  ['a new port and a new bridge: the port first, whatever the mtus', [], 1500, 1500, ['bond0', 'vmbr1']],
])('%s', (_, live, portMtu, bridgeMtu, want) => {
  expect(order([...eth, ...live], bridge(['bond0'], bridgeMtu), bond('bond0', ['enp2s0'], portMtu))).toEqual(want);
});

test('a VLAN and its device lowered stage the VLAN first; raised, the device first', () => {
  const live = (mtu: string) => [...eth, bond0(mtu), row('bond0.30', 'vlan', { mtu })];
  const both = (mtu: number) => [vlan('bond0.30', mtu), bond('bond0', ['enp2s0'], mtu)] as const;
  expect(order(live('9000'), ...both(1500))).toEqual(['bond0.30', 'bond0']);
  expect(order(live('1500'), ...both(9000))).toEqual(['bond0', 'bond0.30']);
});

test('a bond and its bond slave raised stage the bond first; lowered, the slave first', () => {
  const live = (mtu: string) => [...eth, bond0(mtu), row('bond1', 'bond', { slaves: 'bond0', mtu })];
  const both = (mtu: number) => [bond('bond0', ['enp2s0'], mtu), bond('bond1', ['bond0'], mtu)] as const;
  expect(order(live('1500'), ...both(9000))).toEqual(['bond1', 'bond0']);
  expect(order(live('9000'), ...both(1500))).toEqual(['bond0', 'bond1']);
});

test('a chain lowered (bridge on a VLAN on a bond) stages from the top down', () => {
  const live = [
    ...eth,
    bond0('9000'),
    row('bond0.30', 'vlan', { mtu: '9000' }),
    row('vmbr1', 'bridge', { bridge_ports: 'bond0.30', mtu: '9000' }),
  ];
  const specs = [bond('bond0', ['enp2s0'], 1500), vlan('bond0.30', 1500), bridge(['bond0.30'], 1500)];
  expect(order(live, ...specs)).toEqual(['vmbr1', 'bond0.30', 'bond0']);
});

test('interfaces that do not name each other keep the order by name', () => {
  expect(order(eth, vlan('enp2s0.40'), vlan('eno1.30'))).toEqual(['eno1.30', 'enp2s0.40']);
});

test('a refusal the node already holds is fixed by the first stage when one stage can, else no order works', () => {
  const broken = [...eth, bond0('1500'), row('vmbr2', 'bridge', { bridge_ports: 'bond0', mtu: '9000' })];
  const fix = spec('vmbr2', 'bridge', { bridge_ports: ['bond0'], mtu: 1500 });
  expect(order(broken, vlan('eno1.30'), fix)).toEqual(['vmbr2', 'eno1.30']);
  const twice = [...broken, row('bond0.30', 'vlan', { mtu: '9000' })];
  expect(order(twice, vlan('bond0.30', 1500), fix)).toBe(
    'on n2, with nothing staged yet, every stage leaves a pair PVE refuses: staging bond0.30 is refused as ' +
      "bridge vmbr2's mtu 9000 is above its port bond0's mtu 1500; staging vmbr2 is refused as VLAN bond0.30's " +
      "mtu 9000 is above its device bond0's mtu 1500",
  );
});

// A port the node lacks must be staged before the bridge that names it, even when that stage breaks the rule.
test('an interface the node lacks comes first even when its stage is refused, and the order says so', () => {
  const live = [...eth, row('vmbr1', 'bridge', { bridge_ports: 'bond0.20', mtu: '9000' })];
  expect(order(live, bridge(['bond0.20'], 1500), bond('bond0', ['enp2s0'], 1500))).toBe(
    'on n2, with nothing staged yet, every stage leaves a pair PVE refuses: staging bond0 is refused as ' +
      "bridge vmbr1's mtu 9000 is above its port bond0.20's mtu 1500",
  );
});
