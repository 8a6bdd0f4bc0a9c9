// Unit test of the bounded pool the batch reads and applies run their per-object calls through: results stay in
// input order whatever order the calls finish in, at most `limit` run at once, and mapByKey pairs each key with its
// own result (the handlers paired results back by index before); chunked splits a batch's writes into requests.
import { chunked, mapByKey, mapConcurrent } from '../../../../src/core/pool';

const later = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

test('results keep the input order and at most limit calls run at once', async () => {
  let running = 0;
  let most = 0;
  const results = await mapConcurrent([30, 5, 20, 1, 10], 2, async (ms) => {
    most = Math.max(most, (running += 1));
    await later(ms);
    running -= 1;
    return ms * 2;
  });
  expect(results).toEqual([60, 10, 40, 2, 20]);
  expect(most).toBe(2);
});

test('mapByKey answers each key with its own result', async () => {
  const byKey = await mapByKey(
    ['n1', 'n2', 'n3'],
    2,
    async (node) => (await later(node === 'n1' ? 15 : 1), `${node}!`),
  );
  expect([...byKey]).toEqual([
    ['n1', 'n1!'],
    ['n2', 'n2!'],
    ['n3', 'n3!'],
  ]);
});

test.each([
  ['a few items fit one chunk', [1, 2], [[1, 2]]],
  ['a chunk holds at most count items', [1, 1, 1, 1, 1], [[1, 1], [1, 1], [1]]],
  [
    'a chunk holds at most bytes in all',
    [4, 4, 3, 1],
    [
      [4, 4],
      [3, 1],
    ],
  ],
  ['an item larger than bytes goes alone', [2, 20, 2], [[2], [20], [2]]],
  ['no items, no chunk', [], []],
])('chunked: %s, in order', (_, sizes, chunks) => {
  expect(chunked(sizes, { count: 2, bytes: 8 }, (size) => size)).toEqual(chunks);
});
