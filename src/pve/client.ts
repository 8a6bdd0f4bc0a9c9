/**
 * The PVE API client over the shared HTTP core: members tried in order with the last good one
 * first, no write ever sent twice, no redirect followed, and every answer that is not PVE's
 * envelope (an error, a redirect, a body that is not JSON, a GET without data) one clear line.
 */
import { readFileSync } from 'node:fs';
import { TargetUnreachable } from '../core/batch';
import { errorMessage, HandlerError } from '../core/errors';
import { asObject, describeBody, isRedirect, parseJson, redirectTarget } from '../core/http/body';
import type { TlsRule } from '../core/http/connect';
import { endpointProblem, shownEndpoint } from '../core/http/endpoint';
import { type LastGoodStore, lastGoodStore } from '../core/http/last-good';
import { type MemberFailure, Members, type MembersOptions } from '../core/http/members';
import type { HttpAnswer } from '../core/http/request';
import type { CallOptions, Method, Params, PveApi, PveEnvelope } from './api';
import { type PveTarget, REQUEST_TIMEOUT, tokenHeader } from './target';

export type { CallOptions, Method, Params, PveApi, PveEnvelope } from './api';

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

/** How a client is built besides its target: the transport, and the token as its errors name it. */
export interface PveClientOptions extends Pick<MembersOptions, 'open' | 'maxBodyBytes'> {
  /** The token in a 401's or 403's message. @default - "the token in <tokenEnv>" */
  readonly tokenName?: string;
}

export class PveClient implements PveApi {
  private readonly members: Members;
  readonly tokenName: string;

  constructor(
    private readonly target: PveTarget,
    private readonly env: NodeJS.ProcessEnv = process.env,
    memory: LastGoodStore = lastGoodStore('pve', target.endpoints),
    { tokenName, ...transport }: PveClientOptions = {},
  ) {
    this.tokenName = tokenName ?? `the token in ${target.tokenEnv}`;
    for (const endpoint of target.endpoints) {
      const problem = endpointProblem(endpoint, target.insecure === true);
      if (problem !== undefined) throw new HandlerError('Bad PVE endpoint', `${shownEndpoint(endpoint)} is ${problem}`);
    }
    const timeoutMs = (target.timeoutSeconds ?? REQUEST_TIMEOUT.default) * 1000;
    this.members = new Members(target.endpoints, {
      ...transport,
      timeoutMs,
      memory,
      tlsFor: (e) => tlsRule(target, e),
    });
  }

  async call<T>(method: Method, path: string, params?: Params, options?: CallOptions): Promise<T> {
    return (await this.envelope<T>(method, path, params, options)).data;
  }

  async envelope<T>(method: Method, path: string, params?: Params, options: CallOptions = {}): Promise<PveEnvelope<T>> {
    const authorization = tokenHeader(this.target, this.env);
    const form = encodeForm(params);
    const hasBody = method === 'POST' || method === 'PUT';
    const http = {
      method,
      path: `api2/json/${path}${!hasBody && form !== '' ? `?${form}` : ''}`,
      headers: { authorization, ...(hasBody ? { 'content-type': 'application/x-www-form-urlencoded' } : {}) },
      ...(hasBody ? { body: form } : {}),
    };
    const outcome = await this.members.send(http, options.timeoutMs);
    const request = `${method} /${path}`;
    if (outcome.ok) return this.read<T>(outcome.endpoint, request, method, outcome.answer);
    if (outcome.unknown !== undefined)
      throw outcomeUnknown(outcome.unknown, request, `gave no answer (${outcome.unknown.reason})`);
    throw noMember(request, this.target.endpoints.length, outcome.failures);
  }

  async close(): Promise<void> {
    this.members.close();
  }

