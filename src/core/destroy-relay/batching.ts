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
 * While fewer came than expected, how long the gather waits for the next, as a share of what the run before
 * took: each hook a run answered must end, and Terraform record its destroy, before the slot's next hook
 * starts, one after another, and both slow down with the machine as a run does. A run of 200 units' destroy
 * costs the host about the same for 3 units as for 9 (one stop, one removal request, one daemon-reload:
 * 1.1-1.4 s at load 2, 2.5-3.5 s at load 7-9, measured on 2026-12-06 on 2 cores whose `node -e 0` takes
 * 110-215 ms), so waiting a fraction of it for the rest beats a run of their own: a cut at a fixed 200 ms after
 * the first hook (before then) made 33-35 runs for 200 units at -parallelism 10, 6 units a run on average.
 * There the first hook came 58-357 ms after the run ended and the next ones 5-330 ms apart (60-120 ms after
 * the run at 14d9ebc, load 1, on a faster machine).
 */
const REFILL = {
  /** The first new object: a quarter of the last run, 0.5 to 1 s; */
  first: { share: 1 / 4, least: 500, most: 1000 },
  /** each next one after the one before: a tenth, 150 to 400 ms; */
  next: { share: 1 / 10, least: 150, most: 400 },
  /** in all: half, 1 to 2 s. */
  all: { share: 1 / 2, least: 1000, most: 2000 },
};

/** `share` of the last run's `ms`, within its bounds. */
const windowOf = ({ share, least, most }: { share: number; least: number; most: number }, ms: number): number =>
  Math.min(most, Math.max(least, ms * share));

/**
 * Waits while objects keep coming, so the hooks Terraform starts together make one batch: without it the
 * first alone made a batch and the rest waited for it (measured, 200 units: 22 of 44 batches held one).
 * After a run it also waits until as many came as expected: each hook the run answered frees Terraform a
 * slot, whose next hook comes after the objects queued during the run went quiet. Without that wait the
 * run's slots and the queue's took turns (measured at 14d9ebc, 200 units at -parallelism 10: 44 runs of 8 and
 * 1 objects in turn, a run of 1 costing 0.3-0.4 s as one of 8 does; with it, 23 runs of 9). A run whose
 * expected objects do not come (the end of a destroy, slots Terraform gave other objects) starts a REFILL
 * window late. The last run's cost is the time since it started (its start was this gather's end).
 */
export const gathering = (clock: Clock): Gather => {
  let runStarted: number | undefined;
  return async (queued, expected) => {
    const start = clock.now();
    const run = runStarted === undefined ? 0 : start - runStarted;
    const first = queued();
    let last = start;
    // Quiet once a whole sleep passed without a new object. `now > start` stood for the first sleep and broke at
    // once when the clock ticked a millisecond between two reads: the first hook made a batch alone (load 6).
    let slept = false;
    for (let seen = first; ; slept = true) {
      const now = clock.now();
      if (queued() !== seen) {
        seen = queued();
        last = now;
      } else if (seen >= expected && slept) break;
      const late =
        expected === 0
          ? now - start >= GATHER_MAX_MS
          : now - start >= windowOf(REFILL.all, run) ||
            now - last >= windowOf(seen > first ? REFILL.next : REFILL.first, run);
      if (late) break;
      await clock.sleep(GATHER_QUIET_MS);
    }
    runStarted = clock.now();
  };
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
