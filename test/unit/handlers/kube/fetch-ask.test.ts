// Unit test of a fetch ask's apply over a scripted API and the virtual clock: the budget ends an unanswered ask as a
// stale warning with exit 0 after exactly its seconds (no real waits), a verdict in the patch's answer needs no
// watch, a 410 mid-wait re-lists, and only a Sandbox that is gone or does not mount the key fails the apply.
import * as z from 'zod/mini';
import { kubeDomain } from '../../../../handlers/kube/domain';
import type { KubeSession } from '../../../../handlers/kube/session';
import { askForFetch, type FetchClient } from '../../../../handlers/kube/fetch-ask';
import type { HandlerDomain } from '../../../../src/core/kind';
import type { HttpAnswer } from '../../../../src/core/http/request';
import type { KubeAnswer, KubeObject } from '../../../../src/kube/client';
import { KubeApiError, statusOf } from '../../../../src/kube/status';
import { askedAnnotation } from '../../../../src/kube/names';
import { invoke } from '../../../support/run-handler';
import { VirtualClock } from '../../../support/virtual-clock';
import { FETCH_SPEC as spec } from '../../src/kube/kube-repo-fetch-fixtures';

const EARLIER = '2026-01-01T00:00:00Z';

type Entry = { key: string; asked?: string; fetched?: string; attempted?: string; error?: string };
type Live = { metadata: { name: string; resourceVersion: string; annotations: Record<string, string> } } & {
  spec: { repos: Array<{ key: string }> };
  status: { repos: Entry[] };
};

const raw = (status: number, body: unknown = {}): HttpAnswer => ({
  status,
  reason: '',
  headers: {},
  body: Buffer.from(typeof body === 'string' ? body : JSON.stringify(body)),
});
const reply = (status: number, body: unknown): KubeAnswer => ({ status, body, raw: raw(status, body) });

/** A Sandbox API: the object, the watch answers to hand out in turn, and every request made. */
const scriptedApi = (clock: VirtualClock, opts: { mounts?: string[]; onPatch?: (live: Live) => void } = {}) => {
  const live: Live = {
    metadata: { name: 'agent-1', resourceVersion: '5', annotations: {} },
    spec: { repos: (opts.mounts ?? ['site']).map((key) => ({ key })) },
    status: { repos: [{ key: 'site', asked: EARLIER, fetched: EARLIER }] },
  };
  /** Each watch request's events, made when the request arrives. */
  const watches: Array<() => object[]> = [];
  const requests: string[] = [];
  const client: FetchClient = {
    connection: { server: 'https://k:6443' },
    list: async (path) => {
      requests.push(`LIST ${path.split('?')[0]}`);
      return { items: [live as unknown as KubeObject], resourceVersion: live.metadata.resourceVersion };
    },
    call: async (method, path, options) => {
      const body = options?.body;
      requests.push(`${method} ${path.includes('watch=1') ? 'WATCH' : path}`);
      if (path.includes('watch=1')) {
        await clock.sleep(Number(/timeoutSeconds=(\d+)/.exec(path)?.[1]) * 1000); // the server holds the watch
        const events = watches.shift()?.() ?? [];
        return { status: 200, body: undefined, raw: raw(200, ndjson(events)) };
      }
      if (method === 'PATCH') {
        Object.assign(live.metadata.annotations, (body as { metadata: { annotations: object } }).metadata.annotations);
        opts.onPatch?.(live);
      }
      return reply(200, live);
    },
    error: (answer, request) => new KubeApiError(statusOf(answer), request, 'https://k:6443'),
  };
  return { live, watches, requests, client };
};
const ndjson = (events: object[]) => events.map((e) => JSON.stringify(e)).join('\n');
const askedOf = (live: Live) => live.metadata.annotations[askedAnnotation('site')]!;

/** The kube domain with its connection replaced by the scripted client, so the CLI's exit code is tested too. */
const domainOver = (client: FetchClient): HandlerDomain<KubeSession, unknown> => ({
  ...kubeDomain(),
  target: z.unknown(),
  connect: async () => ({ client: client as unknown as KubeSession['client'], cluster: 'Kubernetes cluster home' }),
  close: async () => undefined,
});

test('an ask no one answers ends as a stale warning after exactly its budget, and the apply exits 0', async () => {
  const clock = new VirtualClock();
  const start = clock.now();
  const api = scriptedApi(clock);
  const run = await invoke(domainOver(api.client), 'kube-repo-fetch', 'apply', {}, spec, {}, clock);
  expect(run.code).toBe(0);
  expect(clock.now() - start).toBe(75_000);
  expect(run.stderr).toContain(
    `Warning: Sandbox jr2/agent-1: repo "site" is stale as of ${EARLIER}: no answer from the node cache within 75 s ` +
      '(after 75 s); the apply succeeds with what the cache holds, and the next plan asks again',
  );
});

