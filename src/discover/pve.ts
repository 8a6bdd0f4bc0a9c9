/**
 * A PVE cluster's live metric servers and node interfaces as declarations. Each is declared only
 * when its props hold the kind's own rules and the kind's own diff reads it in sync, so the
 * generated stack synthesizes and its first plan shows no change to what the objects do.
 */
import { propProblems } from '../core/definition';
import { describeDiff } from '../core/protocol';
import { describeProblems } from '../core/rules';
import { encodeBase64Json, fieldsOf, METRIC_SERVER_TYPES } from '../pve/metric-fields';
import {
  diffMetricServer,
  type LiveSection,
  liveValue as metricValue,
  METRIC_SERVER_PROPS,
  metricServerRules,
  type MetricServerSpec,
} from '../pve/metric-server';
import { fieldsOf as interfaceFields, INTERFACE_TYPES, type InterfaceType } from '../pve/network-fields';
import { interfaceProblems, interfaceSpec } from '../pve/network-interface';
import { interfaceReading, liveValue as interfaceValue } from '../pve/network-interface-diff';
import {
  ADOPT,
  type Declaration,
  defined,
  type Discovered,
  EnvName,
  Ref,
  type Skipped,
  type Value,
} from './declaration';
import { envVarName } from './literal';

export interface LivePve {
  /** The `ProxmoxCluster` props discover connected with. */
  readonly cluster: Readonly<Record<string, Value>>;
  /** Each metric server's section, with its `id`; undefined when not asked for. */
  readonly metricServers?: readonly LiveSection[];
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

const metricServer = (section: LiveSection, envNames: Set<string>): Declaration | Skipped => {
  const id = String(section.id);
  const what = `metric server "${id}"`;
  const type = METRIC_SERVER_TYPES.find((known) => known === section.type);
  if (type === undefined)
    return { what, why: `its type ${JSON.stringify(section.type)} is not one this library manages` };
  const options: Record<string, Value> = {};
  const props: Record<string, Value | undefined> = {
    id,
    type,
    server: section.server as Value,
    port: asNumber(section.port),
  };
  for (const field of fieldsOf(type)) {
    const value = metricValue(field, section[field.param]);
    if (value === null) continue;
    props[field.prop] = value as Value;
    options[field.param] = field.kind === 'base64-json' ? encodeBase64Json(value) : (value as Value);
  }
  const token = type === 'influxdb' && ['http', 'https'].includes(String(props.influxdbproto ?? ''));
  if (token) props.tokenEnv = envVarName(['pve', 'metric', id, 'token'], envNames);
  const headers = typeof section['otel-headers'] === 'string' && section['otel-headers'] !== '';
  if (headers) props.otelHeadersEnv = envVarName(['pve', 'metric', id, 'otel', 'headers'], envNames);
  const own = defined(props);
  const problems = [...propProblems('ProxmoxMetricServer', METRIC_SERVER_PROPS, own), ...metricServerRules(own)];
  if (problems.length > 0) return { what, why: describeProblems(problems) };
  const spec = { id, type, server: own.server, port: own.port, options } as MetricServerSpec;
  const secrets = headers ? { otelHeaders: String(section['otel-headers']) } : {};
  const state = diffMetricServer(spec, section, secrets);
  if (state.state !== 'present' || Object.keys(state.changes).length > 0) {
    return {
      what,
      why: `it would not read in sync: ${state.state === 'present' ? describeDiff(state.changes) : state.state}`,
    };
  }
  return {
    key: `metric-server:${id}`,
    construct: 'ProxmoxMetricServer',
    id,
    props: {
      cluster: new Ref(CLUSTER),
      ...own,
      ...(token
        ? {
            tokenEnv: new EnvName(
              String(own.tokenEnv),
              'the InfluxDB token: write-only on PVE, never read; each apply of this server sends it',
            ),
          }
        : {}),
      ...(headers
        ? {
            otelHeadersEnv: new EnvName(
              String(own.otelHeadersEnv),
              'the headers as JSON, as the cluster has them (never written here): the plan compares them',
            ),
          }
        : {}),
      ...ADOPT,
    },
  };
};

const asNumber = (value: unknown): Value | undefined => {
  const number = typeof value === 'string' && /^\d+$/.test(value) ? Number(value) : value;
  return typeof number === 'number' ? number : (value as Value | undefined);
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
  const managed = rows.filter(
    (row): row is Readonly<Record<string, unknown>> =>
      typeof row === 'object' &&
      row !== null &&
      (INTERFACE_TYPES as readonly unknown[]).includes((row as { type?: unknown }).type),
  );
  const management = includeManagement ? new Map<string, string>() : managementInterfaces(network);
  const declared = new Set(managed.map((row) => String(row.iface)).filter((iface) => !management.has(iface)));
  return managed.map((row) => {
    const why = management.get(String(row.iface));
    if (why === undefined) return networkInterface(node, row, rows, declared);
    return { what: `interface ${String(row.iface)} on ${node}`, why, group: 'management' };
  });
};

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
  const rows = network.rows.filter((row): row is Record<string, unknown> => typeof row === 'object' && row !== null);
  const found = new Map<string, string>();
  if (address === undefined) return found;
  const byName = new Map(rows.map((row) => [String(row.iface), row]));
  const under = (iface: string, carrier: string) => {
    const row = byName.get(iface);
    if (row === undefined || found.has(iface)) return;
    found.set(
      iface,
      iface === carrier
        ? `it carries ${network.address ?? ''}, ${network.node}'s address in cluster/status`
        : `under ${carrier}, the node's management interface`,
    );
    const raw = row['vlan-raw-device'] ?? (row.type === 'vlan' ? iface.replace(/\.\d+$/, '') : undefined);
    const below = [row.bridge_ports, row.slaves, raw].flatMap((names) =>
      typeof names === 'string' ? names.split(/\s+/) : [],
    );
    for (const name of below.filter((name) => name !== '' && name !== iface)) under(name, carrier);
  };
  for (const row of rows) {
    const carried = ['cidr', 'address', 'cidr6', 'address6'].some((field) => canonicalAddress(row[field]) === address);
    if (carried) under(String(row.iface), String(row.iface));
  }
  return found;
};

const networkInterface = (
  node: string,
  row: Readonly<Record<string, unknown>>,
  rows: readonly unknown[],
  declared: ReadonlySet<string>,
): Declaration | Skipped => {
  const iface = String(row.iface);
  const type = row.type as InterfaceType;
  const what = `interface ${iface} on ${node}`;
  const props: Record<string, Value> = { node, iface, type };
  for (const field of interfaceFields(type)) {
    const value = interfaceValue(field, row[field.param]);
    if (value !== null && value !== false) props[field.prop] = value as Value;
  }
  const problems = interfaceProblems(props);
  if (problems.length > 0) return { what, why: describeProblems(problems) };
  const reading = interfaceReading(interfaceSpec(node, iface, type, props), rows, declared);
  if (!reading.inSync) return { what, why: `it would not read in sync: ${reading.summary}` };
  return {
    key: `network-interface:${node}:${iface}`,
    construct: 'ProxmoxNetworkInterface',
    id: `${iface}-${node}`,
    props: { cluster: new Ref(CLUSTER), ...props, ...ADOPT },
  };
};
