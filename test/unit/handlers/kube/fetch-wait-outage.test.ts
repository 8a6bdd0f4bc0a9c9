// Unit test of a fetch wait that loses the API server (issue 16 item 9), over a scripted API on the virtual clock: a
// restart 9 s into a 45 s wait had failed the apply with `socket hang up` while the verdict landed at 35 s; a stopped
// server held a 10 s wait for the 30 s request timeout. Now list and watch are asked again after a bounded pause until
// the budget ends, every request is capped at the budget left, and an error answer still fails at once.
import * as z from 'zod/mini';
import { kubeDomain } from '../../../../handlers/kube/domain';
import type { KubeSession } from '../../../../handlers/kube/session';
import type { FetchClient } from '../../../../handlers/kube/fetch-ask';
import type { HandlerDomain } from '../../../../src/core/kind';
import { RETRY_BACKOFF_MS, WATCH_CLOSE_GRACE_MS } from '../../../../src/kube/watch';
import { invoke } from '../../../support/run-handler';
import { VirtualClock } from '../../../support/virtual-clock';
import { FETCH_SPEC } from '../../src/kube/kube-repo-fetch-fixtures';
import { EARLIER, sandboxApi } from './sandbox-api-fixture';

const domainOver = (client: FetchClient): HandlerDomain<KubeSession, unknown> => ({
  ...kubeDomain(),
  target: z.unknown(),
  connect: async () => ({ client: client as unknown as KubeSession['client'], cluster: 'Kubernetes cluster home' }),
  close: async () => undefined,
});
const apply = (client: FetchClient, clock: VirtualClock, budgetSeconds: number) =>
  invoke(domainOver(client), 'kube-repo-fetch', 'apply', {}, { ...FETCH_SPEC, budgetSeconds }, {}, clock);

test('an API server restart 9 s into a 45 s wait is waited out; the verdict landing at 35 s is printed', async () => {
  const clock = new VirtualClock();
  const t0 = clock.now();
  const api = sandboxApi(clock);
  api.outages.push({ from: t0 + 8_500, to: t0 + 20_000, kind: 'refused' });
  api.landings.set('agent-1', t0 + 35_000);
  const run = await apply(api.client, clock, 45);
  expect(run.code).toBe(0);
  expect(run.stderr).toContain(
    'Sandbox jr2/agent-1: the Kubernetes API did not answer (socket hang up); asking again until the budget ends ' +
      '(37 s left)',
  );
  expect(run.stderr).toContain('Sandbox jr2/agent-1: the Kubernetes API answers again; still waiting');
  expect(run.stderr).toContain(`repo "site" fetched at ${api.askedOf('agent-1')} (after 35 s)`);
  // Asked again 0.25, 0.5, 1, then every 2 s while it was down, and the watch resumed after it.
  const during = api.requests.filter((r) => r.at >= t0 + 8_500 && r.at < t0 + 20_000).map((r) => r.at - t0);
  expect(during).toEqual([8_750, 9_250, 10_250, 12_250, 14_250, 16_250, 18_250]);
  expect(RETRY_BACKOFF_MS).toEqual({ first: 250, max: 2000 });
});

test('a stopped API server ends a 10 s wait as stale at its budget, not after the 30 s request timeout', async () => {
  const clock = new VirtualClock();
  const t0 = clock.now();
  const api = sandboxApi(clock);
  api.outages.push({ from: t0 + 2_000, to: Infinity, kind: 'stopped' });
  const run = await apply(api.client, clock, 10);
  expect(run.code).toBe(0);
  expect(run.stderr).toContain(
    `Warning: Sandbox jr2/agent-1: repo "site" is stale as of ${EARLIER}: no answer from the node cache within 10 s`,
  );
  expect(clock.now() - t0).toBeLessThanOrEqual(10_000 + WATCH_CLOSE_GRACE_MS);
  // Every request was capped at what was left of the budget (a watch at its window, plus the grace).
  for (const { what, at, timeoutMs } of api.requests) {
    const left = t0 + 10_000 - at;
    expect({ what, timeoutMs }).toEqual({ what, timeoutMs: expect.any(Number) });
    expect(timeoutMs).toBeLessThanOrEqual(what.startsWith('WATCH') ? Math.max(left, 3000) + 250 : left);
  }
});

test('an API server that never comes back ends the wait as stale at its budget, saying it did not answer', async () => {
  const clock = new VirtualClock();
  const t0 = clock.now();
  const api = sandboxApi(clock);
  api.outages.push({ from: t0 + 5_000, to: Infinity, kind: 'refused' });
  const run = await apply(api.client, clock, 20);
  expect(run.code).toBe(0);
  expect(run.stderr).toContain(
    'no answer from the node cache within 20 s (the Kubernetes API did not answer: connect ECONNREFUSED ' +
      '127.0.0.1:6443) (after 20 s); the apply succeeds with what the cache holds',
  );
  expect(clock.now() - t0).toBe(20_000);
  const retries = api.requests.filter((r) => r.at >= t0 + 5_000);
  expect(retries.length).toBeGreaterThan(5);
  expect(retries.length).toBeLessThan(20); // paused 0.25, 0.5, 1, then 2 s at most: never a busy loop
});

test('an error answer mid-wait (403) still fails the apply at once: only a missing answer is asked again', async () => {
  const clock = new VirtualClock();
  const api = sandboxApi(clock);
  const forbidden = { kind: 'Status', code: 403, reason: 'Forbidden', message: 'watch is forbidden' };
  const client: FetchClient = {
    ...api.client,
    call: (method, path, options) =>
      path.includes('watch=1')
        ? Promise.resolve({
            status: 403,
            body: forbidden,
            raw: { status: 403, reason: 'Forbidden', headers: {}, body: Buffer.from(JSON.stringify(forbidden)) },
          })
        : api.client.call(method, path, options),
  };
  const run = await apply(client, clock, 45);
  expect(run.code).toBe(1);
  expect(run.stderr).toContain('Kubernetes API answered 403 Forbidden: watch is forbidden');
});

test('a 503 "before all known HTTP paths have been installed" (a server starting up) is asked again', async () => {
  const clock = new VirtualClock();
  const t0 = clock.now();
  const api = sandboxApi(clock);
  api.landings.set('agent-1', t0 + 6_000);
  const starting = {
    kind: 'Status',
    code: 503,
    reason: 'ServiceUnavailable',
    message: 'the request has been made before all known HTTP paths have been installed, please try again',
  };
  let refused = 0;
  const client: FetchClient = {
    ...api.client,
    call: (method, path, options) =>
      path.includes('watch=1') && refused++ < 3
        ? Promise.resolve({
            status: 503,
            body: starting,
            raw: {
              status: 503,
              reason: 'Service Unavailable',
              headers: {},
              body: Buffer.from(JSON.stringify(starting)),
            },
          })
        : api.client.call(method, path, options),
  };
  const run = await apply(client, clock, 45);
  expect(run.code).toBe(0);
  expect(run.stderr).toContain('the Kubernetes API did not answer (503 ServiceUnavailable); asking again');
  expect(run.stderr).toContain(`repo "site" fetched at ${api.askedOf('agent-1')} (after 6 s)`);
});
