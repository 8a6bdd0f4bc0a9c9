// The handful of API methods the fake serves, each with its permission and parameter schema, so
// anything else is a 501 exactly as rest_handler answers an unknown method or path.
// Source: pve-api.md A1, A3, A6; [PM] API2/Cluster/MetricServer.pm, API2/Cluster.pm; [AC]
// API2/AccessControl.pm permissions; a user's API tokens as api-tokens.ts says. Node-scoped
// methods (network, tasks) are in network-routes.ts.
import { type ApiTokens, TOKEN_ID_SCHEMA, TOKEN_SCHEMA } from './api-tokens';
import { permissionsOf, uriUnescape, type Privilege, type TokenGrant } from './auth';
import { permError } from './envelope';
import { clusterStatus, type ClusterShape } from './cluster-status';
import { CREATE_SCHEMA, ID_SCHEMA, NO_PARAMS, UPDATE_SCHEMA } from './metric-schema';
import type { MetricStore, Section } from './metric-store';
import { findNodeRoute, type Caller, type NodeContext } from './network-routes';
import type { ObjectSchema } from './validate';

export interface RouteContext extends NodeContext {
  readonly store: MetricStore;
  readonly cluster: () => ClusterShape;
  /** A token's grant by id, for `GET /access/permissions?userid=`. */
  readonly grantOf: (tokenId: string) => TokenGrant | undefined;
  /** The tokens created and removed over the API. */
  readonly apiTokens: ApiTokens;
}

export interface Route {
  /** The privilege needed on `/`; undefined means any authenticated caller (`user => 'all'`). */
  readonly privilege?: Privilege;
  readonly schema: ObjectSchema;
  readonly run: (context: RouteContext, values: Section, caller: Caller) => unknown;
}

export interface Match {
  readonly route: Route;
  /** Parameters taken from the path, e.g. `{id}`. */
  readonly uriParams: Record<string, string>;
  /** The node of a `nodes/{node}/…` method: privilege on /nodes/{node}, then forwarded to that node. */
  readonly node?: string;
}

const VERSION = { version: '9.2.11', release: '9.2', repoid: '14a22df0' };

const idOf = (values: Section): string => String(values.id);
const withoutId = (values: Section): Section => {
  const { id: _id, ...rest } = values;
  return rest;
};

/**
 * Anyone may read their own effective permissions (`user => 'all'`, tokens allowed); another
 * user's or token's need Sys.Audit on /access. An unknown id holds nothing.
 */
const permissions: Route = {
  schema: { userid: { type: 'string', optional: true }, path: { type: 'string', optional: true } },
  run: (context, values, caller) => {
    const userid = values.userid === undefined ? caller.tokenId : String(values.userid);
    if (userid !== caller.tokenId && !caller.holds('/access', 'Sys.Audit')) throw permError('/access', 'Sys.Audit');
    const grant = context.grantOf(userid);
    const path = values.path === undefined ? undefined : String(values.path);
    if (grant !== undefined) return permissionsOf(grant, path);
    return path === undefined ? {} : { [path]: {} };
  },
};

const FIXED = new Map<string, Route>([
  ['GET /version', { schema: NO_PARAMS, run: () => VERSION }],
  ['GET /access/permissions', permissions],
  [
    'GET /cluster/status',
    { privilege: 'Sys.Audit', schema: NO_PARAMS, run: (context) => clusterStatus(context.cluster()) },
  ],
  [
    'GET /cluster/metrics/server',
    { privilege: 'Sys.Audit', schema: NO_PARAMS, run: (context) => context.store.list() },
  ],
]);

// Create is a POST on the object's own path; the collection takes no POST (A1).
const BY_ID: Record<string, Route> = {
  GET: {
    privilege: 'Sys.Audit',
    schema: ID_SCHEMA,
    run: (context, values) => context.store.read(idOf(values)),
  },
  POST: {
    privilege: 'Sys.Modify',
    schema: CREATE_SCHEMA,
    run: (context, values) => context.store.create(idOf(values), withoutId(values)),
  },
  PUT: {
    privilege: 'Sys.Modify',
    schema: UPDATE_SCHEMA,
    run: (context, values) => context.store.update(idOf(values), withoutId(values)),
  },
  DELETE: {
    privilege: 'Sys.Modify',
    schema: ID_SCHEMA,
    run: (context, values) => context.store.remove(idOf(values)),
  },
};

/** A user's token by path: create (POST) and remove (DELETE), each checking its caller first. */
const TOKEN: Record<string, Route> = {
  POST: {
    schema: TOKEN_SCHEMA,
    run: (context, values, caller) => {
      context.apiTokens.checkAdmin(caller.userModify, values);
      const expire = values.expire === undefined ? undefined : Number(values.expire);
      return context.apiTokens.create(
        String(values.userid),
        String(values.tokenid),
        expire,
        Number(values.privsep ?? 1) !== 0,
      );
    },
  },
  DELETE: {
    schema: TOKEN_ID_SCHEMA,
    run: (context, values, caller) => {
      context.apiTokens.checkAdmin(caller.userModify, values);
      return context.apiTokens.remove(String(values.userid), String(values.tokenid));
    },
  },
};

const decodeSegment = (segment: string): string => {
  try {
    return decodeURIComponent(segment);
  } catch {
    return segment; // a malformed escape stays as sent; the id format check then rejects it
  }
};

/** Finds the method for an API-relative path such as `/cluster/metrics/server/influx`. */
export const findRoute = (method: string, relPath: string): Match | undefined => {
  const segments = relPath.split('/').filter((segment) => segment !== '');
  const key = `${method} /${segments.join('/')}`;
  const fixed = FIXED.get(key);
  if (fixed !== undefined) return { route: fixed, uriParams: {} };
  const byId = Object.hasOwn(BY_ID, method) ? BY_ID[method] : undefined;
  const id = segments[3];
  const isServerPath = segments.length === 4 && segments.slice(0, 3).join('/') === 'cluster/metrics/server';
  if (byId && isServerPath && id !== undefined) return { route: byId, uriParams: { id: decodeSegment(id) } };
  const token = Object.hasOwn(TOKEN, method) ? TOKEN[method] : undefined;
  const [access, users, userid, tokenPath, tokenid] = segments;
  const isTokenPath = segments.length === 5 && access === 'access' && users === 'users' && tokenPath === 'token';
  if (token && isTokenPath && userid !== undefined && tokenid !== undefined) {
    return { route: token, uriParams: { userid: decodeSegment(userid), tokenid: decodeSegment(tokenid) } };
  }
  // pveproxy unescapes the whole path before it splits it ([HS] AnyEvent.pm uri_unescape).
  const node = findNodeRoute(method, uriUnescape(relPath));
  return node && { route: node.route, uriParams: node.uriParams, node: node.node };
};
