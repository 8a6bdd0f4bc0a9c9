/**
 * Who staged what on a node, as a plan and an apply word it (issue 16 item 6), and the handler
 * boundary refusing a hand-written apply spec by the rules synth applies.
 */
import { parseAs } from '../../../../src/core/parse';
import {
  applyReading,
  bySomeoneElse,
  FOREIGN_REFUSED,
  networkApplyIdentity,
  networkApplySpec,
} from '../../../../src/pve/network-apply';
import type { NodeStaging } from '../../../../src/pve/network-changes';

const staging = (interfaces: string[], extra: Partial<NodeStaging['stanzas']> = {}, lines = 5): NodeStaging => ({
  lines,
  stanzas: { interfaces, outside: false, unplaced: false, beyondAuto: [], ...extra },
  slaves: new Map([['bond0', ['enp3s0', 'enp4s0']]]),
  present: [],
});
const spec = {
  nodes: ['n2', 'n3'],
  timeoutSeconds: 30,
  reloadForeignChanges: false,
  interfaces: { n2: ['vmbr1'], n3: ['bond0', 'vmbr1'] },
};
/** No deletion staged by this stack's destroy (removal-trace.ts), and one that staged every deletion. */
const none = () => false;
const every = () => true;

describe('bySomeoneElse', () => {
  test.each<[string, string, NodeStaging, string[]]>([
    ['only declared interfaces', 'n3', staging(['vmbr1']), []],
    ['an interface declared on another node only', 'n2', staging(['bond0']), ['bond0']],
    ["a declared bond's slaves", 'n3', staging(['bond0', 'enp3s0', 'enp4s0']), []],
    [
      "a declared bond's slave with more than its auto line staged",
      'n3',
      staging(['bond0', 'enp3s0', 'enp4s0'], { beyondAuto: ['bond0', 'enp3s0'] }),
      ['enp3s0'],
    ],
    ['the slaves of a bond the stack does not declare there', 'n2', staging(['enp3s0']), ['enp3s0']],
    ['lines outside any interface', 'n3', staging([], { outside: true }), ['lines outside any interface']],
    [
      'a line no listed stanza holds',
      'n3',
      staging([], { unplaced: true }),
      ['lines of an interface the list does not show'],
    ],
  ])('%s', (_, node, staged, expected) => {
    expect(bySomeoneElse(spec, node, staged, none)).toEqual(expected);
  });

  test('a spec without interfaces declares none', () => {
    expect(
      bySomeoneElse({ nodes: ['n2'], timeoutSeconds: 30, reloadForeignChanges: false }, 'n2', staging(['vmbr1']), none),
    ).toEqual(['vmbr1']);
  });
});

test("the reading names what someone else staged beside each node's count, in the declared order", () => {
  const stagings = new Map([
    ['n3', staging(['vmbr1', 'vmbr9', 'wlp91s0'])],
    ['n2', staging([], {}, 0)],
  ]);
  expect(applyReading(spec, stagings, none)).toEqual({
    inSync: false,
    // The apply refuses them without reloadForeignChanges: the line says so, so the plan never promises it.
    summary: 'n2: settled; n3: 5 staged lines, 2 by someone else: vmbr9, wlp91s0; ' + FOREIGN_REFUSED,
    diff: { n3: { live: 5, want: 0 } },
    converges: false,
  });
  expect(FOREIGN_REFUSED).toBe(
    "the apply refuses to reload while someone else's changes are staged (reloadForeignChanges: false)",
  );
  const reloading = applyReading({ ...spec, reloadForeignChanges: true }, stagings, none);
  expect(reloading.summary).toBe('n2: settled; n3: 5 staged lines, 2 by someone else: vmbr9, wlp91s0');
  expect(reloading.converges).toBeUndefined();
});