  /** PVE's envelope from an answer of any status, or the one-line error it amounts to. */
  private read<T>(endpoint: string, request: string, method: Method, answer: HttpAnswer): PveEnvelope<T> {
    const { status } = answer;
    const where = { endpoint, failure: 'unanswered' as const, reason: '' };
    if (isRedirect(status)) {
      const rule =
        "PVE's API never redirects, so something in front of the member answered; " +
        'point the endpoint at the member itself';
      const resent = method === 'GET' ? '' : ' (the write was not re-sent)';
      throw new PveApiError(
        status,
        `redirect to ${redirectTarget(answer)} not followed${resent}: ${rule}`,
        endpoint,
        request,
      );
    }
    if (status < 200 || status >= 300) {
      const token = this.tokenName;
      const hint = status === 401 ? `; ${token} was refused` : status === 403 ? `; ${token} lacks that privilege` : '';
      throw new PveApiError(status, `${answerMessage(answer)}${hint}`, endpoint, request);
    }
    const parsed = parseJson(answer.body);
    const envelope = parsed.ok ? asObject(parsed.value) : undefined;
    if (envelope === undefined || !('data' in envelope)) {
      const what = `a body that is not PVE's JSON envelope (${describeBody(answer)})`;
      throw method === 'GET'
        ? unreadable(endpoint, request, status, what)
        : outcomeUnknown(where, request, `answered ${status} with ${what}`);
    }
    if (method === 'GET' && (envelope.data === null || envelope.data === undefined)) {
      throw unreadable(endpoint, request, status, '{"data":null} where data was expected');
    }
    return envelope as PveEnvelope<T>;
  }
}

/** The TLS rule of one member: its pin, else the CA file, else insecure, else the system CAs. */
const tlsRule = (target: PveTarget, endpoint: string): TlsRule => {
  const pin = target.fingerprints?.[endpoint];
  if (pin !== undefined) return { fingerprint: pin };
  if (target.caFile !== undefined) return { ca: readCa(target.caFile) };
  return target.insecure === true ? { insecure: true } : {};
};

const readCa = (path: string): Buffer => {
  try {
    return readFileSync(path);
  } catch (error) {
    const why = errorMessage(error);
    throw new HandlerError(
      'PVE CA file unreadable',
      `caFile ${path} cannot be read (${why}); point caFile at the PEM of the CA that signed the members' certificates`,
    );
  }
};

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
const answerMessage = (answer: HttpAnswer): string => {
  const parsed = parseJson(answer.body);
  const body = (parsed.ok ? asObject(parsed.value) : undefined) ?? {};
  const message = typeof body.message === 'string' && body.message.trim() !== '' ? body.message.trim() : answer.reason;
  const errors = asObject(body.errors) ?? {};
  const fields = Object.entries(errors)
    .map(([field, text]) => `${field}: ${String(text).trim()}`)
    .join(', ');
  return fields === '' ? message : `${message} (${fields})`;
};

const outcomeUnknown = (at: MemberFailure, request: string, what: string): HandlerError =>
  new HandlerError(
    'PVE write outcome unknown',
    `${at.endpoint} took ${request} but ${what}; it was not re-sent to another member, ` +
      'because it may have been applied. Check the cluster, then run apply again',
    { Endpoint: at.endpoint, Request: request },
  );

const unreadable = (endpoint: string, request: string, status: number, what: string): HandlerError =>
  new HandlerError(
    'PVE answer unreadable',
    `${endpoint} answered ${request} with ${status} and ${what}; ` +
      'check that the endpoint is a PVE API (https://HOST:8006), not a proxy or a login page',
    { Endpoint: endpoint, Request: request },
  );

/** No member took the request at all: the cluster is unreachable, which fails a whole batch read. */
const noMember = (request: string, count: number, failures: readonly MemberFailure[]): HandlerError => {
  const list = failures.map((f) => `${f.endpoint} (${f.reason})`).join(', ');
  if (failures.every((f) => f.failure === 'unreached')) {
    return new TargetUnreachable(
      'No PVE cluster member reachable',
      `${request} reached none of ${count} members: ${list}; ` +
        'check the endpoints, the network and the TLS settings (caFile, fingerprints)',
    );
  }
  return new TargetUnreachable(
    'No PVE cluster member answered',
    `${request} got no answer from any of ${count} members: ${list}; ` +
      "check the members' health, or raise timeoutSeconds",
  );
};
