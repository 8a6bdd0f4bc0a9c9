/**
 * A PVE cluster's live metric servers and node interfaces as declarations. Each is declared only
 * when its props hold the kind's own rules and the kind's own diff reads it in sync, so the
 * generated stack synthesizes and its first plan shows no change to what the objects do.
 */
import type * as z from 'zod/mini';
import { type Fields, propsOfSpec } from '../core/fields';
import { show } from '../core/errors';
import { isRecord } from '../core/records';
import { describeDiff } from '../core/protocol';
import {
  encodeBase64Json,
  METRIC_SERVER_FIELDS,
  METRIC_SERVER_TYPES,
  type MetricServerType,
  optionsOf,
} from '../pve/metric-fields';
import { diffMetricServer, type LiveSection, liveValue as metricValue, metricServerSpec } from '../pve/metric-server';
import {
  INTERFACE_TYPES,
  type InterfaceType,
  NETWORK_INTERFACE_FIELDS,
  optionsOf as interfaceOptions,
} from '../pve/network-fields';
import { networkInterfaceSpec } from '../pve/network-interface';
import { interfaceReading, liveValue as interfaceValue } from '../pve/network-interface-diff';
import {
  ADOPT,
  type Declaration,
  type Discovered,
  EnvName,
  isValue,
  Ref,
  type Skipped,
  type Value,
} from './declaration';
import { envVarName } from './literal';

export interface LivePve {
  /** The `ProxmoxCluster` props discover connected with. */
  readonly cluster: Readonly<Record<string, Value>>;
  /** Each metric server's section with its `id` (read-pve.ts reads only those with one); undefined if not asked. */
  readonly metricServers?: ReadonlyArray<LiveSection & { readonly id: string }>;
  /**
   * Each node's rows of `GET nodes/{node}/network`, and its address in `GET cluster/status` (undefined
   * when the row has none); undefined when not asked for.
   */
  readonly networks?: ReadonlyArray<{
    readonly node: string;
    readonly address?: string;
    readonly rows: readonly unknown[];
  }>;
}

const CLUSTER = 'pve';

/** What PVE objects cannot tell: whose they are. */
const NO_MARK =
  'PVE keeps no mark of ownership on a metric server or an interface (a stack owns them in its Terraform ' +
  'state), so those another stack manages are declared too: remove them from this stack by hand';

export const pveDeclarations = (
  live: LivePve,
  envNames: Set<string>,
  options: { readonly includeManagement?: boolean } = {},
): Discovered => {
  const servers = (live.metricServers ?? []).map((section) => metricServer(section, envNames));
  const networks = live.networks ?? [];
  const interfaces = networks.flatMap((network) => nodeInterfaces(network, options.includeManagement === true));
  const found = [...servers, ...interfaces];
  const declarations = found.filter((item): item is Declaration => 'construct' in item);
  const cluster: Declaration = { key: CLUSTER, construct: 'ProxmoxCluster', id: 'pve', props: live.cluster };
  const unknown = networks.filter((network) => network.address === undefined).map((network) => network.node);
  return {
    declarations: declarations.length === 0 ? [] : [cluster, ...declarations],
    skipped: found.filter((item): item is Skipped => 'why' in item),
    notes: [
      ...(declarations.length === 0 ? [] : [NO_MARK]),
      ...(unknown.length === 0 || options.includeManagement === true
        ? []
        : [`cluster/status gave no address for ${unknown.join(', ')}: its management interface was not told apart`]),
    ],
  };
};

/** The spec a live section reads as, by the declaration: each field the type has, in the spec's terms. */
const liveSpec = (
  section: LiveSection & { readonly id: string },
  type: MetricServerType,
  envName: (prop: string) => string,
) => {
  const spec = new Map<string, unknown>([
    ['id', section.id],
    ['type', type],
    ['server', section.server],
    ['port', metricValue('int', section.port)],
  ]);
  const options = new Map<string, unknown>();
  for (const field of optionsOf(type)) {
    const value = metricValue(field.form, section[field.param]);
    if (value !== null) options.set(field.param, field.form === 'base64-json' ? encodeBase64Json(value) : value);
  }
  spec.set('options', Object.fromEntries(options));
  const token = type === 'influxdb' && ['http', 'https'].includes(String(section.influxdbproto ?? ''));
  if (token) spec.set('tokenEnv', envName('token'));
  const headers = typeof section['otel-headers'] === 'string' && section['otel-headers'] !== '';
  if (headers) spec.set('otelHeadersEnv', envName('otel-headers'));
  return Object.fromEntries(spec);
};

