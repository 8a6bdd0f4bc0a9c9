/**
 * Issue 29 item 1 for the network interface: its one declaration (src/pve/network-fields.ts) and every form
 * derived from it. API.md's props table, the spec the construct writes (specOf), the handler boundary's schema,
 * the diff and discover's rebuild each carry every field of each interface type, and nothing else; the rule of
 * which types have a field is the same words at synth and at the boundary. A field dropped by one form (or a
 * form that grew a field of its own) fails here by name.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { propsOfSpec, specOf } from '../../../../src/core/fields';
import { parseAs } from '../../../../src/core/parse';
import { pveDeclarations } from '../../../../src/discover/pve';
import {
  INTERFACE_TYPES,
  type InterfaceType,
  NETWORK_INTERFACE_FIELDS,
  NETWORK_OPTIONS,
  optionsOf,
} from '../../../../src/pve/network-fields';
import { interfaceProblems, networkInterfaceSpec } from '../../../../src/pve/network-interface';
import { createForm, diffInterface } from '../../../../src/pve/network-interface-diff';

/** Props the construct adds to its kind's fields: the target and what every managed object has. */
const CONSTRUCT_PROPS = ['cluster', 'adopt', 'forget'];

const COMMON = {
  node: 'n1',
  autostart: true,
  comments: 'uplink\nsecond line',
  mtu: 9000,
  cidr: '10.0.0.2/24',
  cidr6: 'fd00::2/64',
  gateway: '10.0.0.1',
  gateway6: 'fd00::1',
};

/**
 * Interfaces that set, between them, every field of each type (a bond's primary and its hash policy belong to
 * different modes), each value one its rule lets through; names and VLAN ids unsorted and as numbers, so the
 * spec's canonical form is exercised too.
 */
const SAMPLES: ReadonlyArray<[string, Record<string, unknown>]> = [
  [
    'a VLAN-aware bridge',
    {
      ...COMMON,
      iface: 'vmbr1',
      type: 'bridge',
      bridgePorts: ['eno2', 'eno1'],
      bridgeVlanAware: true,
      bridgeVids: [10, '100-200'],
    },
  ],
  ['a custom-named VLAN', { ...COMMON, iface: 'mgmt', type: 'vlan', vlanId: 30, vlanRawDevice: 'eno3' }],
  [
    'an active-backup bond',
    {
      ...COMMON,
      iface: 'bond0',
      type: 'bond',
      slaves: ['eno2', 'eno1'],
      bondMode: 'active-backup',
      bondPrimary: 'eno1',
    },
  ],
  [
    'an LACP bond',
    { ...COMMON, iface: 'bond1', type: 'bond', slaves: ['eno1'], bondMode: '802.3ad', bondXmitHashPolicy: 'layer3+4' },
  ],
];

