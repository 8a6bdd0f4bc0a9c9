/**
 * The port every PVE kind talks through, so kinds share one client per process and tests can
 * hand in their own: `PveClient` implements it over HTTP. Kinds never see members, TLS or tokens.
 */
import type { PveTarget } from './target';

export type Method = 'GET' | 'POST' | 'PUT' | 'DELETE';

/** Requests to distinct nodes in flight at once (a node's list, its stages, its reload); a stack rarely spans more. */
export const PARALLEL_NODES = 8;

/** Form parameters; booleans go as 0/1, which is all PVE accepts in a form body. */
export type Params = Readonly<Record<string, string | number | boolean | undefined>>;

/** PVE's whole answer: `data` and its siblings, e.g. `changes` of `GET nodes/{node}/network`. */
export type PveEnvelope<T> = { readonly data: T } & Readonly<Record<string, unknown>>;

/** Per-call settings. */
export interface CallOptions {
  /**
   * The deadline of this call, failover included: a task poll is capped well below the target's
   * timeout, so a connection a reload dropped silently costs one short poll, not the whole wait.
   *
   * @default - the target's timeoutSeconds
   */
  readonly timeoutMs?: number;
}

export interface PveApi {
  /** `data` of PVE's answer; a GET whose `data` is null fails, since a GET is asked for data. */
  call<T>(method: Method, path: string, params?: Params, options?: CallOptions): Promise<T>;
  /** The whole answer, for the endpoints whose siblings of `data` matter. */
  envelope<T>(method: Method, path: string, params?: Params, options?: CallOptions): Promise<PveEnvelope<T>>;
  /** Closes idle connections so the handler process can exit at once. */
  close(): Promise<void>;
  /** The token as messages name it, e.g. "the token in PVE_READ" (never its secret). */
  readonly tokenName?: string;
}

/**
 * Opens the port for `target` with the token in `env[target.tokenEnv]`; `tokenName` is the token
 * as a 401 or 403 names it (default: "the token in <tokenEnv>").
 */
export type PveConnect = (target: PveTarget, env: NodeJS.ProcessEnv, tokenName?: string) => PveApi;
