// The PVE simulator's API server on 127.0.0.1 (never the wildcard), written from reference/pve-api.md, so
// the PVE client, the handlers, the e2e tests, the demo and a user's `cdktf-homelab fake-pve` meet PVE's real
// statuses, envelopes and texts. Order per request, as pveproxy: path, auth, method, permission, parameters.
// Answers PVE never gives (faults a test injects) are not here: a test passes `intercept`, as
// test/fakes/pve/server.ts does.
import type { IncomingMessage, Server, ServerResponse } from 'node:http';

import {
  DEFAULT_TOKENS,
  authenticate,
  holds,
  parseTokenHeader,
  privilegesOn,
  seesBridge,
  type TokenGrant,
} from './auth';
import { ApiTokens, type UserGrant } from './api-tokens';
import { checkForward, memberNames, type ClusterShape } from './cluster-status';
import { BareError, PveError, notImplemented, paramError, permError, sendBare, sendData, sendError } from './envelope';
import { MetricStore } from './metric-store';
import type { TargetFault } from './metric-reach';
import { networkControl, type FakePveNetwork, type NodeNetworkSetup } from './network-control';
import type { Caller } from './network-routes';
import { NetworkStore } from './network-store';
import { messageOf } from './narrow';
import { collectParams, paramsForLog, type Params } from './params';
import { findRoute, type RouteContext } from './routes';
import { listen, readBody, serverFor, stopServer } from './socket';
import { ConnectionCut, TaskStore, type TaskBehaviour } from './tasks';
import { verifyParams } from './validate';

export type { FakePveNode, ClusterShape } from './cluster-status';
export type { Privileges, TokenGrant } from './auth';
export type { FakePveNetwork, NodeNetworkSetup, TaskBehaviour } from './network-control';

export interface FakePveOptions extends ClusterShape {
  /** Serve HTTPS with this PEM key and certificate. @default - plain HTTP */
  readonly tls?: { readonly key: string; readonly cert: string };
  /** @default 0 (a free port, chosen by the kernel) */
  readonly port?: number;
  /** Token id `USER@REALM!ID` → secret and rights on `/`. @default - root@pam!homelab, modify */
  readonly tokens?: Readonly<Record<string, TokenGrant>>;
  /**
   * Users whose tokens may be created over the API: the rights a `privsep=0` token gets, their groups.
   * @default - root@pam alone
   */
  readonly users?: Readonly<Record<string, UserGrant>>;
  /**
   * Emulate libpve-http-server < 5.2: errors carry no `message`, only a reason phrase.
   * @default false
   */
  readonly oldServer?: boolean;
  /** PVE delays every 401 by about 3 s; tests want 0. @default 0 */
  readonly unauthorizedDelayMs?: number;
  /** Per node: NICs and interfaces files. @default - each member runs lo, its NICs and vmbr0 */
  readonly network?: Readonly<Record<string, NodeNetworkSetup>>;
  /** The clock tasks run on. @default Date.now */
  readonly now?: () => number;
  /** Called after each request is answered, with its method (main.ts saves its state file there). @default - nothing */
  readonly afterRequest?: (method: string) => void;
  /**
   * Called for each request once it is logged, before anything else: true when it answered `res` itself (or
   * chose to leave it unanswered), and the simulator then does nothing more. How tests inject faults.
   * @default - every request is the simulator's
   */
  readonly intercept?: (request: InterceptedRequest, res: ServerResponse) => boolean;
}

/** A request as `intercept` sees it: `paths` is the path as sent, then its part under `/api2/json`. */
export interface InterceptedRequest {
  readonly method: string;
  readonly paths: readonly [string, string];
}

/** One request as the fake saw it; `auth` is the token id only, never its secret. */
export interface FakePveRequest {
  readonly method: string;
  readonly path: string;
  readonly body: Record<string, string>;
  readonly auth?: string;
  /** The User-Agent header, when one was sent. */
  readonly userAgent?: string;
}