/** A live metric server as a `ProxmoxMetricServer`: its props are the declaration's fields read back from a spec. */
const metricServer = (section: LiveSection & { readonly id: string }, envNames: Set<string>): Declaration | Skipped => {
  const { id } = section;
  const what = `metric server "${id}"`;
  const type = METRIC_SERVER_TYPES.find((known) => known === section.type);
  if (type === undefined)
    return { what, why: `its type ${JSON.stringify(section.type)} is not one this library manages` };
  const envName = (secret: string) => envVarName(['pve', 'metric', id, ...secret.split('-')], envNames);
  const parsed = metricServerSpec.safeParse(liveSpec(section, type, envName));
  if (!parsed.success) return { what, why: issuesOf(parsed.error) };
  const spec = parsed.data;
  const secrets = spec.otelHeadersEnv === undefined ? {} : { otelHeaders: String(section['otel-headers']) };
  const state = diffMetricServer(spec, section, secrets);
  if (state.state !== 'present' || Object.keys(state.changes).length > 0) {
    return {
      what,
      why: `it would not read in sync: ${state.state === 'present' ? describeDiff(state.changes) : state.state}`,
    };
  }
  const props = { cluster: new Ref(CLUSTER), ...declaredProps(METRIC_SERVER_FIELDS, spec), ...ADOPT };
  return { key: `metric-server:${id}`, construct: 'ProxmoxMetricServer', id, props };
};

/** What the boundary refused in a spec read from the target, one `path says` a problem. */
const issuesOf = (error: z.core.$ZodError): string =>
  error.issues.map((issue) => `${issue.path.join('.')} ${issue.message}`).join('; ');

/** The props a spec says, by the kind's declaration: a field naming a secret's variable as an `EnvName`. */
const declaredProps = (fields: Fields, spec: Readonly<Record<string, unknown>>): Record<string, Value> => {
  const props: Record<string, Value> = {};
  for (const [prop, value] of Object.entries(propsOfSpec(fields, spec).props)) {
    const secret = fields[prop]?.secret;
    if (secret !== undefined && typeof value === 'string') props[prop] = new EnvName(value, secret);
    else if (isValue(value)) props[prop] = value;
  }
  return props;
};

/**
 * The node's bridges, VLANs and bonds; its NICs and other types are not this library's. Its management
 * interface, and what that rests on, are left out unless `includeManagement`.
 */
const nodeInterfaces = (
  network: NonNullable<LivePve['networks']>[number],
  includeManagement: boolean,
): Array<Declaration | Skipped> => {
  const { node, rows } = network;
  const typed = rows.filter(isRecord).flatMap((row) => {
    const type = INTERFACE_TYPES.find((known) => known === row.type);
    return type === undefined ? [] : [{ row, type }];
  });
  const management = includeManagement ? new Map<string, string>() : managementInterfaces(network);
  const declared = new Set(
    typed.flatMap(({ row }) => (typeof row.iface === 'string' && !management.has(row.iface) ? [row.iface] : [])),
  );
  return typed.map(({ row, type }) => {
    if (typeof row.iface !== 'string')
      return { what: `an interface without a name on ${node}`, why: noName(row.iface) };
    const why = management.get(row.iface);
    if (why === undefined) return networkInterface(node, { row, type, iface: row.iface }, rows, declared);
    return { what: `interface ${row.iface} on ${node}`, why, group: 'management' };
  });
};

/** Why a row without a textual `iface` is left out: a declaration names the interface, and the read finds it by it. */
const noName = (iface: unknown): string =>
  iface === undefined
    ? 'its row holds no name (iface), which an interface is declared and found by'
    : `its row's name (iface) is ${show(iface)}, not text, and an interface is declared and found by its name`;

