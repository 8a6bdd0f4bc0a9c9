/**
 * The work of a destroy run (`sharedDestroy`): objects that arrive together are destroyed over one
 * connection as one batch, handed to the domain's `destroyAll` when it has one; a failing object fails
 * alone, with its own line; a failed connect is the outcome of each object of its batch, never a throw;
 * a request for another target, or an identity the kind refuses, fails before any connection.
 * `coalesced` and `batched`: calls during a run share the next run.
 */
import { systemClock } from '../../../../../src/core/clock';
import type { DestroyItem } from '../../../../../src/core/kind';
import { batched, coalesced, destroyFromHook, sharedDestroy } from '../../../../../src/core/destroy-relay';
import { widgetDomain, type WidgetWorld } from '../fake-domain';

let world: WidgetWorld;
beforeEach(() => {
  world = {
    live: new Map([
      ['w1', 1],
      ['w2', 2],
      ['w3', 3],
    ]),
    calls: [],
  };
});

const context = { env: {}, log: () => undefined, clock: systemClock };
const request = (id: string, shelf = 'a') => ({ kind: 'widget', target: { shelf }, identity: { id } });

test('objects that arrive together share one connection; a failing one fails alone, with its own line', async () => {
  const run = sharedDestroy(widgetDomain(world), context, { shelf: 'a' });
  const outcomes = await Promise.all(['w1', 'stuck', 'w2', 'w3'].map((id) => run.destroy(request(id))));
  await run.close();
  expect(outcomes).toEqual([
    { code: 0, lines: [] },
    { code: 1, lines: ['widget destroy: Widget not removed: the server said: line two; Host: h1'] },
    { code: 0, lines: [] },
    { code: 0, lines: [] },
  ]);
  expect([...world.live.keys()]).toEqual([]);
  expect(world.calls).toEqual(['connect a', 'close']);
});

/**
 * A clock the test moves by hand: each sleep returns when `step` lets it, its time moved on by what it asked. With the
 * system clock a hook "a few ms behind the first" was 3 ms of a real timer, which fired after the gather's 10 ms
 * quiet window under load (CI beside this file, load 15): the first object made a batch alone and the test failed.
 */
const handClock = () => {
  let now = 0;
  const waiting: Array<() => void> = [];
  const clock = {
    now: () => now,
    sleep: (ms: number) => new Promise<void>((resolve) => waiting.push(() => ((now += ms), resolve()))),
  };
  const turn = () => new Promise((resolve) => setImmediate(resolve));
  /** Lets sleeps return, one a turn, until `done`. */
  const stepUntil = async (done: () => boolean) => {
    for (let turns = 0; !done(); turns += 1) {
      if (turns > 10_000) throw new Error('the run never got there');
      await turn();
      waiting.shift()?.();
    }
  };
  return { clock, advance: (ms: number) => void (now += ms), turn, stepUntil };
};

test("a domain's destroyAll gets objects that came together as one batch, later ones as the next", async () => {
  // Regression: the first of hooks started together made a batch alone (22 of 44 batches of 200 units held one).
  const batches: string[][] = [];
  let release: () => void = () => undefined;
  const domain = {
    ...widgetDomain(world),
    destroyAll: async (session: WidgetWorld, items: readonly DestroyItem<WidgetWorld, { id: string }>[]) => {
      batches.push(items.map(({ removal }) => removal?.id ?? ''));
      if (batches.length === 1) await new Promise<void>((resolve) => (release = resolve));
      for (const { removal, context: own } of items) {
        own.log(`removed ${removal?.id}`);
        session.live.delete(removal?.id ?? '');
      }
      return items.map(() => undefined);
    },
  };
  const hand = handClock();
  const run = sharedDestroy(domain, { ...context, clock: hand.clock }, { shelf: 'a' });
  const first = run.destroy(request('w1'));
  await hand.turn(); // the gather sleeps its quiet window
  hand.advance(3); // a hook a few ms behind the first
  const together = [first, run.destroy(request('w2'))];
  await hand.stepUntil(() => batches.length === 1);
  const later = run.destroy(request('w3')); // while the first batch works
  release();
  await hand.stepUntil(() => batches.length === 2);
  const outcomes = await Promise.all([...together, later]);
  await run.close();
  expect(batches).toEqual([['w1', 'w2'], ['w3']]);
  expect(outcomes.map(({ lines }) => lines)).toEqual([['removed w1'], ['removed w2'], ['removed w3']]);
});

test('a failed connect is the outcome of each object of its batch; the next batch connects again', async () => {
  // Regression: the connect's throw rejected the whole batch, and the relay's leader with it.
  const domain = widgetDomain(world);
  let connects = 0;
  const flaky: typeof domain = {
    ...domain,
    connect: async (target) => domain.connect((connects += 1) === 1 ? { shelf: 'gone' } : target),
  };
  const run = sharedDestroy(flaky, context, { shelf: 'a' });
  const outcomes = await Promise.all(['w1', 'w2', 'w3'].map((id) => run.destroy(request(id))));
  await run.close();
  expect(outcomes).toEqual([
    { code: 1, lines: ['widget destroy: Shelf unreachable: shelf gone did not answer'] },
    { code: 0, lines: [] }, // w2 and w3 came while w1's batch connected: the next batch
    { code: 0, lines: [] },
  ]);
  expect(world.calls).toEqual(['connect a', 'close']);
  expect([...world.live.keys()]).toEqual(['w1']);
});

