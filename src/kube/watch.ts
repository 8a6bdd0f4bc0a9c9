/**
 * Waiting on one object by list-then-watch, bounded by the clock port: the watch starts from the list's
 * resourceVersion so no change is missed, a 410 Expired (as an HTTP status or as an ERROR event after a 200)
 * re-lists, a watch the server closes resumes from the last resourceVersion seen, and an API server that restarts
 * or stops mid-wait is asked again until the budget ends (a restart had failed a 45 s wait after 9 s).
 */
import type { Clock } from '../core/clock';
import { asObject, parseJson } from '../core/http/body';
import {
  type CallOptions,
  isKubeObject,
  type KubeAnswer,
  type KubeList,
  type KubeObject,
  KubeUnreachable,
} from './client';
import { KubeApiError, statusFromObject } from './status';
import { isRecord } from '../core/records';

/** The client calls a watch needs; tests may hand in their own. Each takes a deadline shorter than the client's. */
export interface WatchClient {
  list(path: string, timeoutMs?: number): Promise<KubeList>;
  call(method: string, path: string, options?: CallOptions): Promise<KubeAnswer>;
  readonly connection: { readonly server: string };
}

/** Progress of a wait that lost the API server, for the apply's log. */
export interface WatchProgress {
  /** The first failure of a run of them: the wait goes on until its budget. */
  lost?(reason: string, leftMs: number): void;
  /** The first answer after a run of failures. */
  regained?(): void;
}

export type WatchEvent =
  | { readonly type: 'ADDED' | 'MODIFIED' | 'DELETED' | 'BOOKMARK'; readonly object: KubeObject }
  | { readonly type: 'ERROR'; readonly object: Readonly<Record<string, unknown>> };

/** The events of one watch answer (NDJSON); a line that is not an event is skipped. */
export const parseEvents = (body: Buffer): WatchEvent[] =>
  body
    .toString('utf8')
    .split('\n')
    .flatMap((line) => {
      const parsed = line.trim() === '' ? { ok: false as const } : parseJson(Buffer.from(line));
      const event = parsed.ok ? asObject(parsed.value) : undefined;
      return event === undefined ? [] : eventOf(event.type, event.object);
    });

const isObjectEvent = (type: unknown): type is 'ADDED' | 'MODIFIED' | 'DELETED' | 'BOOKMARK' =>
  type === 'ADDED' || type === 'MODIFIED' || type === 'DELETED' || type === 'BOOKMARK';

/** The event of a line's `type` and `object`, none when either is not one. */
const eventOf = (type: unknown, object: unknown): WatchEvent[] => {
  if (type === 'ERROR' && isRecord(object)) return [{ type, object }];
  return isObjectEvent(type) && isKubeObject(object) ? [{ type, object }] : [];
};

/** How long one watch request stays open: a change is seen at most this late, since the core reads whole bodies. */
export const WATCH_WINDOW_SECONDS = 3;
/** How long after its window a watch request may still take: the server's close carries the window's events. */
export const WATCH_CLOSE_GRACE_MS = 250;
/** The pause after a failed request doubles from the first to the last, and the budget bounds them all. */
export const RETRY_BACKOFF_MS = { first: 250, max: 2000 } as const;

export type WatchOutcome<T> =
  | { readonly decided: true; readonly value: T }
  /** `unreachable`: why the API server was not answering when the budget ran out. */
  | { readonly decided: false; readonly unreachable?: string };

/**
 * Calls `decide` with the object named `name` in `collection` (undefined while it does not exist) at the list and
 * after each change, until it returns a value or `budgetMs` has passed on `clock`. A request that gets no answer, or
 * a not-yet status (an API server restarting or stopped), is tried again after a bounded pause until the budget
 * ends, and no request may outlast the budget (a watch by at most its window's rounding and the grace).
 */