/** Each prop API.md lists for `props`, with its default column. */
const documented = (props: string): Map<string, string> => {
  const api = readFileSync(join(__dirname, '..', '..', '..', '..', 'API.md'), 'utf8');
  const section = api.split(`## ${props}\n`)[1]?.split('\n## ')[0] ?? '';
  return new Map([...section.matchAll(/^\| `(\w+)` \| `[^`]*` \| ([^|]*) \|/gm)].map((m) => [m[1] ?? '', m[2] ?? '']));
};

/** The sample's props in the spec's form: names sorted, VLAN ids as text. */
const canonical = (props: Record<string, unknown>): Record<string, unknown> =>
  Object.fromEntries(
    Object.entries(props).map(([prop, value]) => {
      const option = NETWORK_OPTIONS.find((candidate) => candidate.prop === prop);
      return [prop, option === undefined ? value : option.canonical(value)];
    }),
  );

const specFor = (props: Record<string, unknown>) =>
  parseAs(networkInterfaceSpec, specOf(NETWORK_INTERFACE_FIELDS, props), 'spec');

/** The node's rows as GET answers them after the spec was staged, with the NICs it names. */
const liveRows = (props: Record<string, unknown>): Array<Record<string, unknown>> => [
  createForm(specFor(props)),
  ...['eno1', 'eno2', 'eno3'].map((iface) => ({ iface, type: 'eth' })),
];

describe('the network interface is one declaration', () => {
  test("API.md's ProxmoxNetworkInterfaceProps lists every declared field and the construct's own, no other", () => {
    expect([...documented('ProxmoxNetworkInterfaceProps').keys()].sort()).toEqual(
      [...Object.keys(NETWORK_INTERFACE_FIELDS), ...CONSTRUCT_PROPS].sort(),
    );
  });

  test.each(INTERFACE_TYPES)('the samples set every field a %s has, and only those', (type: InterfaceType) => {
    const set = SAMPLES.filter(([, props]) => props.type === type).flatMap(([, props]) => Object.keys(props));
    expect([...new Set(set)].sort()).toEqual(
      ['node', 'iface', 'type', ...optionsOf(type).map((option) => option.prop)].sort(),
    );
  });

  test.each(SAMPLES)('%s: the boundary takes the spec as written, and it gives back every field', (_, props) => {
    const written = specOf(NETWORK_INTERFACE_FIELDS, props);
    expect(specFor(props)).toEqual(written);
    expect(propsOfSpec(NETWORK_INTERFACE_FIELDS, written)).toEqual({ props: canonical(props), unknown: [] });
  });

  test.each(SAMPLES)('%s: the diff reads the staged form in sync and compares every option set', (_, props) => {
    const spec = specFor(props);
    const [row = {}] = liveRows(props);
    expect(diffInterface(spec, row)).toEqual({ state: 'present', changes: {} });
    for (const option of optionsOf(spec.type).filter(({ prop }) => props[prop] !== undefined)) {
      const changed = diffInterface(spec, { ...row, [option.param]: undefined });
      expect(changed.state === 'present' ? Object.keys(changed.changes) : changed).toEqual([option.param]);
    }
  });

  test.each(SAMPLES)('%s: discover declares it with every field the node has', (_, props) => {
    const rows = liveRows(props);
    const found = pveDeclarations({ cluster: {}, networks: [{ node: 'n1', rows }] }, new Set());
    const declared = found.declarations.find((item) => item.key === `network-interface:n1:${String(props.iface)}`);
    const own = Object.entries(declared?.props ?? {}).filter(([prop]) => !CONSTRUCT_PROPS.includes(prop));
    expect(found.skipped).toEqual([]);
    expect(Object.fromEntries(own)).toEqual(canonical(props));
  });

  test('a value PVE writes for an option left out is stated once: API.md says the one the diff expects', () => {
    const defaults = documented('ProxmoxNetworkInterfaceProps');
    for (const option of NETWORK_OPTIONS) {
      const implied = option.implied({ iface: 'x9', options: { bridge_vlan_aware: true } });
      const said = /\(PVE uses ([^)]+)\)/.exec(defaults.get(option.prop) ?? '')?.[1];
      expect([option.prop, said]).toEqual([option.prop, implied === null ? undefined : [implied].flat().join(' ')]);
    }
  });

  test('the boundary refuses a spec path no field declares', () => {
    const [, props = {}] = SAMPLES[0] ?? [];
    const spec = { ...specOf(NETWORK_INTERFACE_FIELDS, props), extra: 1 };
    expect(() => parseAs(networkInterfaceSpec, spec, 'spec')).toThrow(
      'spec.extra: is not a field of a network interface spec',
    );
    const option = { ...spec, extra: undefined, options: { 'no-such': 1 } };
    expect(() => parseAs(networkInterfaceSpec, option, 'spec')).toThrow('spec.options.no-such: is not a field');
  });

  test('which types have a field is one rule: props and spec are refused in the same words', () => {
    const props = { node: 'n1', iface: 'vmbr1', type: 'bridge', vlanId: 3 };
    const atSynth = interfaceProblems(props).map(({ says }) => says);
    expect(atSynth).toEqual(['must be unset on a bridge (it is a vlan setting), got 3']);
    expect(() => specFor(props)).toThrow(`spec.options.vlan-id: ${atSynth[0] ?? ''}`);
  });
});
