// Unit test of fetch asks in one batch apply: each waits up to its budget, so the kind applies them side by side
// (applyConcurrency) and two unanswered 75 s asks end after 75 s, not 150 s. The clock here runs timers in the order
// they are due, so waits that overlap take the time of the longest, as real ones do.
import * as z from 'zod/mini';
import { kubeDomain } from '../../../../handlers/kube/domain';
import type { KubeSession } from '../../../../handlers/kube/session';
import type { FetchClient } from '../../../../handlers/kube/fetch-ask';
import { applyBatch } from '../../../../src/core/batch-apply';
import { canonicalJson } from '../../../../src/core/canonical';
import type { Clock } from '../../../../src/core/clock';
import type { HandlerDomain } from '../../../../src/core/kind';
import { APPLY, ENV } from '../../../../src/core/protocol';
import { FETCH_SPEC } from '../../src/kube/kube-repo-fetch-fixtures';
import { sandboxApi } from './sandbox-api-fixture';

/** Sleeps end in the order they are due; time moves to the next one once every waiter has gone to sleep. */
class TimerClock implements Clock {
  private ms = 1_800_000_000_000;
  private readonly timers: Array<{ at: number; wake: () => void }> = [];
  private ticking = false;

  now = (): number => this.ms;

  sleep = (ms: number): Promise<void> =>
    new Promise((wake) => {
      this.timers.push({ at: this.ms + ms, wake });
      this.tick();
    });

  private tick(): void {
    if (this.ticking) return;
    this.ticking = true;
    // Two turns of the loop: every scripted call (all promises) has reached its next sleep by then.
    setImmediate(() =>
      setImmediate(() => {
        this.ticking = false;
        this.timers.sort((a, b) => a.at - b.at);
        const next = this.timers.shift();
        if (next === undefined) return;
        this.ms = Math.max(this.ms, next.at);
        next.wake();
        if (this.timers.length > 0) this.tick();
      }),
    );
  }
}

const batchOf = (client: FetchClient, sandboxes: readonly string[]) => {
  const domain: HandlerDomain<KubeSession, unknown> = {
    ...kubeDomain(),
    target: z.unknown(),
    connect: async () => ({ client: client as unknown as KubeSession['client'], cluster: 'Kubernetes cluster home' }),
    close: async () => undefined,
  };
  const env: NodeJS.ProcessEnv = { [ENV.target]: canonicalJson({}), [APPLY.drifted]: sandboxes.join(',') };
  sandboxes.forEach((sandbox, index) => {
    const spec = { ...FETCH_SPEC, sandbox };
    env[`${APPLY.objectPrefix}${index}`] = canonicalJson({ kind: 'kube-repo-fetch', spec, after: [] });
  });
  return { domain, env };
};

test('two fetch asks in one batch apply wait side by side: both unanswered end after 75 s, not 150 s', async () => {
  const clock = new TimerClock();
  const t0 = clock.now();
  const api = sandboxApi(clock, ['agent-1', 'agent-2']);
  const { domain, env } = batchOf(api.client, ['agent-1', 'agent-2']);
  const log: string[] = [];
  await applyBatch(domain, env, { env: {}, log: (l) => log.push(l), clock });
  expect(clock.now() - t0).toBe(75_000);
  for (const name of ['agent-1', 'agent-2']) {
    expect(log).toContainEqual(
      expect.stringMatching(new RegExp(`^${name}: Warning: Sandbox jr2/${name}: .* \\(after 75 s\\)`)),
    );
  }
});

test('an ask answered early is printed while the other still waits', async () => {
  const clock = new TimerClock();
  const t0 = clock.now();
  const api = sandboxApi(clock, ['agent-1', 'agent-2']);
  api.landings.set('agent-2', t0 + 4_000);
  const { domain, env } = batchOf(api.client, ['agent-1', 'agent-2']);
  const log: string[] = [];
  await applyBatch(domain, env, { env: {}, log: (l) => log.push(l), clock });
  const fetched = log.findIndex((l) => l.startsWith('agent-2: ') && l.includes('fetched at'));
  const stale = log.findIndex((l) => l.startsWith('agent-1: Warning'));
  expect(log[fetched]).toContain('(after 4 s)');
  expect(fetched).toBeLessThan(stale);
  expect(clock.now() - t0).toBe(75_000);
});
