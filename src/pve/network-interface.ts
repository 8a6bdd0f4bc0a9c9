/**
 * A network interface's rules across fields and its boundary: the fields themselves are declared once in
 * network-fields.ts. The rules across fields hold naming (PVE reads a bond's type and a VLAN's device from the
 * name) and settings PVE writes only in some modes: each broken rule would otherwise stage, reload, and drift
 * on every later plan. Judged at synth over props and at the handler boundary over the spec's props alike.
 * Source: [PC] PVE/Network/Interfaces.pm read and write; [PM] PVE/API2/Network.pm.
 */
import * as z from 'zod/mini';
import { propProblems, specCheck } from '../core/definition';
import { specSchema } from '../core/fields';
import { broken, type Problem, type Rule } from '../core/rules';
import {
  DEFAULT_BOND_MODE,
  INTERFACE_TYPES,
  NETWORK_INTERFACE_FIELDS,
  NETWORK_OPTIONS,
  vlanFromName,
} from './network-fields';

type Props = Readonly<Record<string, unknown>>;

/** A rule across props that does not hold: the prop it names, the value it got and the other values it read. */
interface Unheld {
  readonly prop: string;
  readonly rule: string;
  readonly value: unknown;
  readonly reads?: readonly unknown[];
}

/**
 * The rules across props: no field of another type (each field says which types have it), then the type's
 * naming and mode rules, each over a value that holds its own rule. A rule is not judged where its value, or a
 * value it reads, is not `known` yet (a cdktf token): the handler judges it.
 */
export const interfaceRules = (props: Props, known: (value: unknown) => boolean = () => true): Problem[] => {
  const type = INTERFACE_TYPES.find((candidate) => candidate === props.type);
  if (type === undefined) return [];
  const unheld: Unheld[] = NETWORK_OPTIONS.filter(
    (option) => props[option.prop] !== undefined && !option.types.includes(type),
  ).map((option) => ({
    prop: option.prop,
    rule: `unset on a ${type} (it is a ${option.types.join('/')} setting)`,
    value: props[option.prop],
  }));
  const { iface } = props;
  if (typeof iface === 'string' && known(iface)) unheld.push(...TYPE_RULES[type](iface, props).filter(holdsOwn));
  return unheld
    .filter(({ value, reads = [] }) => known(value) && reads.every(known))
    .map(({ prop, rule, value }) => broken(prop, rule, value));
};

/** Every broken rule of the props of an interface (the cluster aside): each field's, then across. */
export const interfaceProblems = (props: Props, known?: (value: unknown) => boolean): Problem[] => [
  ...propProblems('ProxmoxNetworkInterface', NETWORK_INTERFACE_FIELDS, props, known),
  ...interfaceRules(props, known),
];

const RULES: ReadonlyMap<string, Rule> = new Map(
  Object.entries(NETWORK_INTERFACE_FIELDS).map(([prop, field]) => [prop, field.rule]),
);

const holdsOwn = ({ prop, value }: Unheld): boolean => value === undefined || RULES.get(prop)?.(value) === undefined;

/** A rule that does not hold unless `ok`, which read `reads` besides `value`. */
const unless = (ok: boolean, prop: string, rule: string, value: unknown, reads: readonly unknown[] = []): Unheld[] =>
  ok ? [] : [{ prop, rule, value, reads }];

// The writer emits bridge-vids only on a VLAN-aware bridge, so on any other it never reads back.
const bridgeRules = (_iface: string, { bridgeVids, bridgeVlanAware }: Props): Unheld[] =>
  unless(
    bridgeVids === undefined || bridgeVlanAware === true,
    'bridgeVids',
    'unset unless bridgeVlanAware is true (PVE writes VLAN ids only then)',
    bridgeVids,
    [bridgeVlanAware],
  );

// `<device>.<id>` and `vlan<id>` names carry the id (and device); the writer drops declared copies.
const vlanRules = (iface: string, { vlanId, vlanRawDevice }: Props): Unheld[] => {
  const { id, rawDevice } = vlanFromName(iface);
  const named = `the name "${iface}"`;
  return [
    ...unless(id === undefined || (id >= 1 && id <= 4094), 'iface', 'a VLAN id from 1 to 4094 in the name', iface),
    ...unless(
      id === undefined || vlanId === undefined || vlanId === id,
      'vlanId',
      `unset or ${id}, the id in ${named}`,
      vlanId,
    ),
    ...unless(
      rawDevice === undefined || vlanRawDevice === undefined || vlanRawDevice === rawDevice,
      'vlanRawDevice',
      `unset or "${rawDevice}", the device in ${named}`,
      vlanRawDevice,
    ),
    ...unless(
      rawDevice !== undefined || vlanRawDevice !== undefined,
      'vlanRawDevice',
      'set unless the name is <device>.<id>',
      undefined,
    ),
    ...unless(
      id !== undefined || vlanId !== undefined,
      'vlanId',
      'set unless the name is <device>.<id> or vlan<id>',
      undefined,
    ),
  ];
};

// A bond's type is read from its name; bond-primary and the hash policy are written in some modes only.
const bondRules = (
  iface: string,
  { bondMode = DEFAULT_BOND_MODE, bondPrimary, bondXmitHashPolicy, slaves }: Props,
): Unheld[] => [
  ...unless(/^bond\d+$/.test(iface), 'iface', 'bond<number> (PVE reads only those as bonds)', iface),
  ...unless(
    bondPrimary === undefined || bondMode === 'active-backup',
    'bondPrimary',
    'unset unless bondMode is active-backup',
    bondPrimary,
    [bondMode],
  ),
  ...unless(
    bondPrimary === undefined || (Array.isArray(slaves) && slaves.includes(bondPrimary)),
    'bondPrimary',
    'one of slaves',
    bondPrimary,
    [slaves],
  ),
  ...unless(
    bondXmitHashPolicy === undefined || bondMode === 'balance-xor' || bondMode === '802.3ad',
    'bondXmitHashPolicy',
    'unset unless bondMode is balance-xor or 802.3ad',
    bondXmitHashPolicy,
    [bondMode],
  ),
];

const TYPE_RULES = { bridge: bridgeRules, vlan: vlanRules, bond: bondRules } as const;

/** What a `ProxmoxNetworkInterface` synthesizes, judged by the props' rules at the handler boundary. */
export const networkInterfaceSpec = specSchema(NETWORK_INTERFACE_FIELDS, 'a network interface spec', interfaceRules);

/** The spec: identity plus declared fields by PVE name, in canonical form (sorted names, VLAN ids as text). */
export type NetworkInterfaceSpec = z.infer<typeof networkInterfaceSpec>;

const { node, iface, type } = NETWORK_INTERFACE_FIELDS;

/** What names an interface: all that destroy gets. The type is in it because PUT cannot change one. */
export const networkInterfaceIdentity = z
  .object({ node: z.string(), iface: z.string(), type: z.enum(INTERFACE_TYPES) })
  .check(specCheck((identity) => propProblems('a network interface identity', { node, iface, type }, identity)));
export type NetworkInterfaceIdentity = z.infer<typeof networkInterfaceIdentity>;
