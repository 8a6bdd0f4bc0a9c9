/**
 * A network interface, defined once: its props table and the rules across props (judged at synth
 * and again at the handler boundary), its spec and identity. The rules across props hold naming
 * (PVE reads a bond's type and a VLAN's device from the name) and settings PVE writes only in some
 * modes: each broken rule would otherwise stage, reload, and drift on every later plan.
 * Source: [PC] PVE/Network/Interfaces.pm read and write; [PM] PVE/API2/Network.pm.
 */
import * as z from 'zod/mini';
import { type PropTable, propProblems, specCheck } from '../core/definition';
import { groupOf } from '../core/errors';
import { broken, oneOf, type Problem, text } from '../core/rules';
import {
  fieldsOf,
  IFACE_NAME,
  IFACE_RULE,
  INTERFACE_TYPES,
  type InterfaceType,
  NETWORK_FIELDS,
  ruleOf,
  type SpecValue,
  toSpecValue,
} from './network-fields';
import { NODE_NAME } from './upid';

/** The spec a `ProxmoxNetworkInterface` synthesizes: identity plus declared fields by PVE name. */
export interface NetworkInterfaceSpec {
  readonly node: string;
  readonly iface: string;
  readonly type: InterfaceType;
  readonly options: Readonly<Record<string, SpecValue>>;
}

/** What names an interface, with its rules. */
const NAMES = {
  node: { rule: text('a PVE node name (letters, digits, inner -)', NODE_NAME), required: true },
  iface: { rule: text(IFACE_RULE, IFACE_NAME), required: true },
  type: { rule: oneOf(INTERFACE_TYPES), required: true },
} as const satisfies PropTable;

/** Every prop of `ProxmoxNetworkInterface` of its own (the cluster is the construct's). */
export const NETWORK_INTERFACE_PROPS: PropTable = {
  ...NAMES,
  ...Object.fromEntries(NETWORK_FIELDS.map((field) => [field.prop, { rule: ruleOf(field) }])),
};

type Props = Readonly<Record<string, unknown>>;

/** A rule across props that does not hold: the prop it names and the value it got. */
interface Unheld {
  readonly prop: string;
  readonly rule: string;
  readonly value: unknown;
}

/**
 * The rules across props: no field of another type, then the type's naming and mode rules, each
 * over a value that holds its own rule. A rule is not judged over a value `known` says is not known
 * yet (a cdktf token): the handler judges it.
 */
export const interfaceRules = (props: Props, known: (value: unknown) => boolean = () => true): Problem[] => {
  const { type, iface } = props;
  if (!isInterfaceType(type)) return [];
  const mine = new Set<string>(fieldsOf(type).map((field) => field.prop));
  const unheld: Unheld[] = NETWORK_FIELDS.filter(
    (field) => props[field.prop] !== undefined && !mine.has(field.prop),
  ).map((field) => ({
    prop: field.prop,
    rule: `unset on a ${type} (it is a ${field.types.join('/')} setting)`,
    value: props[field.prop],
  }));
  if (typeof iface === 'string' && known(iface)) unheld.push(...TYPE_RULES[type](iface, props).filter(holdsOwn));
  return unheld.filter(({ value }) => known(value)).map(({ prop, rule, value }) => broken(prop, rule, value));
};

/** Every broken rule of the props of an interface (the cluster aside): the table's, then across. */
export const interfaceProblems = (props: Props, known?: (value: unknown) => boolean): Problem[] => [
  ...propProblems('ProxmoxNetworkInterface', NETWORK_INTERFACE_PROPS, props, known),
  ...interfaceRules(props, known),
];

const holdsOwn = ({ prop, value }: Unheld): boolean =>
  value === undefined || NETWORK_INTERFACE_PROPS[prop]?.rule(value) === undefined;

const isInterfaceType = (value: unknown): value is InterfaceType => INTERFACE_TYPES.some((type) => type === value);

/** A VLAN named `<raw>.<id>` or `vlan<id>` gets those from its name; the writer drops declared copies. */
export const vlanFromName = (iface: string): { rawDevice?: string; id?: number } => {
  const dotted = /^(.+)\.(\d+)$/.exec(iface);
  if (dotted) return { rawDevice: groupOf(dotted, 1), id: Number(dotted[2]) };
  const numbered = /^vlan(\d+)$/.exec(iface);
  return numbered ? { id: Number(numbered[1]) } : {};
};