describe('networkApplySpec', () => {
  test('nodes in order and a wait are accepted', () => {
    expect(
      parseAs(networkApplySpec, { nodes: ['n3', 'n2'], timeoutSeconds: 30, reloadForeignChanges: false }, 'spec'),
    ).toEqual({
      nodes: ['n3', 'n2'],
      timeoutSeconds: 30,
      reloadForeignChanges: false,
    });
  });

  test('a spec written by hand without a defaulted field gets its default', () => {
    expect(parseAs(networkApplySpec, { nodes: ['n2'] }, 'spec')).toEqual({
      nodes: ['n2'],
      timeoutSeconds: 30,
      reloadForeignChanges: false,
    });
  });

  test.each([
    [
      'a node twice',
      { nodes: ['n2', 'n2'], timeoutSeconds: 30, reloadForeignChanges: false },
      'spec.nodes: must be free of duplicates, got ["n2","n2"]',
    ],
    [
      'no node',
      { nodes: [], timeoutSeconds: 30, reloadForeignChanges: false },
      'spec.nodes: must be a non-empty list of node names, got []',
    ],
    [
      'a wait of 0 s',
      { nodes: ['n2'], timeoutSeconds: 0, reloadForeignChanges: false },
      'spec.timeoutSeconds: must be an integer from 1 to 3600, got 0',
    ],
    [
      'a node name carrying a path',
      { nodes: ['n2/../x'], timeoutSeconds: 30, reloadForeignChanges: false },
      'spec.nodes: must be PVE node names (letters, digits, inner -), got ["n2/../x"]',
    ],
    [
      'an interface name that is not one',
      { nodes: ['n2'], timeoutSeconds: 30, reloadForeignChanges: false, interfaces: { n2: ['vmbr1', 'a b'] } },
      'spec.interfaces.n2: must be a list of interface names (an interface name: a letter, then letters, digits ' +
        'and _, optionally .<vlan>, 2-15 characters), got ["vmbr1","a b"]',
    ],
  ])('%s is refused', (_, spec, message) => {
    expect(() => parseAs(networkApplySpec, spec, 'spec')).toThrow(`Bad input: ${message}`);
  });

  test('the identity is the node list alone, judged by the same rule', () => {
    expect(parseAs(networkApplyIdentity, { nodes: ['n2', 'n3'] }, 'identity')).toEqual({ nodes: ['n2', 'n3'] });
    expect(() => parseAs(networkApplyIdentity, { nodes: [] }, 'identity')).toThrow(
      'Bad input: identity.nodes: must be a non-empty list of node names, got []',
    );
  });
});

describe('interfaces removed from the stack (README, Removing an object)', () => {
  const removing = { ...spec, removing: { n2: ['vmbr9'] } };
  const settled = (present: string[]): NodeStaging => ({ ...staging([], {}, 0), present });

  test('one still on its node makes the apply not in sync, so it reloads after the deletion is staged', () => {
    const reading = applyReading(
      removing,
      new Map([
        ['n2', settled(['vmbr1', 'vmbr9'])],
        ['n3', settled([])],
      ]),
      none,
    );
    expect(reading).toEqual({
      inSync: false,
      summary: 'n2: settled, vmbr9 to be deleted if this plan destroys it; n3: settled',
      diff: { n2: { live: 0, want: 0 } },
    });
  });

  test("once gone from the node the apply is in sync again, and its staged deletion is not someone else's", () => {
    expect(
      applyReading(
        removing,
        new Map([
          ['n2', settled(['vmbr1'])],
          ['n3', settled([])],
        ]),
        every,
      ).inSync,
    ).toBe(true);
    expect(bySomeoneElse(removing, 'n2', staging(['vmbr9']), every)).toEqual([]);
  });

  // Issue 27: the list comes from the record, which anyone can edit; only the destroy's note is proof.
  test("a staged deletion this stack's destroy did not stage is someone else's, whatever the record says", () => {
    const ours = (node: string, iface: string) => node === 'n2' && iface === 'vmbr8';
    const both = { ...spec, removing: { n2: ['vmbr8', 'vmbr9'] } };
    expect(bySomeoneElse(both, 'n2', staging(['vmbr8', 'vmbr9']), ours)).toEqual(['vmbr9']);
    const read = applyReading(both, new Map([['n2', staging(['vmbr8', 'vmbr9'])]]), ours);
    expect(read.summary).toContain('n2: 5 staged lines, 1 by someone else: vmbr9');
  });

  // An audit (2026-12-05): a hand-made record entry for a live interface exempted what someone staged on it,
  // and the apply reloaded their edit; the plan counts it as the stack's (a deletion would replace it), the
  // apply only once the stack's destroy staged the deletion.
  test("changes staged on a listed interface still there are someone else's at apply, the stack's at plan", () => {
    const stagedOnIt = { ...staging(['vmbr9']), present: ['vmbr1', 'vmbr9'] };
    expect(bySomeoneElse(removing, 'n2', stagedOnIt, none)).toEqual(['vmbr9']);
    const read = applyReading(
      removing,
      new Map([
        ['n2', stagedOnIt],
        ['n3', settled([])],
      ]),
      none,
    );
    expect(read.summary).toBe('n2: 5 staged lines, vmbr9 to be deleted if this plan destroys it; n3: settled');
  });

  test('the handler boundary judges the names as it judges interfaces', () => {
    const bad = { ...spec, removing: { n2: ['no such name!'] } };
    expect(() => parseAs(networkApplySpec, bad, 'spec')).toThrow(/removing\.n2: must be a list of interface names/);
  });
});
