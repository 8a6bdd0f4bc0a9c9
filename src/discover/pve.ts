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
  /** Each node's rows of `GET nodes/{node}/network`; undefined when not asked for. */
  readonly networks?: ReadonlyArray<{ readonly node: string; readonly rows: readonly unknown[] }>;
}

const CLUSTER = 'pve';

export const pveDeclarations = (live: LivePve, envNames: Set<string>): Discovered => {
  const servers = (live.metricServers ?? []).map((section) => metricServer(section, envNames));
  const interfaces = (live.networks ?? []).flatMap(({ node, rows }) => nodeInterfaces(node, rows));
  const found = [...servers, ...interfaces];
  const declarations = found.filter((item): item is Declaration => 'construct' in item);
  const cluster: Declaration = { key: CLUSTER, construct: 'ProxmoxCluster', id: 'pve', props: live.cluster };
  return {
    declarations: declarations.length === 0 ? [] : [cluster, ...declarations],
    skipped: found.filter((item): item is Skipped => 'why' in item),
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

/** The node's bridges, VLANs and bonds; its NICs and other types are not this library's. */
const nodeInterfaces = (node: string, rows: readonly unknown[]): Array<Declaration | Skipped> => {
  const managed = rows.filter(
    (row): row is Readonly<Record<string, unknown>> =>
      typeof row === 'object' &&
      row !== null &&
      (INTERFACE_TYPES as readonly unknown[]).includes((row as { type?: unknown }).type),
  );
  const declared = new Set(managed.map((row) => String(row.iface)));
  return managed.map((row) => networkInterface(node, row, rows, declared));
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
