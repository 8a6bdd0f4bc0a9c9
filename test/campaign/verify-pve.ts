/**
 * What the PVE simulator holds, read over its own HTTP API and never through a handler: the campaign's metric
 * servers, each node's interfaces with nothing staged, and how each node's last network reload ended.
 */
import type { FakePve } from '../fakes/pve/server';
import { call } from '../fakes/pve/test-client';
import { interfaces, metricServers, PREFIX, PVE_NODES, type Variant } from './variant';

type Row = Record<string, unknown>;

const get = async (pve: FakePve, ca: string, path: string): Promise<{ data: unknown; changes?: unknown }> => {
  const answer = await call(pve.url, 'GET', path, { ca, timeoutMs: 10_000 });
  if (answer.status !== 200) throw new Error(`GET ${path}: ${answer.status} ${answer.text}`);
  return answer.body as { data: unknown; changes?: unknown };
};

/** `field` of `row` against `want`, compared as text (PVE answers numbers as numbers or strings). */
const fieldDiff = (what: string, row: Row, field: string, want: unknown): string[] => {
  const live = row[field] === undefined ? undefined : String(row[field]).trim();
  const wanted = want === undefined ? undefined : String(want);
  return live === wanted ? [] : [`${what}: ${field} is ${JSON.stringify(live)}, want ${JSON.stringify(wanted)}`];
};

const metricDiffs = async (pve: FakePve, ca: string, v: Variant): Promise<string[]> => {
  const rows = (await get(pve, ca, '/cluster/metrics/server')).data as Row[];
  const ours = rows.filter((row) => String(row.id).startsWith(PREFIX));
  const declared = metricServers(v);
  const strays = ours.filter((row) => !declared.some((server) => server.id === row.id));
  return [
    ...strays.map((row) => `metric server ${String(row.id)} exists, declared by no one`),
    ...(
      await Promise.all(
        declared.map(async (server) => {
          const found = ours.filter((row) => row.id === server.id);
          if (found.length !== 1) return [`metric server ${server.id} exists ${found.length} times, want once`];
          const row = (await get(pve, ca, `/cluster/metrics/server/${server.id}`)).data as Row;
          const what = `metric server ${server.id}`;
          return [
            ...fieldDiff(what, row, 'type', 'graphite'),
            ...fieldDiff(what, row, 'server', server.server),
            ...fieldDiff(what, row, 'port', server.port),
            ...fieldDiff(what, row, 'path', server.path),
          ];
        }),
      )
    ).flat(),
  ];
};

const nodeDiffs = async (pve: FakePve, ca: string, v: Variant, node: string): Promise<string[]> => {
  const { data, changes } = await get(pve, ca, `/nodes/${node}/network`);
  const rows = data as Row[];
  const staged = typeof changes === 'string' && changes !== '' ? [`${node}: changes are staged (interfaces.new)`] : [];
  return [
    ...staged,
    ...interfaces(v)
      .filter((nic) => nic.node === node)
      .flatMap((nic) => {
        const found = rows.filter((row) => row.iface === nic.iface);
        if (found.length !== 1) return [`${node}: interface ${nic.iface} exists ${found.length} times, want once`];
        const row = found[0] as Row;
        const what = `${node}: ${nic.iface}`;
        return [
          ...fieldDiff(what, row, 'type', nic.type),
          ...fieldDiff(what, row, 'address', nic.address),
          ...fieldDiff(what, row, 'netmask', nic.netmask),
          ...fieldDiff(what, row, 'bridge_ports', nic.bridgePorts),
          ...fieldDiff(what, row, 'mtu', nic.mtu),
          ...fieldDiff(what, row, 'comments', nic.comments),
          ...fieldDiff(what, row, 'active', 1),
        ];
      }),
  ];
};

/** A node's last reload must have ended OK: a failed or unknown one leaves the node's live network behind its file. */
const reloadDiffs = async (pve: FakePve, ca: string, node: string): Promise<string[]> => {
  const upid = pve
    .tasks()
    .filter((task) => task.startsWith(`UPID:${node}:`) && task.includes(':srvreload:'))
    .at(-1);
  if (upid === undefined) return [];
  // The task list, not the task's status: a reload armed to cut its polls cuts the campaign's too.
  const list = (await get(pve, ca, `/nodes/${node}/tasks?typefilter=srvreload&source=all&limit=1000`)).data as Row[];
  const row = list.find((task) => task.upid === upid);
  if (row === undefined) return [`${node}: the last network reload ${upid} is not in the node's task list`];
  if (row.endtime === undefined) return [`${node}: the last network reload ${upid} is still running`];
  return row.status === 'OK' ? [] : [`${node}: the last network reload ended ${String(row.status)}`];
};

export const pveDiffs = async (pve: FakePve, ca: string, v: Variant): Promise<string[]> => [
  ...(await metricDiffs(pve, ca, v)),
  ...(await Promise.all(PVE_NODES.map((node) => nodeDiffs(pve, ca, v, node)))).flat(),
  ...(await Promise.all(PVE_NODES.map((node) => reloadDiffs(pve, ca, node)))).flat(),
];
