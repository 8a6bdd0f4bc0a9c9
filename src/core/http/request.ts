/**
 * One HTTP exchange with one endpoint over node:http (no redirect is ever followed: it is not in
 * this library), bounded three ways: a connect deadline, one deadline for the whole answer
 * (headers and body, so a server trickling bytes cannot hold a plan), and a cap on the body size.
 * A failure says whether any of the request was sent, which decides failover.
 */
import { type IncomingHttpHeaders, type IncomingMessage, request as httpRequest } from 'node:http';
import type { Duplex } from 'node:stream';
import { type ConnectOptions, EndpointAgent, type TlsRule, wasNeverSent } from './connect';
import { endpointProblem, shownEndpoint } from './endpoint';

export interface HttpRequest {
  readonly method: string;
  /** Path and query relative to the endpoint's URL, e.g. `api2/json/version?x=1`. */
  readonly path: string;
  readonly headers: Readonly<Record<string, string>>;
  readonly body?: string;
}

export interface HttpAnswer {
  readonly status: number;
  readonly reason: string;
  readonly headers: IncomingHttpHeaders;
  readonly body: Buffer;
}

/** The bounds of one attempt, in milliseconds and bytes. */
export interface AttemptLimits {
  readonly connectMs: number;
  /** From the start of the attempt until the last byte of the body. */
  readonly answerMs: number;
  readonly maxBodyBytes: number;
}

/** `unreached`: nothing was sent. `unanswered`: sent, then no complete answer (timeout, reset, cut). */
export type AttemptFailure = 'unreached' | 'unanswered';

export type Attempt =
  | { readonly ok: true; readonly answer: HttpAnswer }
  | { readonly ok: false; readonly failure: AttemptFailure; readonly reason: string };

// The package's version, put in by scripts/bundle-handlers.js (esbuild `define`) in every bundle.
declare const __HOMELAB_VERSION__: string | undefined;

/** Sent on every request, so a cluster's operators can see who called; `dev` when run unbundled (tests). */
export const USER_AGENT = `cdktf-homelab/${typeof __HOMELAB_VERSION__ === 'string' ? __HOMELAB_VERSION__ : 'dev'}`;

/** A keep-alive connection to one endpoint (`https://host:port`, any path ignored). */
export class Endpoint {
  private readonly agent: EndpointAgent;
  private readonly host: string;
  private readonly port: number;
  private readonly base: URL;
  private readonly protocol: string;

  constructor(url: string, tls: TlsRule) {
    const problem = endpointProblem(url, tls.insecure === true);
    if (problem !== undefined) throw new Error(`endpoint ${shownEndpoint(url)} refused: ${problem}`);
    const parsed = new URL(url);
    const secure = parsed.protocol === 'https:';
    this.agent = new EndpointAgent(secure, tls);
    this.host = parsed.hostname;
    this.protocol = parsed.protocol;
    this.port = Number(parsed.port) || (secure ? 443 : 80);
    this.base = new URL(parsed.pathname.endsWith('/') ? parsed.pathname : `${parsed.pathname}/`, parsed.origin);
  }

  send(request: HttpRequest, limits: AttemptLimits): Promise<Attempt> {
    return new Promise((resolve) => {
      let cause: Error | undefined;
      // Tenths: the share left of a deadline is often a hair under the setting (1.999 s for 2 s).
      const seconds = Math.round(limits.answerMs / 100) / 10;
      const options: ConnectOptions = {
        protocol: this.protocol,
        host: this.host,
        port: this.port,
        connectMs: limits.connectMs,
      };
      const body = request.body === undefined ? undefined : Buffer.from(request.body, 'utf8');
      const headers = {
        ...request.headers,
        'user-agent': USER_AGENT,
        ...(body === undefined ? {} : { 'content-length': String(body.length) }),
      };
      // Only the path is taken from the resolved URL: the host is this endpoint's, whatever the path says.
      const target = new URL(request.path, this.base);
      const path = `${target.pathname}${target.search}`;
      const req = httpRequest({ ...options, method: request.method, path, headers, agent: this.agent });
      // Settles as well as destroying: a request whose socket was taken (a 101's) emits nothing more.
      const stop = (error: Error) => {
        cause ??= error;
        req.destroy(error);
        failed(error);
      };
      const timer = setTimeout(() => stop(new Error(`no complete answer within ${seconds} s`)), limits.answerMs);
      let settled = false;
      const settle = (attempt: Attempt) => {
        if (settled) return;
        settled = true;
        clearTimeout(timer);
        resolve(attempt);
      };
      const failed = (error: Error) => {
        const first = cause ?? error;
        const unreached = wasNeverSent(first) || req.socket === null || req.socket === undefined;
        settle({ ok: false, failure: unreached ? 'unreached' : 'unanswered', reason: first.message });
      };
      req.on('error', failed);
      req.once('response', (res) => readAnswer(res, limits.maxBodyBytes, stop).then(settle, failed));
      // No request here asks to switch protocols. Without a listener, Node hands a 101's socket to no one and
      // the request never settles: a handler's event loop drained and it exited 0 having done nothing (an
      // audit, 2026-12-05).
      req.once('upgrade', (res: IncomingMessage, socket: Duplex) => {
        socket.destroy();
        stop(
          new Error(`answered ${res.statusCode} ${res.statusMessage ?? ''}, a switch of protocol no request asks for`),
        );
      });
      req.end(body);
    });
  }

  /** Closes every connection, idle or opening, so the process can exit at once. */
  close(): void {
    this.agent.destroy();
  }
}

/** The whole body, or a rejection when it outgrows the cap or the connection ends early. */
const readAnswer = (res: IncomingMessage, maxBytes: number, stop: (error: Error) => void): Promise<Attempt> =>
  new Promise((resolve, reject) => {
    const tooLarge = () => new Error(`answer larger than ${maxBytes} bytes, cut off`);
    if (Number(res.headers['content-length']) > maxBytes) return stop(tooLarge());
    const chunks: Buffer[] = [];
    let size = 0;
    res.on('data', (chunk: Buffer) => {
      size += chunk.length;
      if (size > maxBytes) return stop(tooLarge());
      chunks.push(chunk);
    });
    res.once('end', () => {
      const answer = { status: res.statusCode ?? 0, reason: res.statusMessage ?? '', headers: res.headers };
      resolve({ ok: true, answer: { ...answer, body: Buffer.concat(chunks) } });
    });
    res.on('error', reject);
    res.once('close', () => {
      if (!res.complete) reject(new Error('the connection closed before the whole answer arrived'));
    });
  });
