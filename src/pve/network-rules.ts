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
    if (value === undefined || skip(value)) continue;
    if (!mine.has(field.prop))
      broken(false, field.prop, `unset on a ${type} (it is a ${field.types.join('/')} setting)`, value);
    else broken(fieldRuleBroken(field, value) === undefined, field.prop, fieldRuleBroken(field, value) ?? '', value);
  }
  const rules = type === 'bridge' ? bridgeRules : type === 'vlan' ? vlanRules : bondRules;
  for (const problem of rules(iface, props)) broken(false, problem.prop, problem.rule, problem.value);
  return problems;
};

type Rules = (iface: string, props: InterfaceProps) => PropProblem[];

// The writer emits bridge-vids only on a VLAN-aware bridge, so on any other it never reads back.
const bridgeRules: Rules = (_iface, props) =>
  props.bridgeVids !== undefined && props.bridgeVlanAware !== true
    ? [
        {
          prop: 'bridgeVids',
          rule: 'unset unless bridgeVlanAware is true (PVE writes VLAN ids only then)',
          value: props.bridgeVids,
        },
      ]
    : [];

const vlanRules: Rules = (iface, props) => {
  const problems: PropProblem[] = [];
  const fromName = vlanFromName(iface);
  const { vlanId, vlanRawDevice } = props;
  if (fromName.id !== undefined && (fromName.id < 1 || fromName.id > 4094)) {
    problems.push({ prop: 'iface', rule: 'a VLAN id from 1 to 4094 after the dot or "vlan"', value: iface });
  }
  if (fromName.id !== undefined && vlanId !== undefined && vlanId !== fromName.id) {
    problems.push({ prop: 'vlanId', rule: `unset or ${fromName.id}, the id in the name "${iface}"`, value: vlanId });
  }
  if (fromName.rawDevice !== undefined && vlanRawDevice !== undefined && vlanRawDevice !== fromName.rawDevice) {
    const rule = `unset or "${fromName.rawDevice}", the device in the name "${iface}"`;
    problems.push({ prop: 'vlanRawDevice', rule, value: vlanRawDevice });
  }
  if (fromName.rawDevice === undefined && vlanRawDevice === undefined) {
    problems.push({
      prop: 'vlanRawDevice',
      rule: `set when the name is not <device>.<id>, as "${iface}" is not`,
      value: undefined,
    });
  }
  if (fromName.id === undefined && vlanId === undefined) {
    problems.push({
      prop: 'vlanId',
      rule: `set when the name is neither <device>.<id> nor vlan<id>`,
      value: undefined,
    });
  }
  return problems;
};

// A bond's type is read from its name; bond-primary and the hash policy are written in some modes only.
const bondRules: Rules = (iface, props) => {
  const problems: PropProblem[] = [];
  const mode = props.bondMode ?? 'balance-rr';
  if (!/^bond\d+$/.test(iface))
    problems.push({ prop: 'iface', rule: 'bond<number> (PVE reads only those as bonds)', value: iface });
  if (props.bondPrimary !== undefined && mode !== 'active-backup') {
    problems.push({ prop: 'bondPrimary', rule: 'unset unless bondMode is active-backup', value: props.bondPrimary });
  }
  const slaves = Array.isArray(props.slaves) ? props.slaves : [];
  if (props.bondPrimary !== undefined && !slaves.includes(props.bondPrimary)) {
    problems.push({ prop: 'bondPrimary', rule: 'one of slaves', value: props.bondPrimary });
  }
  if (props.bondXmitHashPolicy !== undefined && mode !== 'balance-xor' && mode !== '802.3ad') {
    problems.push({
      prop: 'bondXmitHashPolicy',
      rule: 'unset unless bondMode is balance-xor or 802.3ad',
      value: props.bondXmitHashPolicy,
    });
  }
  return problems;
};

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
