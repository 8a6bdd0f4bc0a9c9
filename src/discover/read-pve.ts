/**
 * Reads a PVE cluster for discover, with the handlers' client (the same failover, TLS rules and
 * token variable): the metric servers, and each node's interfaces. It only ever sends GETs.
 */
import { withDefaults } from '../core/definition';
import { parseAs } from '../core/parse';
import { mapConcurrent } from '../core/pool';
import { isRecord } from '../core/records';
import { PveClient } from '../pve/client';
import type { LiveSection } from '../pve/metric-server';
import { CLUSTER_PROPS, pveTargetSchema, targetFor } from '../pve/target';
import type { Value } from './declaration';
import type { DiscoverOptions } from './options';
import type { LivePve } from './pve';

/** Section and node reads in flight at once, as the metric-server kind's fetch does. */
const PARALLEL = 8;

export const readPve = async (options: DiscoverOptions, props: Readonly<Record<string, Value>>): Promise<LivePve> => {
  const target = parseAs(pveTargetSchema, withDefaults(CLUSTER_PROPS, props), 'target');
  // Discover only reads: it needs the read token alone when the cluster has one.
  const api = new PveClient(targetFor(target, 'read'));
  try {
    const metricServers = options.kinds.has('metric-server') ? await readMetricServers(api) : undefined;
    const networks = options.kinds.has('network-interface') ? await readNetworks(api, options.nodes) : undefined;
    return {
      cluster: props,
      ...(metricServers && { metricServers }),
      ...(networks && { networks }),
    };
  } finally {
    await api.close();
  }
};

/** An answer's list, checked: PVE answers are read as they come, never assumed. */
const listOf = (answer: unknown): readonly unknown[] => (Array.isArray(answer) ? answer : []);

const readMetricServers = async (api: PveClient): Promise<Array<LiveSection & { readonly id: string }>> => {
  const listed: unknown = await api.call('GET', 'cluster/metrics/server');
  // Each id once, and only text: PVE lists each section once, but a server listing one twice made two
  // declarations of one key, refused with no name (an audit, 2026-12-05).
  const ids = [
    ...new Set(listOf(listed).flatMap((entry) => (isRecord(entry) && typeof entry.id === 'string' ? [entry.id] : []))),
  ];
  return mapConcurrent(ids, PARALLEL, async (id) => {
    const section: unknown = await api.call('GET', `cluster/metrics/server/${encodeURIComponent(id)}`);
    return { ...(isRecord(section) ? section : {}), id };
  });
};

/**
 * The nodes asked for, else every node `cluster/status` lists (the health gate's own read), each with
 * its address there: the one its management interface carries.
 */
const readNetworks = async (api: PveClient, asked: readonly string[]) => {
  const members = await clusterNodes(api);
  const nodes = asked.length > 0 ? asked : [...members.keys()];
  return mapConcurrent(nodes, PARALLEL, async (node) => {
    const rows: unknown = await api.call('GET', `nodes/${encodeURIComponent(node)}/network`);
    const address = members.get(node);
    return {
      node,
      ...(address === undefined ? {} : { address }),
      rows: listOf(rows).filter(isRecord),
    };
  });
};

/** Each node's name and its `ip` (undefined when the row has none), as `cluster/status` lists them. */
const clusterNodes = async (api: PveClient): Promise<Map<string, string | undefined>> =>
  nodeAddresses(listOf(await api.call('GET', 'cluster/status')));

/**
 * The node rows of a `cluster/status` answer, by name. A row without one is no node discover can read: it was
 * read as a node named `undefined`, whose network was then asked for (an audit).
 */
export const nodeAddresses = (rows: readonly unknown[]): Map<string, string | undefined> =>
  new Map(
    rows
      .filter(isRecord)
      .flatMap((row) =>
        row.type === 'node' && typeof row.name === 'string'
          ? [[row.name, typeof row.ip === 'string' && row.ip !== '' ? row.ip : undefined] as const]
          : [],
      ),
  );
