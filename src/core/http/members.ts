/**
 * A service reached through several equivalent members (PVE cluster nodes, API servers): one
 * request is tried member by member under one deadline, the last good member first, moving on
 * only as failover.ts allows, so a sent write is never sent to a second member.
 */
import type { TlsRule } from './connect';
import { attemptLimits, mayMoveOn, memberOrder } from './failover';
import { type LastGoodStore, noMemory } from './last-good';
import {
  type Attempt,
  type AttemptFailure,
  type AttemptLimits,
  Endpoint,
  type HttpAnswer,
  type HttpRequest,
} from './request';

/** Answers above this are cut off: a hostile server must not grow a handler's memory at will. */
export const DEFAULT_MAX_BODY_BYTES = 16 * 1024 * 1024;

/** The slice of an `Endpoint` the loop uses; tests may hand in their own. */
export interface Connection {
  send(request: HttpRequest, limits: AttemptLimits): Promise<Attempt>;
  close(): void;
}

export interface MembersOptions {
  /** The deadline of one call, all members included. */
  readonly timeoutMs: number;
  /** The TLS rule of an endpoint, asked for at its first request (so a bad CA file fails that request). */
  readonly tlsFor: (endpoint: string) => TlsRule;
  /** @default DEFAULT_MAX_BODY_BYTES */
  readonly maxBodyBytes?: number;
  /** @default - no memory across processes */
  readonly memory?: LastGoodStore;
  /** @default - a real keep-alive connection */
  readonly open?: (endpoint: string, tls: TlsRule) => Connection;
  /** @default Date.now */
  readonly now?: () => number;
}

/** One member that did not answer, and why. */
export interface MemberFailure {
  readonly endpoint: string;
  readonly failure: AttemptFailure;
  readonly reason: string;
}

export type MembersOutcome =
  | { readonly ok: true; readonly endpoint: string; readonly answer: HttpAnswer }
  /** `unknown`: a request that was sent, got no answer and may not move on (a write's outcome is unknown). */
  | { readonly ok: false; readonly failures: readonly MemberFailure[]; readonly unknown?: MemberFailure };

export class Members {
  private readonly connections = new Map<string, Connection>();
  private lastGood: string | undefined;

  constructor(
    private readonly endpoints: readonly string[],
    private readonly options: MembersOptions,
  ) {
    this.lastGood = (options.memory ?? noMemory).load();
  }

  /**
   * Sends `request` to the first member that takes it; an answer of any status ends the loop.
   * `timeoutMs` replaces the options' deadline for this one call.
   */
  async send(request: HttpRequest, timeoutMs = this.options.timeoutMs): Promise<MembersOutcome> {
    const now = this.options.now ?? Date.now;
    const deadline = now() + timeoutMs;
    const order = memberOrder(this.endpoints, this.lastGood);
    const failures: MemberFailure[] = [];
    for (const [index, endpoint] of order.entries()) {
      const remaining = deadline - now();
      if (remaining <= 0) {
        failures.push({ endpoint, failure: 'unreached', reason: 'not tried: the deadline had passed' });
        continue;
      }
      const limits = attemptLimits(request.method, remaining, order.length - index, this.maxBodyBytes);
      const attempt = await this.connection(endpoint).send(request, limits);
      if (attempt.ok) {
        this.remember(endpoint);
        return { ok: true, endpoint, answer: attempt.answer };
      }
      const failed = { endpoint, failure: attempt.failure, reason: attempt.reason };
      if (!mayMoveOn(request.method, attempt.failure)) return { ok: false, failures, unknown: failed };
      failures.push(failed);
    }
    return { ok: false, failures };
  }

  /** Closes every member's connections so the process can exit at once. */
  close(): void {
    for (const connection of this.connections.values()) connection.close();
    this.connections.clear();
  }

  private get maxBodyBytes(): number {
    return this.options.maxBodyBytes ?? DEFAULT_MAX_BODY_BYTES;
  }

  private connection(endpoint: string): Connection {
    let connection = this.connections.get(endpoint);
    if (connection === undefined) {
      const open = this.options.open ?? ((url: string, tls: TlsRule) => new Endpoint(url, tls));
      connection = open(endpoint, this.options.tlsFor(endpoint));
      this.connections.set(endpoint, connection);
    }
    return connection;
  }

  private remember(endpoint: string): void {
    if (this.lastGood !== endpoint) (this.options.memory ?? noMemory).save(endpoint);
    this.lastGood = endpoint;
  }
}
