/**
 * `coalesced`: calls during a run share the next run, each caller's run starts after its call, and a
 * failed run fails only the callers that shared it. `batched`: items that come during a run form the
 * next run, each answered with its own outcome.
 */
import { batched, coalesced } from '../../../../src/core/coalesce';

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

test('batched: a run that throws fails its own items only', async () => {
  const run = batched(async (items: readonly string[]) => {
    if (items.includes('boom')) throw new Error('the session broke');
    return items.map(() => 'ok');
  });
  await expect(run('boom')).rejects.toThrow('the session broke');
  expect(await run('fine')).toBe('ok');
});
