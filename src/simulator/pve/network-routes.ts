// The node-scoped methods: a node's network (list, stage, reload, revert) and its tasks, with the
// permission each checks on /nodes/{node}, so a handler meets PVE's ACL paths, its staging rules
// and its task owner rule. Source: pve-api.md §A2, §A4; [PM] PVE/API2/Network.pm, Tasks.pm.
import type { Privilege } from './auth';
import { Attributed } from './envelope';
import type { Iface } from './network-parse';
import type { NetworkStore } from './network-store';
import { NETWORK_SCHEMAS } from './network-schema';
import { taskListQuery, type TaskBehaviour, type TaskStore } from './tasks';
import type { ObjectSchema, Value } from './validate';

/** The authenticated caller as a method sees it. */
export interface Caller {
  readonly tokenId: string;
  /** Where it holds User.Modify: on /access/groups (true), or on these groups (auth.ts TokenGrant). */
  readonly userModify: boolean | readonly string[];
  holds(path: string, privilege: Privilege): boolean;
  /** Whether the list shows this bridge to the caller (auth.ts seesBridge). */
  seesBridge(bridge: string): boolean;
}

export interface NodeContext {
  readonly network: NetworkStore;
  readonly tasks: TaskStore;
  /** How the next reload on a node behaves. */
  readonly reloadOf: (node: string) => TaskBehaviour;
}

type Values = Record<string, Value>;

export interface NodeRoute {
  /** Checked on /nodes/{node} before the call is forwarded to the node. */
  readonly privilege?: Privilege;
  readonly schema: ObjectSchema;
  readonly run: (context: NodeContext, values: Values, caller: Caller) => unknown;
}

const nodeOf = (values: Values): string => String(values.node);
const without = (values: Values, ...keys: string[]): Values =>
  Object.fromEntries(Object.entries(values).filter(([key]) => !keys.includes(key)));

// A bridge is listed only to a caller with SDN.Audit or SDN.Use on /sdn/zones/localnetwork/<bridge>
// or on a VLAN below it; every other row is listed to anyone ([PM] Network.pm index, can_access_vnet).
const isBridge = (row: Iface): boolean => row.type === 'bridge' || row.type === 'OVSBridge';

const TYPE_FILTER: Record<string, (type: string) => boolean> = {
  any_bridge: (type) => type === 'bridge' || type === 'OVSBridge',
  any_local_bridge: (type) => type === 'bridge' || type === 'OVSBridge',
};

const list = (context: NodeContext, values: Values, caller: Caller): Attributed => {
  const { config, changes } = context.network.read(nodeOf(values));
  const filter =
    values.type === undefined ? undefined : (TYPE_FILTER[String(values.type)] ?? ((t: string) => t === values.type));
  const rows = Object.keys(config.ifaces)
    .sort()
    .filter((name) => name !== 'lo')
    .map((name): Iface => ({ ...config.ifaces[name], iface: name }))
    .filter((row) => filter === undefined || filter(String(row.type)))
    .filter((row) => !isBridge(row) || caller.seesBridge(String(row.iface)));
  return new Attributed(rows, changes === undefined ? {} : { changes });
};

const taskCaller = (caller: Caller, node: string) => ({
  tokenId: caller.tokenId,
  auditsNode: caller.holds(`/nodes/${node}`, 'Sys.Audit'),
});

const COLLECTION: Record<string, NodeRoute> = {
  GET: { schema: NETWORK_SCHEMAS.list, run: list },
  POST: {
    privilege: 'Sys.Modify',
    schema: NETWORK_SCHEMAS.create,
    run: (context, values) => context.network.create(nodeOf(values), without(values, 'node')),
  },
  // The reload: the worker moves interfaces.new over interfaces first, then runs ifreload -a.
  PUT: {
    privilege: 'Sys.Modify',
    schema: NETWORK_SCHEMAS.reload,
    run: (context, values, caller) => {
      const node = nodeOf(values);
      context.network.assertReloadable(node);
      const upid = context.tasks.start(node, 'srvreload', 'networking', caller.tokenId, context.reloadOf(node));
      context.network.promote(node);
      return upid;
    },
  },
  DELETE: {
    privilege: 'Sys.Modify',
    schema: NETWORK_SCHEMAS.revert,
    run: (context, values) => context.network.revert(nodeOf(values)),
  },
};

const ONE: Record<string, NodeRoute> = {
  GET: {
    privilege: 'Sys.Audit',
    schema: NETWORK_SCHEMAS.one,
    run: (context, values) => {
      const { config } = context.network.read(nodeOf(values));
      return context.network.row(config, String(values.iface));
    },
  },
  PUT: {
    privilege: 'Sys.Modify',
    schema: NETWORK_SCHEMAS.update,
    run: (context, values) =>
      context.network.update(nodeOf(values), String(values.iface), without(values, 'node', 'iface')),
  },
  DELETE: {
    privilege: 'Sys.Modify',
    schema: NETWORK_SCHEMAS.one,
    run: (context, values) => context.network.remove(nodeOf(values), String(values.iface)),
  },
};

const TASK_STATUS: NodeRoute = {
  schema: NETWORK_SCHEMAS.taskStatus,
  run: (context, values, caller) =>
    context.tasks.status(nodeOf(values), String(values.upid), taskCaller(caller, nodeOf(values))),
};

const TASK_LIST: NodeRoute = {
  schema: NETWORK_SCHEMAS.taskList,
  run: (context, values, caller) => {
    const node = nodeOf(values);
    const { rows, total } = context.tasks.index(node, taskCaller(caller, node), taskListQuery(values));
    return new Attributed(rows, { total });
  },
};

const TASK_LOG: NodeRoute = {
  schema: NETWORK_SCHEMAS.taskLog,
  run: (context, values, caller) => {
    const node = nodeOf(values);
    const start = values.start === undefined ? 0 : Number(values.start);
    const limit = values.limit === undefined ? 50 : Number(values.limit);
    const { lines, total } = context.tasks.log(node, String(values.upid), taskCaller(caller, node), start, limit);
    return new Attributed(lines, { total });
  },
};

/**
 * A node-scoped method for a path already URI-unescaped as pveproxy does it (the whole path, then
 * split on `/`), with the parameters the path carries.
 */
export const findNodeRoute = (
  method: string,
  path: string,
): { route: NodeRoute; uriParams: Record<string, string>; node: string } | undefined => {
  const segments = path.split('/').filter((segment) => segment !== '');
  const [root, node, area, item, leaf] = segments;
  if (root !== 'nodes' || node === undefined) return undefined;
  const pick = (table: Record<string, NodeRoute>) => (Object.hasOwn(table, method) ? table[method] : undefined);
  let route: NodeRoute | undefined;
  const uriParams: Record<string, string> = { node };
  if (area === 'network' && segments.length === 3) route = pick(COLLECTION);
  else if (area === 'network' && segments.length === 4 && item !== undefined) {
    [route, uriParams.iface] = [pick(ONE), item];
  } else if (area === 'tasks' && segments.length === 3 && method === 'GET') route = TASK_LIST;
  else if (area === 'tasks' && segments.length === 5 && method === 'GET' && item !== undefined) {
    route = leaf === 'status' ? TASK_STATUS : leaf === 'log' ? TASK_LOG : undefined;
    uriParams.upid = item;
  }
  return route === undefined ? undefined : { route, uriParams, node };
};