export const watchObject = async <T>(
  client: WatchClient,
  clock: Clock,
  collection: string,
  name: string,
  decide: (object: KubeObject | undefined) => T | undefined,
  budgetMs: number,
  progress: WatchProgress = {},
): Promise<WatchOutcome<T>> => {
  const deadline = clock.now() + budgetMs;
  const selector = `fieldSelector=${encodeURIComponent(`metadata.name=${name}`)}`;
  let resourceVersion: string | undefined;
  let relists = 0;
  let failing: string | undefined;
  let backoff: number = RETRY_BACKOFF_MS.first;
  const answered = () => {
    if (failing !== undefined) progress.regained?.();
    failing = undefined;
    backoff = RETRY_BACKOFF_MS.first;
  };
  while (clock.now() < deadline) {
    try {
      if (resourceVersion === undefined) {
        const list = await client.list(`${collection}?${selector}`, deadline - clock.now());
        answered();
        relists += 1;
        const value = decide(list.items[0]);
        if (value !== undefined) return { decided: true, value };
        resourceVersion = list.resourceVersion;
      }
      const left = deadline - clock.now();
      const seconds = Math.max(1, Math.min(WATCH_WINDOW_SECONDS, Math.ceil(left / 1000)));
      const query = `${selector}&watch=1&allowWatchBookmarks=true&resourceVersion=${resourceVersion}`;
      const timeoutMs = Math.max(left, seconds * 1000) + WATCH_CLOSE_GRACE_MS;
      const answer = await client.call('GET', `${collection}?${query}&timeoutSeconds=${seconds}`, { timeoutMs });
      const step = readWatch(client, collection, answer, decide);
      answered();
      if (step.decided) return step;
      resourceVersion = step.expired ? undefined : (step.resourceVersion ?? resourceVersion);
      if (resourceVersion === undefined) await pause(clock, relists);
    } catch (error) {
      const reason = notAnswering(error);
      if (reason === undefined) throw error;
      if (clock.now() >= deadline) break; // cut by the budget itself: the wait is over, not the server
      if (failing === undefined) progress.lost?.(reason, deadline - clock.now());
      failing = reason;
      await clock.sleep(Math.min(backoff, Math.max(0, deadline - clock.now())));
      backoff = Math.min(RETRY_BACKOFF_MS.max, backoff * 2);
    }
  }
  return failing === undefined ? { decided: false } : { decided: false, unreachable: failing };
};

/** Statuses an API server answers while it cannot serve yet (starting: "before all known HTTP paths have been
 * installed"; etcd away; overloaded): client-go asks again after them too. */
const NOT_YET = new Set([429, 500, 502, 503, 504]);

/** An ERROR event inside a watch the server did answer: it fails the wait, whatever its code. */
class WatchErrorEvent extends KubeApiError {}

/** Why the server is not answering, when `error` says so (no answer at all, or a not-yet status), else undefined. */
const notAnswering = (error: unknown): string | undefined => {
  if (error instanceof KubeUnreachable) return error.reason;
  if (!(error instanceof KubeApiError) || error instanceof WatchErrorEvent) return undefined;
  if (!NOT_YET.has(error.status.code)) return undefined;
  return `${error.status.code}${error.status.reason === '' ? '' : ` ${error.status.reason}`}`;
};

type WatchStep<T> =
  | { readonly decided: true; readonly value: T }
  | { readonly decided: false; readonly expired: boolean; readonly resourceVersion?: string };

/** One watch answer: a decision, or where the next watch starts (`expired`: list again). */
const readWatch = <T>(
  client: WatchClient,
  collection: string,
  answer: KubeAnswer,
  decide: (object: KubeObject | undefined) => T | undefined,
): WatchStep<T> => {
  if (answer.status === 410) return { decided: false, expired: true }; // expired before the watch began
  if (answer.status !== 200) throw watchError(client, collection, answer);
  let resourceVersion: string | undefined;
  for (const event of parseEvents(answer.raw.body)) {
    if (event.type === 'ERROR') {
      const status = statusFromObject(event.object, 500);
      if (status.code !== 410) throw new WatchErrorEvent(status, `WATCH ${collection}`, client.connection.server);
      return { decided: false, expired: true };
    }
    const version = event.object.metadata?.resourceVersion;
    if (typeof version === 'string') resourceVersion = version;
    if (event.type === 'BOOKMARK') continue;
    const value = decide(event.type === 'DELETED' ? undefined : event.object);
    if (value !== undefined) return { decided: true, value };
  }
  return { decided: false, expired: false, ...(resourceVersion === undefined ? {} : { resourceVersion }) };
};

/** A short pause before a repeated re-list, so a server that keeps expiring versions is not hammered. */
const pause = (clock: Clock, relists: number): Promise<void> =>
  relists > 1 ? clock.sleep(Math.min(1000, 100 * relists)) : Promise.resolve();

const watchError = (client: WatchClient, collection: string, answer: KubeAnswer): Error => {
  const object = asObject(answer.body);
  const status =
    object?.kind === 'Status'
      ? statusFromObject(object, answer.status)
      : { code: answer.status, reason: answer.raw.reason, message: 'watch refused' };
  return new KubeApiError(status, `WATCH ${collection}`, client.connection.server);
};
