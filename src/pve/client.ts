/**
 * The PVE API client: members tried in order with the last good one first, a PVE error turned
 * into one line that keeps PVE's own message, and no write ever sent twice.
 */
import { fetch } from 'undici';
import type { Agent } from 'undici';
import { HandlerError } from '../core/errors';
import type { Method, Params, PveApi } from './api';
import { classifyFailure, mayFailOver, memberOrder } from './failover';
import { fileStore, type LastGoodStore } from './last-good';
import { type PveTarget, tokenHeader } from './target';
import { memberAgent } from './transport';

export type { Method, Params } from './api';

/** A PVE answer with an error status. */
export class PveApiError extends HandlerError {
  constructor(
    readonly status: number,
    readonly pveMessage: string,
    readonly endpoint: string,
    readonly request: string,
  ) {
    super(`PVE answered ${status}`, pveMessage, { Endpoint: endpoint, Request: request });
  }
}

export class PveClient implements PveApi {
  private lastGood: string | undefined;
  private readonly agents = new Map<string, Agent>();

  constructor(
    private readonly target: PveTarget,
    private readonly env: NodeJS.ProcessEnv = process.env,
    private readonly memory: LastGoodStore = fileStore(target.endpoints),
  ) {
    this.lastGood = memory.load();
  }

  /** `data` of PVE's answer. */
  async call<T>(method: Method, path: string, params?: Params): Promise<T> {
    const authorization = tokenHeader(this.target, this.env);
    const unreached: string[] = [];
    for (const endpoint of memberOrder(this.target.endpoints, this.lastGood)) {
      const attempt = await this.send(endpoint, method, path, params, authorization);
      if (attempt.ok) {
        if (this.lastGood !== endpoint) this.memory.save(endpoint);
        this.lastGood = endpoint;
        return attempt.answer as T;
      }
      if (!mayFailOver(classifyFailure(attempt.error))) throw sentButUnanswered(endpoint, method, path, attempt.error);
      unreached.push(`${endpoint} (${reason(attempt.error)})`);
    }
    throw new HandlerError(
      'No PVE cluster member reachable',
      `${method} /${path} reached none of ${this.target.endpoints.length} members: ${unreached.join(', ')}; check the endpoints, the network and the TLS settings (caFile, fingerprints)`,
    );
  }

  /** Closes idle connections so the handler process can exit at once. */
  async close(): Promise<void> {
    await Promise.all([...this.agents.values()].map((agent) => agent.close()));
  }

  private async send(endpoint: string, method: Method, path: string, params: Params | undefined, authorization: string) {
    const url = new URL(`api2/json/${path}`, endpoint.endsWith('/') ? endpoint : `${endpoint}/`);
    const form = encodeForm(params);
    if (method === 'GET' || method === 'DELETE') url.search = form;
    const dispatcher = this.agent(endpoint);
    let response;
    try {
      response = await fetch(url, {
        method,
        dispatcher,
        headers: {
          authorization,
          ...(method === 'POST' || method === 'PUT' ? { 'content-type': 'application/x-www-form-urlencoded' } : {}),
        },
        body: method === 'POST' || method === 'PUT' ? form : undefined,
      });
    } catch (error) {
      return { ok: false as const, error };
    }
    const text = await response.text();
    if (response.status >= 200 && response.status < 300) return { ok: true as const, answer: (JSON.parse(text) as { data?: unknown }).data };
    const message = errorMessage(text, response.statusText);
    const hint = response.status === 401 ? `; the token in ${this.target.tokenEnv} was refused` : '';
    throw new PveApiError(response.status, `${message}${hint}`, endpoint, `${method} /${path}`);
  }

  private agent(endpoint: string): Agent {
    let agent = this.agents.get(endpoint);
    if (agent === undefined) {
      agent = memberAgent(this.target, endpoint);
      this.agents.set(endpoint, agent);
    }
    return agent;
  }
}

/** Form encoding with PVE's boolean rule; undefined members are left out. */
const encodeForm = (params: Params | undefined): string => {
  const form = new URLSearchParams();
  for (const [key, value] of Object.entries(params ?? {})) {
    if (value === undefined) continue;
    form.append(key, typeof value === 'boolean' ? (value ? '1' : '0') : String(value));
  }
  return form.toString();
};

/**
 * PVE's message: `message` (libpve-http-server 5.2 and later) with the per-field `errors`, else
 * the reason phrase, which is all an older server sends.
 */
const errorMessage = (body: string, reasonPhrase: string): string => {
  let parsed: { message?: unknown; errors?: unknown } = {};
  try {
    parsed = JSON.parse(body) as typeof parsed;
  } catch {
    // not JSON: a 401 or a proxy's page; the reason phrase is the message
  }
  const message = typeof parsed.message === 'string' && parsed.message.trim() !== '' ? parsed.message.trim() : reasonPhrase;
  const errors = parsed.errors && typeof parsed.errors === 'object' ? Object.entries(parsed.errors) : [];
  const fields = errors.map(([field, text]) => `${field}: ${String(text).trim()}`).join(', ');
  return fields === '' ? message : `${message} (${fields})`;
};

const reason = (error: unknown): string => {
  const cause = (error as { cause?: { message?: string } }).cause;
  return cause?.message ?? (error instanceof Error ? error.message : String(error));
};

const sentButUnanswered = (endpoint: string, method: Method, path: string, error: unknown): HandlerError =>
  new HandlerError(
    method === 'GET' ? 'PVE request failed' : 'PVE write outcome unknown',
    method === 'GET'
      ? `${endpoint} took the request but gave no answer (${reason(error)})`
      : `${endpoint} took ${method} /${path} but gave no answer (${reason(error)}); it was not re-sent to another member, because it may have been applied. Check the cluster, then run apply again`,
    { Endpoint: endpoint, Request: `${method} /${path}` },
  );
