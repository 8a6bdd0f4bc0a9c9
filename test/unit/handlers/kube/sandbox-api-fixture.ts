/**
 * A scripted Sandbox API on a clock for the fetch-wait unit tests: Sandboxes by name, a landing at a time the test
 * sets, and outages (an API server refusing connections, or stopped and answering nothing), so waits that outlive a
 * restart or a stopped server are tested without real time. Every request is recorded with its deadline.
 */
import type { FetchClient } from '../../../../handlers/kube/fetch-ask';
import type { Clock } from '../../../../src/core/clock';
import type { HttpAnswer } from '../../../../src/core/http/request';
import { type KubeAnswer, type KubeObject, KubeUnreachable } from '../../../../src/kube/client';
import { askedAnnotation } from '../../../../src/kube/names';
import { KubeApiError, statusOf } from '../../../../src/kube/status';

export const EARLIER = '2026-01-01T00:00:00Z';
/** The client's own deadline when a call names none (KubeClient's default). */
const CLIENT_TIMEOUT_MS = 30_000;

type Entry = { key: string; asked?: string; fetched?: string };
export interface LiveSandbox {
  metadata: { name: string; resourceVersion: string; annotations: Record<string, string> };
  spec: { repos: Array<{ key: string }> };
  status: { repos: Entry[] };
}

/** From `from` until `to` (ms on the clock) the server refuses connections, or is stopped and answers nothing. */
export interface Outage {
  readonly from: number;
  readonly to: number;
  readonly kind: 'refused' | 'stopped';
}

export interface RecordedRequest {
  readonly what: string;
  readonly at: number;
  readonly timeoutMs: number | undefined;
}

const raw = (status: number, body: unknown): HttpAnswer => ({
  status,
  reason: '',
  headers: {},
  body: Buffer.from(typeof body === 'string' ? body : JSON.stringify(body)),
});

export const sandboxApi = (clock: Clock, names: readonly string[] = ['agent-1']) => {
  const live = new Map<string, LiveSandbox>(
    names.map((name) => [
      name,
      {
        metadata: { name, resourceVersion: '5', annotations: {} },
        spec: { repos: [{ key: 'site' }] },
        status: { repos: [{ key: 'site', asked: EARLIER, fetched: EARLIER }] },
      },
    ]),
  );
  /** When each Sandbox's node cache lands the fetch asked of it (ms on the clock); never when absent. */
  const landings = new Map<string, number>();
  const outages: Outage[] = [];
  const requests: RecordedRequest[] = [];
  const told = new Set<string>();

  const askedOf = (name: string) => live.get(name)!.metadata.annotations[askedAnnotation('site')];
  /** The Sandbox as it stands now: landed once its landing time has come. */
  const view = (name: string): LiveSandbox => {
    const sandbox = live.get(name)!;
    const landing = landings.get(name);
    const asked = askedOf(name);
    if (landing !== undefined && asked !== undefined && clock.now() >= landing) {
      sandbox.status.repos = [{ key: 'site', asked, fetched: asked }];
    }
    return sandbox;
  };
  const outageAt = (ms: number) => outages.find((o) => o.from <= ms && ms < o.to);
  const unreachable = (what: string, reason: string) =>
    new KubeUnreachable(reason, false, `${what} failed: ${reason}`, { Server: 'https://k:6443' });
  /** Waits `ms` as the request does, or fails as its deadline or an outage starting meanwhile cuts it. */
  const hold = async (what: string, ms: number, timeoutMs = CLIENT_TIMEOUT_MS) => {
    const start = clock.now();
    const cut = outages.find((o) => o.from > start && o.from < start + Math.min(ms, timeoutMs));
    if (cut?.kind === 'refused') {
      await clock.sleep(cut.from - start);
      throw unreachable(what, 'socket hang up');
    }
    const stoppedFor = cut === undefined ? ms : Infinity;
    if (stoppedFor > timeoutMs) {
      await clock.sleep(timeoutMs);
      throw unreachable(what, `no answer within ${timeoutMs / 1000} s`);
    }
    await clock.sleep(ms);
  };
  /** A request arriving now: refused or held by an outage, else served. */
  const arrive = async (what: string, timeoutMs: number | undefined) => {
    requests.push({ what, at: clock.now(), timeoutMs });
    const outage = outageAt(clock.now());
    if (outage?.kind === 'refused') throw unreachable(what, 'connect ECONNREFUSED 127.0.0.1:6443');
    if (outage?.kind === 'stopped') await hold(what, Infinity, timeoutMs);
  };
  const nameOf = (path: string) =>
    /sandboxes\/([^/?]+)/.exec(path)?.[1] ?? /metadata\.name%3D([^&]+)/.exec(path)?.[1] ?? '';

  const client: FetchClient = {
    connection: { server: 'https://k:6443' },
    list: async (path, timeoutMs) => {
      await arrive(`LIST ${nameOf(path)}`, timeoutMs);
      const sandbox = view(nameOf(path));
      return { items: [sandbox as unknown as KubeObject], resourceVersion: sandbox.metadata.resourceVersion };
    },
    call: async (method, path, options = {}) => {
      const name = nameOf(path);
      const watch = path.includes('watch=1');
      const what = `${watch ? 'WATCH' : method} ${name}`;
      await arrive(what, options.timeoutMs);
      if (watch) {
        const windowMs = Number(/timeoutSeconds=(\d+)/.exec(path)?.[1]) * 1000;
        // A landing since the last one told is an event (a watch resumed after an outage replays it, as etcd does).
        const landing = landings.get(name);
        const lands = landing !== undefined && !told.has(name) && landing < clock.now() + windowMs;
        await hold(what, lands ? Math.max(0, landing - clock.now()) : windowMs, options.timeoutMs);
        if (lands) told.add(name);
        const events = lands ? [{ type: 'MODIFIED', object: view(name) }] : [];
        return { status: 200, body: undefined, raw: raw(200, events.map((e) => JSON.stringify(e)).join('\n')) };
      }
      if (method === 'PATCH') {
        const patch = options.body as { metadata: { annotations: object } };
        Object.assign(live.get(name)!.metadata.annotations, patch.metadata.annotations);
      }
      const body = view(name);
      return { status: 200, body, raw: raw(200, body) } satisfies KubeAnswer;
    },
    error: (answer, request) => new KubeApiError(statusOf(answer), request, 'https://k:6443'),
  };
  return { client, live, landings, outages, requests, askedOf };
};
