/**
 * Synth-time rules for a network interface, from the field table plus the rules that span fields:
 * naming (PVE reads a bond's type and a VLAN's device from the name) and settings PVE writes only
 * in some modes. Each broken rule would otherwise stage, reload, and drift on every later plan.
 * Source: [PC] PVE/Network/Interfaces.pm read and write; [PM] PVE/API2/Network.pm.
 */
import {
  fieldsOf,
  IFACE_NAME,
  IFACE_RULE,
  NETWORK_FIELDS,
  fieldRuleBroken,
  toSpecValue,
  type InterfaceType,
} from './network-fields';
import { vlanFromName, type NetworkInterfaceSpec } from './network-interface';
import { NODE_NAME } from './upid';

/** `<prop> must be <rule>, got <value>`, as the construct reports it. */
export interface PropProblem {
  readonly prop: string;
  readonly rule: string;
  readonly value: unknown;
}

export type InterfaceProps = Readonly<Record<string, unknown>>;

/**
 * Every broken rule, in table order then cross-field. `skip` says which values are not known yet
 * (cdktf tokens) and so are not judged.
 */
export const interfaceProblems = (
  node: string,
  iface: string,
  type: InterfaceType,
  props: InterfaceProps,
  skip: (value: unknown) => boolean = () => false,
): PropProblem[] => {
  const problems: PropProblem[] = [];
  const broken = (ok: boolean, prop: string, rule: string, value: unknown) => {
    if (!ok && !skip(value)) problems.push({ prop, rule, value });
  };
  broken(NODE_NAME.test(node), 'node', 'a PVE node name (letters, digits, inner -)', node);
  broken(IFACE_NAME.test(iface), 'iface', IFACE_RULE, iface);
  const mine = new Set(fieldsOf(type).map((field) => field.prop));
  for (const field of NETWORK_FIELDS) {
    const value = props[field.prop];
    if (value === undefined) continue;
    const other = `unset on a ${type} (it is a ${field.types.join('/')} setting)`;
    const rule = mine.has(field.prop) ? fieldRuleBroken(field, value) : other;
    if (rule !== undefined) broken(false, field.prop, rule, value);
  }
  const rules = type === 'bridge' ? bridgeRules : type === 'vlan' ? vlanRules : bondRules;
  for (const problem of rules(iface, props)) broken(false, problem.prop, problem.rule, problem.value);
  return problems;
};

type Rules = (iface: string, props: InterfaceProps) => PropProblem[];

/** A problem unless `ok`. */
const unless = (ok: boolean, prop: string, rule: string, value: unknown): PropProblem[] =>
  ok ? [] : [{ prop, rule, value }];

// The writer emits bridge-vids only on a VLAN-aware bridge, so on any other it never reads back.
const bridgeRules: Rules = (_iface, { bridgeVids, bridgeVlanAware }) =>
  unless(
    bridgeVids === undefined || bridgeVlanAware === true,
    'bridgeVids',
    'unset unless bridgeVlanAware is true (PVE writes VLAN ids only then)',
    bridgeVids,
  );

// `<device>.<id>` and `vlan<id>` names carry the id (and device); the writer drops declared copies.
const vlanRules: Rules = (iface, { vlanId, vlanRawDevice }) => {
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
const bondRules: Rules = (iface, { bondMode = 'balance-rr', bondPrimary, bondXmitHashPolicy, slaves }) => [
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

/** The spec for valid props: declared fields by PVE parameter, in canonical form. */
export const interfaceSpec = (
  node: string,
  iface: string,
  type: InterfaceType,
  props: InterfaceProps,
): NetworkInterfaceSpec => {
  const options: Record<string, ReturnType<typeof toSpecValue>> = {};
  for (const field of fieldsOf(type)) {
    const value = props[field.prop];
    if (value !== undefined) options[field.param] = toSpecValue(field, value);
  }
  return { node, iface, type, options };
};
