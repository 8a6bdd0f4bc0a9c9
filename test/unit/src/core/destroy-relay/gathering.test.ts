/**
 * How a destroy run's batches gather (`gathering`, `batched`'s `expected`): after a run, the next waits for as
 * many hooks as that run freed slots for, so Terraform's slots and the queue do not take turns in runs of 8 and
 * 1 (measured, 200 units at -parallelism 10: 44 runs before, 23 after); it still starts at once when nothing is
 * expected, and at most 200 ms late when the expected hooks never come.
 */
import { batched, gathering } from '../../../../../src/core/destroy-relay';
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

test('expected objects that never come hold a run back at most 200 ms', async () => {
  const clock = new VirtualClock();
  const start = clock.now();
  await gathering(clock)(arriving(clock, [0]), 9);
  expect(clock.now() - start).toBeGreaterThanOrEqual(200);
  expect(clock.now() - start).toBeLessThan(220);
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
