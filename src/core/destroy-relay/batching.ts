/**
 * How calls share runs: a destroy run's batches (`batched`, `gathering`) and a host's daemon-reloads
 * (`coalesced`). It prevents a run per call (a reload per destroyed unit) without ever letting a call's run
 * start before its call, so each caller's change is in the run it waits for.
 */
import type { Clock } from '../clock';

/**
 * Calls that share runs, each with an item of its own: items that come while a run works form the next
 * run, and so do those that come while `gather` waits before each run. `run` answers each item, in order;
 * its throw is every item's of that run.
 */
export const batched = <I, O>(
  run: (items: readonly I[]) => Promise<readonly O[]>,
  gather?: (queued: () => number) => Promise<void>,
): ((item: I) => Promise<O>) => {
  let queue: Array<{ item: I; resolve: (outcome: O) => void; reject: (error: unknown) => void }> = [];
  let draining = false;
  const drain = async () => {
    draining = true;
    while (queue.length > 0) {
      if (gather !== undefined) await gather(() => queue.length);
      const batch = queue;
      queue = [];
      try {
        const outcomes = await run(batch.map(({ item }) => item));
        outcomes.forEach((outcome, index) => batch[index]?.resolve(outcome));
        for (const { reject } of batch.slice(outcomes.length)) reject(new Error('the run gave it no outcome'));
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

/** A batch waits until no object came for this long, */
const GATHER_QUIET_MS = 10;
/** and at most this long: Terraform starts the hooks of a finished batch's slots together, a few ms apart. */
const GATHER_MAX_MS = 60;

/**
 * Waits while objects keep coming, so the hooks Terraform starts together make one batch: without it the
 * first alone made a batch and the rest waited for it (measured, 200 units: 22 of 44 batches held one).
 */
export const gathering =
  (clock: Clock) =>
  async (queued: () => number): Promise<void> => {
    const end = clock.now() + GATHER_MAX_MS;
    for (let seen = -1; queued() !== seen && clock.now() < end;) {
      seen = queued();
      await clock.sleep(GATHER_QUIET_MS);
    }
  };

/**
 * An action whose runs callers share: a call while a run works queues the next run, which every call
 * until it starts shares; so each caller's run starts after its call and sees its change (a host's
 * daemon-reload after a unit file's removal: a run's destroys cost a few reloads, not one each).
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
    queued = running.then(noop, noop).then(() => {
      queued = undefined;
      return start();
    });
    return queued;
  };
};

const noop = () => undefined;