/** An address as one text per address: IPv6 in its canonical form, the prefix length dropped. */
const canonicalAddress = (text: unknown): string | undefined => {
  if (typeof text !== 'string' || text === '') return undefined;
  const address = text.replace(/\/\d+$/, '');
  if (!address.includes(':')) return address;
  try {
    return new URL(`http://[${address}]/`).hostname;
  } catch {
    return address.toLowerCase();
  }
};

/**
 * The interfaces that carry the node's cluster address, and those they rest on (a bridge's ports, a
 * bond's slaves, a VLAN's raw device), by name, each with why it is left out.
 */
export const managementInterfaces = (network: {
  readonly node: string;
  readonly address?: string;
  readonly rows: readonly unknown[];
}): Map<string, string> => {
  const address = canonicalAddress(network.address);
  const rows = network.rows.filter(isRecord);
  const found = new Map<string, string>();
  if (address === undefined) return found;
  const byName = new Map(rows.flatMap((row) => (typeof row.iface === 'string' ? [[row.iface, row] as const] : [])));
  // `iface` is undefined for a row without a name, which carries the address yet cannot be left out by name.
  const under = (row: Readonly<Record<string, unknown>>, iface: string | undefined, carrier: string | undefined) => {
    if (iface !== undefined) {
      if (found.has(iface)) return;
      found.set(
        iface,
        iface === carrier
          ? `it carries ${network.address ?? ''}, ${network.node}'s address in cluster/status`
          : `under ${carrier ?? 'an interface without a name'}, the node's management interface`,
      );
    }
    const raw = row['vlan-raw-device'] ?? (row.type === 'vlan' ? iface?.replace(/\.\d+$/, '') : undefined);
    const below = [row.bridge_ports, row.slaves, raw].flatMap((names) =>
      typeof names === 'string' ? names.split(/\s+/) : [],
    );
    for (const name of below.filter((name) => name !== '' && name !== iface)) {
      const next = byName.get(name);
      if (next !== undefined) under(next, name, carrier);
    }
  };
  for (const row of rows) {
    const carried = ['cidr', 'address', 'cidr6', 'address6'].some((field) => canonicalAddress(row[field]) === address);
    const iface = typeof row.iface === 'string' ? row.iface : undefined;
    if (carried) under(row, iface, iface);
  }
  return found;
};

/** A node's row of one of the types this library manages. */
interface InterfaceRow {
  readonly row: Readonly<Record<string, unknown>>;
  readonly type: InterfaceType;
  readonly iface: string;
}

/** The spec a node's row reads as, by the declaration: each option the type has, in the spec's terms. */
const rowSpec = (node: string, { row, type, iface }: InterfaceRow) => {
  const options = new Map<string, unknown>();
  for (const option of interfaceOptions(type)) {
    const value = interfaceValue(option, row[option.param]);
    if (value !== null && value !== false) options.set(option.param, value);
  }
  return { node, iface, type, options: Object.fromEntries(options) };
};

/** A live interface as a `ProxmoxNetworkInterface`: its props are the declaration's fields read back from a spec. */
const networkInterface = (
  node: string,
  live: InterfaceRow,
  rows: readonly unknown[],
  declared: ReadonlySet<string>,
): Declaration | Skipped => {
  const { iface } = live;
  const what = `interface ${iface} on ${node}`;
  const parsed = networkInterfaceSpec.safeParse(rowSpec(node, live));
  if (!parsed.success) return { what, why: issuesOf(parsed.error) };
  const reading = interfaceReading(parsed.data, rows, declared);
  if (!reading.inSync) return { what, why: `it would not read in sync: ${reading.summary}` };
  return {
    key: `network-interface:${node}:${iface}`,
    construct: 'ProxmoxNetworkInterface',
    id: `${iface}-${node}`,
    props: { cluster: new Ref(CLUSTER), ...declaredProps(NETWORK_INTERFACE_FIELDS, parsed.data), ...ADOPT },
  };
};
