/**
 * Waiting on one object by list-then-watch, bounded by the clock port: the watch starts from the list's
 * resourceVersion so no change is missed, a 410 Expired (as an HTTP status or as an ERROR event after a 200)
 * re-lists, and a watch the server closes resumes from the last resourceVersion seen.
 */
import type { Clock } from '../core/clock';
import { asObject, parseJson } from '../core/http/body';
import type { KubeAnswer, KubeList, KubeObject } from './client';
import { KubeApiError, statusFromObject } from './status';

/** The client calls a watch needs; tests may hand in their own. */
export interface WatchClient {
  list(path: string): Promise<KubeList>;
  send(method: string, path: string): Promise<KubeAnswer>;
  readonly connection: { readonly server: string };
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
      const object = asObject(event?.object);
      const type = event?.type;
      const known = type === 'ADDED' || type === 'MODIFIED' || type === 'DELETED' || type === 'BOOKMARK';
      if (object === undefined || !(known || type === 'ERROR')) return [];
      return [{ type, object } as WatchEvent];
    });

/** How long one watch request stays open: a change is seen at most this late, since the core reads whole bodies. */
export const WATCH_WINDOW_SECONDS = 3;

export type WatchOutcome<T> = { readonly decided: true; readonly value: T } | { readonly decided: false };

/**
 * Calls `decide` with the object named `name` in `collection` (undefined while it does not exist) at the list and
 * after each change, until it returns a value or `budgetMs` has passed on `clock`.
 */
export const watchObject = async <T>(
  client: WatchClient,
  clock: Clock,
  collection: string,
  name: string,
  decide: (object: KubeObject | undefined) => T | undefined,
  budgetMs: number,
): Promise<WatchOutcome<T>> => {
  const deadline = clock.now() + budgetMs;
  const selector = `fieldSelector=${encodeURIComponent(`metadata.name=${name}`)}`;
  let resourceVersion: string | undefined;
  let relists = 0;
  while (clock.now() < deadline) {
    if (resourceVersion === undefined) {
      const list = await client.list(`${collection}?${selector}`);
      relists += 1;
      const value = decide(list.items[0]);
      if (value !== undefined) return { decided: true, value };
      resourceVersion = list.resourceVersion;
    }
    const seconds = Math.max(1, Math.min(WATCH_WINDOW_SECONDS, Math.ceil((deadline - clock.now()) / 1000)));
    const query = `${selector}&watch=1&allowWatchBookmarks=true&resourceVersion=${resourceVersion}`;
    const answer = await client.send('GET', `${collection}?${query}&timeoutSeconds=${seconds}`);
    if (answer.status === 410) {
      resourceVersion = undefined; // expired before the watch began: list again
      await pause(clock, relists);
      continue;
    }
    if (answer.status !== 200) throw watchError(client, collection, answer);
    for (const event of parseEvents(answer.raw.body)) {
      if (event.type === 'ERROR') {
        const status = statusFromObject(event.object, 500);
        if (status.code !== 410) throw new KubeApiError(status, `WATCH ${collection}`, client.connection.server);
        resourceVersion = undefined;
        break;
      }
      const version = event.object.metadata?.resourceVersion;
      if (typeof version === 'string') resourceVersion = version;
      if (event.type === 'BOOKMARK') continue;
      const value = decide(event.type === 'DELETED' ? undefined : event.object);
      if (value !== undefined) return { decided: true, value };
    }
    if (resourceVersion === undefined) await pause(clock, relists);
  }
  return { decided: false };
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
