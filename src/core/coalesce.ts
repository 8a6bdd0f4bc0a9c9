/**
 * Callers that share runs of an action, so a burst of calls costs a few runs. `coalesced`: an action
 * whose runs callers may share: a call while a run is in progress queues the next run, and
 * every call until that one starts shares it. Each caller gets a run that started after its call, so the
 * run sees what the caller changed before calling: a daemon-reload after a unit file's removal. One
 * host's destroys, served by one run of the relay, then cost a handful of reloads, not one each (pid 1
 * runs reloads one at a time and answers no `systemctl` meanwhile: README, Limits).
 */
export const coalesced = <T>(action: () => Promise<T>): (() => Promise<T>) => {
  let running: Promise<T> | undefined;
  let queued: Promise<T> | undefined;
  const start = (): Promise<T> => {
    const run = action().finally(() => {
      if (running === run) running = undefined;
    });
    running = run;
    return run;
  };
  return () => {
    if (queued !== undefined) return queued;
    if (running === undefined) return start();
    const next = running.then(
      () => undefined,
      () => undefined,
    );
    queued = next.then(() => {
      queued = undefined;
      return start();
    });
    return queued;
  };
};

/**
 * Calls that share runs, each with an item of its own: items that come while a run works form the
 * next run, so a burst costs a few runs of many items. `run` answers each item, in order; its throw
 * is every item's of that run.
 */
export const batched = <I, O>(run: (items: readonly I[]) => Promise<readonly O[]>): ((item: I) => Promise<O>) => {
  let queue: Array<{ item: I; resolve: (outcome: O) => void; reject: (error: unknown) => void }> = [];
  let draining = false;
  const drain = async () => {
    draining = true;
    while (queue.length > 0) {
      const batch = queue;
      queue = [];
      try {
        const outcomes = await run(batch.map(({ item }) => item));
        batch.forEach(({ resolve }, index) => resolve(outcomes[index] as O));
      } catch (error) {
        for (const { reject } of batch) reject(error);
      }
    }
    draining = false;
  };
  return (item) =>
    new Promise<O>((resolve, reject) => {
      queue.push({ item, resolve, reject });
      if (!draining) void drain();
    });
};
