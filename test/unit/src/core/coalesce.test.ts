/**
 * `coalesced`: calls during a run share the next run, each caller's run starts after its call, and a
 * failed run fails only the callers that shared it.
 */
import { coalesced } from '../../../../src/core/coalesce';

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