test('another target, or an identity the kind refuses, fails before any connection', async () => {
  const run = sharedDestroy(widgetDomain(world), context, { shelf: 'a' });
  const [other, empty] = await Promise.all([run.destroy(request('w1', 'b')), run.destroy(request(''))]);
  await run.close();
  expect(other).toEqual({
    code: 1,
    lines: ['widget destroy: Wrong target: a destroy for another target reached this run; destroy again'],
  });
  expect(empty?.code).toBe(1);
  expect(empty?.lines.join('\n')).toMatch(/^widget destroy: Bad input: identity\.id: /);
  expect(world.calls).toEqual([]);
});

test('a hook whose lifecycle found its object, never adopted, deletes nothing and connects to nothing', async () => {
  const lines: string[] = [];
  const env = {
    HOMELAB_LIFECYCLE: JSON.stringify({
      object: '{"identity":{"id":"w1"},"target":"a"}',
      found: 'exists',
    }),
    HOMELAB_TARGET: '{"shelf":"a"}',
    HOMELAB_TARGET_LABEL: 'a',
  };
  const code = await destroyFromHook(widgetDomain(world), 'widget', { ...context, env }, (line) => lines.push(line));
  expect(code).toBe(0);
  expect(lines).toEqual([
    'widget: left in place: it existed before this stack declared it, and its construct did not say adopt: true; ' +
      'Terraform forgets it, nothing of it was deleted',
  ]);
  expect(world.calls).toEqual([]);
  expect(world.live.has('w1')).toBe(true);
});

/** An action whose runs the test ends one at a time, recording when each started. */
const gate = () => {
  const ends: Array<(fail?: Error) => void> = [];
  let runs = 0;
  const action = () =>
    new Promise<number>((resolve, reject) => {
      runs += 1;
      const run = runs;
      ends.push((fail) => (fail === undefined ? resolve(run) : reject(fail)));
    });
  const end = async (fail?: Error) => {
    ends.shift()?.(fail);
    await new Promise((resolve) => setImmediate(resolve));
  };
  return { action, end, runs: () => runs };
};

test('calls while a run is in progress share the next run; a call after that queues another', async () => {
  const { action, end, runs } = gate();
  const reload = coalesced(action);
  const first = reload();
  const second = reload();
  const third = reload();
  expect(runs()).toBe(1); // the second and third wait: the first run may have started before their changes
  await end();
  expect(await first).toBe(1);
  expect(runs()).toBe(2);
  const fourth = reload(); // run 2 is in progress: the fourth caller needs run 3
  await end();
  expect([await second, await third]).toEqual([2, 2]);
  await end();
  expect(await fourth).toBe(3);
  expect(runs()).toBe(3);
});

test('a failed run fails its callers only; the next call runs again', async () => {
  const { action, end } = gate();
  const reload = coalesced(action);
  const failing = reload();
  await end(new Error('sudo refused'));
  await expect(failing).rejects.toThrow('sudo refused');
  const next = reload();
  await end();
  expect(await next).toBe(2);
});

test('batched: items that come while a run works form the next run, each answered in order', async () => {
  const runs: string[][] = [];
  let release: () => void = () => undefined;
  const run = batched(async (items: readonly string[]) => {
    runs.push([...items]);
    if (runs.length === 1) await new Promise<void>((resolve) => (release = resolve));
    return items.map((item) => item.toUpperCase());
  });
  const first = run('a');
  const later = ['b', 'c', 'd'].map((item) => run(item)); // while the first run works
  await new Promise((resolve) => setImmediate(resolve));
  release();
  expect(await Promise.all([first, ...later])).toEqual(['A', 'B', 'C', 'D']);
  expect(runs).toEqual([['a'], ['b', 'c', 'd']]);
});

test('batched with a gather: items that come while it gathers join the first run', async () => {
  const runs: string[][] = [];
  let gathered: () => void = () => undefined;
  const run = batched(
    async (items: readonly string[]) => {
      runs.push([...items]);
      return items.map((item) => item.toUpperCase());
    },
    () => new Promise<void>((resolve) => (gathered = resolve)),
  );
  const all = ['a', 'b', 'c'].map((item) => run(item));
  await new Promise((resolve) => setImmediate(resolve));
  gathered();
  expect(await Promise.all(all)).toEqual(['A', 'B', 'C']);
  expect(runs).toEqual([['a', 'b', 'c']]);
});

test('batched: a run that throws fails its own items only', async () => {
  const run = batched(async (items: readonly string[]) => {
    if (items.includes('boom')) throw new Error('the session broke');
    return items.map(() => 'ok');
  });
  await expect(run('boom')).rejects.toThrow('the session broke');
  expect(await run('fine')).toBe('ok');
});
