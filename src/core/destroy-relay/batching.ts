/**
 * How calls share runs: a destroy run's batches (`batched`, `gathering`) and a host's daemon-reloads
 * (`coalesced`). It prevents a run per call (a reload per destroyed unit) without ever letting a call's run
 * start before its call, so each caller's change is in the run it waits for.
 */
import type { Clock } from '../clock';

/**
 * Waits before a run while items may still join it: `queued` counts the items waiting, `expected` how many
 * may come soon (those that waited when the run before ended, and as many as it answered; 0 before the first).
 */
export type Gather = (queued: () => number, expected: number) => Promise<void>;

/**
 * Calls that share runs, each with an item of its own: items that come while a run works form the next
 * run, and so do those that come while `gather` waits before each run. `run` answers each item, in order;
 * its throw is every item's of that run.
 */
export const batched = <I, O>(
  run: (items: readonly I[]) => Promise<readonly O[]>,
  gather?: Gather,
): ((item: I) => Promise<O>) => {
  let queue: Array<{ item: I; resolve: (outcome: O) => void; reject: (error: unknown) => void }> = [];
  let draining = false;
  // Kept between drains: the hooks a run answered come back after it, whether or not others waited then.
  let expected = 0;
  const drain = async () => {
    draining = true;
    while (queue.length > 0) {
      if (gather !== undefined) await gather(() => queue.length, expected);
      const batch = queue;
      queue = [];
      try {
        const outcomes = await run(batch.map(({ item }) => item));
        outcomes.forEach((outcome, index) => batch[index]?.resolve(outcome));
        for (const { reject } of batch.slice(outcomes.length)) reject(new Error('the run gave it no outcome'));
      } catch (error) {
        for (const { reject } of batch) reject(error);
      }
      expected = queue.length + batch.length;
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
/** and at most this long: Terraform starts the hooks of a finished batch's slots together, a few ms apart; */
const GATHER_MAX_MS = 60;
/**
 * at most this long while fewer came than expected: the hooks of the slots a run freed came 60-120 ms after it
 * (measured at 14d9ebc, 200 units at -parallelism 10, load 1).
 */
const REFILL_MAX_MS = 200;

/**
 * Waits while objects keep coming, so the hooks Terraform starts together make one batch: without it the
 * first alone made a batch and the rest waited for it (measured, 200 units: 22 of 44 batches held one).
 * After a run it also waits until as many came as expected: each hook the run answered frees Terraform a
 * slot, whose next hook comes after the objects queued during the run went quiet. Without that wait the
 * run's slots and the queue's took turns (measured at 14d9ebc, 200 units at -parallelism 10: 44 runs of 8 and
 * 1 objects in turn, a run of 1 costing 0.3-0.4 s as one of 8 does; with it, 23 runs of 9). A run whose
 * expected objects do not come (the end of a destroy) starts REFILL_MAX_MS late.
 */
export const gathering =
  (clock: Clock): Gather =>
  async (queued, expected) => {
    const end = clock.now() + (expected > 0 ? REFILL_MAX_MS : GATHER_MAX_MS);
    for (let seen = -1; (queued() !== seen || queued() < expected) && clock.now() < end;) {
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
