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
  let next = 0;
  const worker = async () => {
    while (next < items.length) {
      const index = next++;
      results[index] = await work(items[index] as T);
    }
  };
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, worker));
  return results;
};
