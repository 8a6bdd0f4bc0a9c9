/**
 * Bounded concurrency for a batch's per-object calls: enough in flight to hide round trips, few
 * enough that a target is never flooded (a PVE node, sshd's MaxSessions).
 */

/** `work` over every item, at most `limit` at a time, results in input order. */
export const mapConcurrent = async <T, R>(
  items: readonly T[],
  limit: number,
  work: (item: T) => Promise<R>,
): Promise<R[]> => {
  const results: R[] = new Array(items.length);
  // One iterator shared by the workers: each takes the next item synchronously, so none is taken twice.
  const queue = items.entries();
  const worker = async () => {
    for (const [index, item] of queue) results[index] = await work(item);
  };
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, worker));
  return results;
};

/** `work` over every key, at most `limit` at a time, as each key's result: no index to pair back by hand. */
export const mapByKey = async <K, R>(
  keys: readonly K[],
  limit: number,
  work: (key: K) => Promise<R>,
): Promise<Map<K, R>> => new Map(await mapConcurrent(keys, limit, async (key) => [key, await work(key)] as const));

/**
 * `items` in order, in chunks of at most `count` items and `bytes` in all by `size`, one request each: an item
 * larger than `bytes` goes alone.
 */
export const chunked = <T>(
  items: readonly T[],
  { count, bytes }: { readonly count: number; readonly bytes: number },
  size: (item: T) => number,
): T[][] => {
  const chunks: T[][] = [];
  let last: T[] = [];
  let held = 0;
  for (const item of items) {
    const weight = size(item);
    if (last.length === 0 || last.length >= count || held + weight > bytes) {
      last = [];
      held = 0;
      chunks.push(last);
    }
    last.push(item);
    held += weight;
  }
  return chunks;
};
