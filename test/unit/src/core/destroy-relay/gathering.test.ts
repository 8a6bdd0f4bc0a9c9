/**
 * How a destroy run's batches gather (`gathering`, `batched`'s `expected`): after a run, the next waits for as
 * many hooks as that run freed slots for, so Terraform's slots and the queue do not take turns in runs of 8 and
 * 1 (measured, 200 units at -parallelism 10: 44 runs before, 23 after), and on while the freed slots' hooks keep
 * coming one by one, as Terraform starts them (a cut at 200 ms made 33 runs for 200 units on a slower machine);
 * it still starts at once when nothing is expected, 500 ms late when no expected hook comes, 150 ms after the
 * last one that came, and at most 1 s late.
 */
import { batched, gathering } from '../../../../../src/core/destroy-relay';
import type { Clock } from '../../../../../src/core/clock';
import { VirtualClock } from '../../../../support/virtual-clock';

/** Objects that come at the given ms after the gather started, as the clock moves. */
const arriving = (clock: VirtualClock, at: readonly number[]) => {
  const start = clock.now();
  return () => at.filter((ms) => clock.now() - start >= ms).length;
};

test('after a run, the next gather waits until as many came as the run freed slots for', async () => {
  const clock = new VirtualClock();
  const start = clock.now();
  const queued = arriving(clock, [0, 70, 95]);
  await gathering(clock)(queued, 3);
  expect(queued()).toBe(3);
  const waited = clock.now() - start;
  expect(waited).toBeGreaterThanOrEqual(95);
  expect(waited).toBeLessThan(200);
});

test('with nothing expected, a gather ends once no object came for 10 ms', async () => {
  const clock = new VirtualClock();
  const start = clock.now();
  const queued = arriving(clock, [0, 70]);
  await gathering(clock)(queued, 0);
  expect(queued()).toBe(1);
  expect(clock.now() - start).toBeLessThanOrEqual(20);
});

// Regression: a millisecond that passed between the gather's first two clock reads (a loaded machine) ended it with
// no wait at all, so the first of hooks started together made a batch alone (run.test.ts failed so, at load 6).
test('with nothing expected, a gather waits one quiet 10 ms even when the clock ticks between its reads', async () => {
  const clock = new VirtualClock();
  let reads = 0;
  const ticking: Clock = { now: () => clock.now() + reads++, sleep: clock.sleep };
  await gathering(ticking)(() => 1, 0);
  expect(clock.sleeps).toEqual([10]);
});

test('expected objects that never come hold a run back 500 ms', async () => {
  const clock = new VirtualClock();
  const start = clock.now();
  await gathering(clock)(arriving(clock, [0]), 9);
  expect(clock.now() - start).toBeGreaterThanOrEqual(500);
  expect(clock.now() - start).toBeLessThan(520);
});

test("the freed slots' hooks join one run while each comes within 150 ms of the one before", async () => {
  const clock = new VirtualClock();
  const start = clock.now();
  // As measured on a slow machine: the first 194 ms after the run, then 60-140 ms apart.
  const queued = arriving(clock, [0, 194, 290, 390, 530, 600, 710, 780, 850]);
  await gathering(clock)(queued, 9);
  expect(queued()).toBe(9);
  expect(clock.now() - start).toBeLessThan(870);
});

test('a run waits 150 ms after the last new object when the rest do not come', async () => {
  const clock = new VirtualClock();
  const start = clock.now();
  const queued = arriving(clock, [0, 300, 400]);
  await gathering(clock)(queued, 9);
  expect(queued()).toBe(3);
  expect(clock.now() - start).toBeGreaterThanOrEqual(550);
  expect(clock.now() - start).toBeLessThan(570);
});

test('objects that keep coming slowly hold a run back at most 1 s', async () => {
  const clock = new VirtualClock();
  const start = clock.now();
  const queued = arriving(clock, [0, 140, 280, 420, 560, 700, 840, 980, 1120, 1260]);
  await gathering(clock)(queued, 20);
  expect(queued()).toBe(8);
  expect(clock.now() - start).toBeGreaterThanOrEqual(1000);
  expect(clock.now() - start).toBeLessThan(1020);
});

test('batched expects the objects queued when a run ended and those it answered, across idle spells', async () => {
  const expectations: number[] = [];
  let release: () => void = () => undefined;
  const runs: string[][] = [];
  const run = batched(
    async (items: readonly string[]) => {
      runs.push([...items]);
      if (runs.length === 1) await new Promise<void>((resolve) => (release = resolve));
      return items;
    },
    async (_queued, expected) => {
      expectations.push(expected);
    },
  );
  const first = run('a');
  await new Promise((resolve) => setImmediate(resolve));
  const during = [run('b'), run('c')]; // queued while the first run works
  release();
  await Promise.all([first, ...during]);
  await run('d'); // after the queue ran dry: the two the last run answered are still expected
  expect(runs).toEqual([['a'], ['b', 'c'], ['d']]);
  expect(expectations).toEqual([0, 2 + 1, 2]);
});

test('after a slow run the windows widen with it: hooks 250 ms apart still join after a 3 s run', async () => {
  const clock = new VirtualClock();
  const gather = gathering(clock);
  await gather(arriving(clock, [0]), 0);
  await clock.sleep(3000); // the run
  const start = clock.now();
  const queued = arriving(clock, [0, 250, 500, 750, 1000]);
  await gather(queued, 9);
  expect(queued()).toBe(5);
  // A tenth of the run after the last: 300 ms.
  expect(clock.now() - start).toBeGreaterThanOrEqual(1300);
  expect(clock.now() - start).toBeLessThan(1320);
});

test('the same hooks split after a fast run: 150 ms after the last that came', async () => {
  const clock = new VirtualClock();
  const gather = gathering(clock);
  await gather(arriving(clock, [0]), 0);
  await clock.sleep(300);
  const start = clock.now();
  const queued = arriving(clock, [0, 250, 500, 750]);
  await gather(queued, 9);
  expect(queued()).toBe(2);
  expect(clock.now() - start).toBeLessThan(420);
});