export interface PveSimulator extends FakePveNetwork {
  /** e.g. `https://127.0.0.1:40123` (no trailing slash; the API lives under `/api2/json/`). */
  readonly url: string;
  readonly port: number;
  /** Every request received, in order, including refused and hung ones. */
  readonly requests: FakePveRequest[];
  /** How many TCP connections clients have opened so far. */
  connections(): number;
  stop(): Promise<void>;
  /** The ids of the API tokens there are now (created over the API ones included, expired or not). */
  tokenIds(): string[];
  /** The ids of the API tokens that still authenticate now (not expired). */
  liveTokenIds(): string[];
  /** A copy of status.cfg: each section with its `type`, never a token. */
  metricServers(): Record<string, Record<string, unknown>>;
  /** The write-only tokens, kept apart as in /etc/pve/priv/metricserver/<id>.pw. */
  metricTokens(): Record<string, string>;
  /** An out-of-band edit, like a human in the web UI; a `token` key goes to the token store. */
  setMetricServer(id: string, section: Record<string, unknown>): void;
  deleteMetricServer(id: string): void;
  /**
   * Makes PVE's test of the target `server:port` fail from now on, as for a host that refuses connections or a name
   * that does not resolve: creates and updates that PVE tests there are refused (metric-reach.ts says which).
   */
  failMetricTarget(server: string, port: number, fault: TargetFault): void;
  /** The digest PUT compares against (the SHA1 of the rendered status.cfg). */
  digest(): string;
  /** Replaces the cluster shape served by `GET /cluster/status`. */
  setCluster(shape: ClusterShape): void;
}

interface State {
  readonly options: FakePveOptions;
  readonly tokens: Readonly<Record<string, TokenGrant>>;
  readonly nowSeconds: () => number;
  readonly context: RouteContext;
  readonly requests: FakePveRequest[];
}

const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

// `/api2/json/<rel>`; pveproxy accepts repeated slashes after /api2 (split_abs_uri).
const API_PATH = /^\/api2\/+json(\/.*)?$/;
const KNOWN_METHODS = new Set(['GET', 'POST', 'PUT', 'DELETE']);

const handle = async (state: State, req: IncomingMessage, res: ServerResponse): Promise<void> => {
  const body = await readBody(req);
  // Prefixing (not resolving) keeps a request target such as `//x` a path, never a host.
  const url = new URL(`http://127.0.0.1${req.url ?? '/'}`);
  const method = (req.method ?? 'GET').toUpperCase();
  const header = parseTokenHeader(req.headers.authorization);
  let params: Params | undefined;
  let badBody: string | undefined;
  try {
    params = collectParams(method, req.headers['content-type'], body, url.search.slice(1));
  } catch (err) {
    badBody = `malformed JSON body - ${messageOf(err)}`;
  }
  const agent = req.headers['user-agent'];
  const logged = {
    method,
    path: url.pathname,
    body: params ? paramsForLog(params) : {},
    ...(agent === undefined ? {} : { userAgent: agent }),
  };
  state.requests.push(header?.tokenId === undefined ? logged : { ...logged, auth: header.tokenId });

  const oldServer = state.options.oldServer ?? false;
  const relPath = API_PATH.exec(url.pathname)?.[1] ?? '/';
  if (state.options.intercept?.({ method, paths: [url.pathname, relPath] }, res)) return;

  // AnyEvent.pm refuses other verbs before routing, with a status line only.
  if (!KNOWN_METHODS.has(method)) return sendBare(res, 501, `method '${method}' not available`);
  // Outside /api2/json there is no API: pveproxy answers 501 with a status line only (A6).
  if (!API_PATH.test(url.pathname)) {
    const inApi = url.pathname.startsWith('/api2');
    return sendBare(res, 501, inApi ? 'no such uri' : `no such file '${url.pathname}'`);
  }
  const auth = authenticate(header, state.tokens, state.nowSeconds());
  if (!auth.ok) {
    await sleep(state.options.unauthorizedDelayMs ?? 0);
    return sendBare(res, 401, auth.reason);
  }
  // A body pveproxy cannot decode dies outside rest_handler: its catch-all answers a bare 501.
  if (!params) return sendBare(res, 501, badBody ?? 'malformed body');
  const caller: Caller = {
    tokenId: auth.tokenId,
    userModify: auth.grant.userModify ?? false,
    holds: (path, privilege) => holds(privilegesOn(auth.grant, path), privilege),
    seesBridge: (bridge) => seesBridge(auth.grant, bridge),
  };
  try {
    sendData(res, run(state, method, relPath, params, caller));
  } catch (err) {
    if (err instanceof ConnectionCut) return void req.socket.destroy();
    if (err instanceof BareError) return sendBare(res, err.status, err.message);
    if (!(err instanceof PveError)) throw err;
    sendError(res, err, oldServer);
  }
};

