/**
 * What PVE's network API refuses before its writer runs: a stage (POST or PUT) that sends a default gateway while
 * another interface of the node holds one of that family, or a bridge port or bond slave another interface already
 * lists. A plan that read such an interface as only absent or changed promised an apply that failed on PVE's 400;
 * this reads them so the plan and the apply both refuse first, in the same words, and so the staging order lets go
 * before it takes. Source: [PM] 14a22df PVE/API2/Network.pm:517-565 (check_duplicate, check_duplicate_ports), run
 * by create_network (:652-657) and update_network (:769-774) over the node's whole file, the staged one when there is.
 */
import type { NodeView } from './interface-mtu';

/** The gateway keys PVE keeps one of per node, with the words of its refusal. */
const GATEWAYS = [
  ['gateway', 'Default gateway'],
  ['gateway6', 'Default ipv6 gateway'],
] as const;

/** The keys whose names PVE's check_duplicate_ports reads, and what a stack calls each name. */
const PORTS = [
  ['bridge_ports', 'bridge port'],
  ['ovs_ports', 'port'],
  ['slaves', 'bond slave'],
  ['ovs_bonds', 'bond'],
] as const;

/** What `uniqueRefusals` reads of a stage: the spec staged (`specOf`'s shape). */
export interface UniqueSpec {
  readonly node: string;
  readonly iface: string;
  readonly options: Readonly<Record<string, unknown>>;
}

/** Perl truth of a value PVE checks with `if $param->{gateway}`: set and neither '' nor '0'. */
const isSet = (value: unknown): boolean => value !== undefined && value !== null && value !== '' && value !== '0';

/** Names as a spec (a list) or a GET row (`"eno1 eno2"`) holds them, split as PVE's split_list does. */
const namesIn = (value: unknown): string[] => {
  if (Array.isArray(value)) return value.filter((item): item is string => typeof item === 'string');
  return typeof value === 'string' ? value.split(/[\s,;]+/).filter(Boolean) : [];
};

/**
 * `interface vmbr1 on n2 sends gateway, but …: Default gateway already exists on interface 'vmbr0'` and `interface
 * vmbr1 on n2 sends bridge port eno1, which is already used on interface 'vmbr0'`, for each refusal staging `spec`
 * meets over `view` (the node before that stage; the spec's own row is never its rival).
 */
export const uniqueRefusals = (view: NodeView, spec: UniqueSpec): string[] => {
  const name = `interface ${spec.iface} on ${spec.node}`;
  const others = [...view.values()].filter((other) => other.iface !== spec.iface);
  const gateways = GATEWAYS.flatMap(([key, label]) => {
    const holder = isSet(spec.options[key]) ? others.find((other) => isSet(other.options[key])) : undefined;
    if (holder === undefined) return [];
    const rule = 'PVE keeps one default gateway of each family per node';
    return [`${name} sends ${key}, but ${rule}: ${label} already exists on interface '${holder.iface}'`];
  });
  const ports = PORTS.flatMap(([key, role]) =>
    namesIn(spec.options[key]).flatMap((port) => {
      const holder = others.find((other) => PORTS.some(([list]) => namesIn(other.options[list]).includes(port)));
      return holder === undefined
        ? []
        : [`${name} sends ${role} ${port}, which is already used on interface '${holder.iface}'`];
    }),
  );
  return [...gateways, ...ports];
};
