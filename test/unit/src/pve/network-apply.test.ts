/** Who staged what on a node, as a plan and an apply word it (issue 16 item 6). */
import { applyReading, bySomeoneElse } from '../../../../src/pve/network-apply';
import type { NodeStaging } from '../../../../src/pve/network-changes';

const staging = (interfaces: string[], extra: Partial<NodeStaging['stanzas']> = {}, lines = 5): NodeStaging => ({
  lines,
  stanzas: { interfaces, outside: false, unplaced: false, ...extra },
  slaves: { bond0: ['enp3s0', 'enp4s0'] },
});
const spec = { nodes: ['n2', 'n3'], timeoutSeconds: 30, interfaces: { n2: ['vmbr1'], n3: ['bond0', 'vmbr1'] } };

describe('bySomeoneElse', () => {
  test.each<[string, string, NodeStaging, string[]]>([
    ['only declared interfaces', 'n3', staging(['vmbr1']), []],
    ['an interface declared on another node only', 'n2', staging(['bond0']), ['bond0']],
    ["a declared bond's slaves", 'n3', staging(['bond0', 'enp3s0', 'enp4s0']), []],
    ['the slaves of a bond the stack does not declare there', 'n2', staging(['enp3s0']), ['enp3s0']],
    ['lines outside any interface', 'n3', staging([], { outside: true }), ['lines outside any interface']],
    [
      'a line no listed stanza holds',
      'n3',
      staging([], { unplaced: true }),
      ['lines of an interface the list does not show'],
    ],
  ])('%s', (_, node, staged, expected) => {
    expect(bySomeoneElse(spec, node, staged)).toEqual(expected);
  });

  test('a spec without interfaces declares none', () => {
    expect(bySomeoneElse({ nodes: ['n2'], timeoutSeconds: 30 }, 'n2', staging(['vmbr1']))).toEqual(['vmbr1']);
  });
});

test("the reading names what someone else staged beside each node's count, in the declared order", () => {
  const stagings = new Map([
    ['n3', staging(['vmbr1', 'vmbr9', 'wlp91s0'])],
    ['n2', staging([], {}, 0)],
  ]);
  expect(applyReading(spec, stagings)).toEqual({
    inSync: false,
    summary: 'n2: settled; n3: 5 staged lines, 2 by someone else: vmbr9, wlp91s0',
    diff: { n3: { live: 5, want: 0 } },
  });
});