/**
 * rest_handler: find the method (501), merge URI parameters, check the privilege (on /nodes/{node}
 * for node methods, which are then forwarded to that node), validate.
 */
const run = (state: State, method: string, relPath: string, params: Params, caller: Caller): unknown => {
  const match = findRoute(method, relPath);
  if (!match) throw notImplemented(method, relPath);
  for (const name of Object.keys(match.uriParams)) {
    if (params[name] !== undefined) {
      throw paramError({ [name]: 'duplicate parameter (already defined in URI)' });
    }
  }
  const { route, uriParams, node } = match;
  const aclPath = node === undefined ? '/' : `/nodes/${node}`;
  if (route.privilege && !caller.holds(aclPath, route.privilege)) throw permError(aclPath, route.privilege);
  if (node !== undefined) checkForward(state.context.cluster(), node);
  const verdict = verifyParams(route.schema, { ...uriParams, ...params });
  if (!verdict.ok) throw paramError(verdict.errors);
  return route.run(state.context, verdict.values, caller);
};

/** The answer to each request, then `afterRequest`; a bug in the fake itself is said loudly, never hung on. */
const listenerOf =
  (state: State) =>
  (req: IncomingMessage, res: ServerResponse): void => {
    handle(state, req, res)
      .then(() => state.options.afterRequest?.(req.method ?? ''))
      .catch((err: unknown) => {
        if (res.headersSent) res.destroy();
        else sendBare(res, 500, `fake PVE internal error: ${messageOf(err)}`);
      });
  };

/** The stores a simulator runs on, and the cluster shape it serves (replaceable, as `setCluster` does). */
const makeStores = (options: FakePveOptions) => {
  let cluster: ClusterShape = options;
  const now = options.now ?? Date.now;
  const network = new NetworkStore(now, (node) => memberNames(cluster).indexOf(node));
  for (const [node, setup] of Object.entries(options.network ?? {})) network.setNode(node, setup);
  const tokens: Record<string, TokenGrant> = { ...(options.tokens ?? DEFAULT_TOKENS) };
  return {
    now,
    store: new MetricStore(),
    network,
    tasks: new TaskStore(now),
    reloads: new Map<string, TaskBehaviour>(),
    tokens,
    // root@pam is in every user.cfg, and may do anything (RPCEnvironment.pm permissions).
    apiTokens: new ApiTokens(tokens, { 'root@pam': { privileges: 'modify', userModify: true }, ...options.users }),
    cluster: () => cluster,
    setCluster: (shape: ClusterShape): void => {
      cluster = shape;
    },
  };
};

/** Starts a simulator on 127.0.0.1 and answers once it listens. */
export const startPveSimulator = async (options: FakePveOptions = {}): Promise<PveSimulator> => {
  const { now, store, network, tasks, reloads, tokens, apiTokens, cluster, setCluster } = makeStores(options);
  const state: State = {
    options,
    tokens,
    nowSeconds: () => Math.floor(now() / 1000),
    context: {
      apiTokens,
      store,
      cluster,
      network,
      tasks,
      reloadOf: (node) => reloads.get(node) ?? {},
      grantOf: (tokenId) => (Object.hasOwn(tokens, tokenId) ? tokens[tokenId] : undefined),
    },
    requests: [],
  };
  const server: Server = serverFor(options.tls, listenerOf(state));
  let connections = 0;
  server.on('connection', () => connections++);
  const port = await listen(server, options.port ?? 0);
  return {
    url: `${options.tls ? 'https' : 'http'}://127.0.0.1:${port}`,
    port,
    requests: state.requests,
    connections: () => connections,
    stop: () => stopServer(server),
    tokenIds: () => apiTokens.ids(),
    liveTokenIds: () => apiTokens.live(state.nowSeconds()),
    metricServers: () => store.snapshot(),
    metricTokens: () => store.tokenSnapshot(),
    setMetricServer: (id, section) => store.put(id, section),
    deleteMetricServer: (id) => store.drop(id),
    failMetricTarget: (server, port, fault) => store.failTarget(server, port, fault),
    digest: () => store.digest(),
    setCluster,
    ...networkControl({ network, tasks, reloads, cluster, setCluster }),
  };
};