/** A rule that does not hold unless `ok`. */
const unless = (ok: boolean, prop: string, rule: string, value: unknown): Unheld[] =>
  ok ? [] : [{ prop, rule, value }];

// The writer emits bridge-vids only on a VLAN-aware bridge, so on any other it never reads back.
const bridgeRules = (_iface: string, { bridgeVids, bridgeVlanAware }: Props): Unheld[] =>
  unless(
    bridgeVids === undefined || bridgeVlanAware === true,
    'bridgeVids',
    'unset unless bridgeVlanAware is true (PVE writes VLAN ids only then)',
    bridgeVids,
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
  { bondMode = 'balance-rr', bondPrimary, bondXmitHashPolicy, slaves }: Props,
): Unheld[] => [
  ...unless(/^bond\d+$/.test(iface), 'iface', 'bond<number> (PVE reads only those as bonds)', iface),
  ...unless(
    bondPrimary === undefined || bondMode === 'active-backup',
    'bondPrimary',
    'unset unless bondMode is active-backup',
    bondPrimary,
  ),
  ...unless(
    bondPrimary === undefined || (Array.isArray(slaves) && slaves.includes(bondPrimary)),
    'bondPrimary',
    'one of slaves',
    bondPrimary,
  ),
  ...unless(
    bondXmitHashPolicy === undefined || bondMode === 'balance-xor' || bondMode === '802.3ad',
    'bondXmitHashPolicy',
    'unset unless bondMode is balance-xor or 802.3ad',
    bondXmitHashPolicy,
  ),
];

const TYPE_RULES = { bridge: bridgeRules, vlan: vlanRules, bond: bondRules } as const;

/** The spec for valid props: declared fields by PVE parameter, in canonical form. */
export const interfaceSpec = (node: string, iface: string, type: InterfaceType, props: Props): NetworkInterfaceSpec => {
  const options: Record<string, SpecValue> = {};
  for (const field of fieldsOf(type)) {
    const value = props[field.prop];
    if (value !== undefined) options[field.param] = toSpecValue(field, value);
  }
  return { node, iface, type, options };
};

/**
 * What the handler boundary judges: the spec's options back as props, by the props' rules, each
 * problem at the spec's own path (`options.vlan-id`); a parameter no interface has is refused too.
 */
const specProblems = (spec: NetworkInterfaceSpec): Problem[] => {
  const { options, ...names } = spec;
  const props: Record<string, unknown> = { ...names };
  const unknown: Problem[] = [];
  for (const [param, value] of Object.entries(options)) {
    const field = NETWORK_FIELDS.find((candidate) => candidate.param === param);
    if (field !== undefined) props[field.prop] = value;
    else unknown.push(broken(`options.${param}`, `a field a ${spec.type} has (${paramsOf(spec.type)})`, value));
  }
  const pathOf = (prop: string) => {
    const field = NETWORK_FIELDS.find((candidate) => candidate.prop === prop);
    return field === undefined ? prop : `options.${field.param}`;
  };
  return [...interfaceProblems(props).map((problem) => ({ ...problem, prop: pathOf(problem.prop) })), ...unknown];
};

const paramsOf = (type: InterfaceType): string =>
  fieldsOf(type)
    .map((field) => field.param)
    .join(', ');

/** A declared field's value as the spec carries it: flags, numbers, text, sorted name lists. */
const specValue = z.union([z.string(), z.number(), z.boolean(), z.array(z.string())]);

/** What a `ProxmoxNetworkInterface` synthesizes, judged by the props' rules at the handler boundary. */
export const networkInterfaceSpec = z
  .object({
    node: z.string(),
    iface: z.string(),
    type: z.enum(INTERFACE_TYPES),
    options: z.record(z.string(), specValue),
  })
  .check(specCheck(specProblems));

/** What names an interface: all that destroy gets. The type is in it because PUT cannot change one. */
export const networkInterfaceIdentity = z
  .object({ node: z.string(), iface: z.string(), type: z.enum(INTERFACE_TYPES) })
  .check(specCheck((identity) => propProblems('a network interface identity', NAMES, identity)));
export type NetworkInterfaceIdentity = z.infer<typeof networkInterfaceIdentity>;