test('a budget of 1 s waits one watch window of 1 s', async () => {
  const clock = new VirtualClock();
  const api = scriptedApi(clock);
  const answer = await askForFetch(api.client, 'c', { ...spec, budgetSeconds: 1 }, { env: {}, log: () => {}, clock });
  expect(answer).toMatchObject({ stale: 'no answer from the node cache within 1 s' });
  expect(clock.sleeps).toEqual([1000]);
});

test('a verdict already in the patch’s answer is printed with no watch', async () => {
  const clock = new VirtualClock();
  const api = scriptedApi(clock, {
    onPatch: (live) => (live.status.repos = [{ key: 'site', asked: askedOf(live), fetched: askedOf(live) }]),
  });
  const log: string[] = [];
  const answer = await askForFetch(api.client, 'c', spec, { env: {}, log: (l) => log.push(l), clock });
  expect(answer).toEqual({ fetched: askedOf(api.live) });
  expect(api.requests).toEqual([
    'GET /apis/core.jr2.dev/v1alpha1/namespaces/jr2/sandboxes/agent-1',
    'PATCH /apis/core.jr2.dev/v1alpha1/namespaces/jr2/sandboxes/agent-1',
  ]);
  expect(log).toEqual([`Sandbox jr2/agent-1: repo "site" fetched at ${askedOf(api.live)} (after 0 s)`]);
});

test('a landing carried by a watch event is fetched, after the windows it took', async () => {
  const clock = new VirtualClock();
  const api = scriptedApi(clock);
  const landing = () => ({
    type: 'MODIFIED',
    object: { ...api.live, status: { repos: [{ key: 'site', asked: askedOf(api.live), fetched: askedOf(api.live) }] } },
  });
  api.watches.push(
    () => [],
    () => [],
    () => [landing()],
  );
  const log: string[] = [];
  expect(await askForFetch(api.client, 'c', spec, { env: {}, log: (l) => log.push(l), clock })).toEqual({
    fetched: askedOf(api.live),
  });
  expect(log.at(-1)).toBe(`Sandbox jr2/agent-1: repo "site" fetched at ${askedOf(api.live)} (after 9 s)`);
});

test('an ERROR 410 event mid-wait re-lists, and the landing the re-list shows answers the ask', async () => {
  const clock = new VirtualClock();
  const api = scriptedApi(clock);
  const expired = { type: 'ERROR', object: { kind: 'Status', code: 410, reason: 'Expired', message: 'too old' } };
  // The landing happens while the watch expires, so only a re-list can see it.
  api.watches.push(() => {
    api.live.status.repos = [{ key: 'site', asked: askedOf(api.live), fetched: askedOf(api.live) }];
    return [expired];
  });
  expect(await askForFetch(api.client, 'c', spec, { env: {}, log: () => {}, clock })).toEqual({
    fetched: askedOf(api.live),
  });
  expect(api.requests.filter((r) => r.startsWith('LIST'))).toHaveLength(2);
});

test('a Sandbox deleted mid-wait fails the apply: "Sandbox jr2/agent-1 is gone"', async () => {
  const clock = new VirtualClock();
  const api = scriptedApi(clock);
  api.watches.push(() => [{ type: 'DELETED', object: { metadata: { name: 'agent-1', resourceVersion: '9' } } }]);
  const run = await invoke(domainOver(api.client), 'kube-repo-fetch', 'apply', {}, spec, {}, clock);
  expect(run.code).toBe(1);
  expect(run.stderr).toMatch(/\nkube-repo-fetch apply: Sandbox jr2\/agent-1 is gone: it was deleted while/);
});

test('a key the Sandbox does not mount fails naming it, before any ask is raised', async () => {
  const clock = new VirtualClock();
  const api = scriptedApi(clock, { mounts: ['docs', 'blog'] });
  const run = await invoke(domainOver(api.client), 'kube-repo-fetch', 'apply', {}, spec, {}, clock);
  expect(run.code).toBe(1);
  expect(run.stderr).toContain(
    'Fetch refused: Sandbox jr2/agent-1 does not mount repo "site" (it mounts "docs", "blog")',
  );
  expect(api.requests.some((r) => r.startsWith('PATCH'))).toBe(false);
});
