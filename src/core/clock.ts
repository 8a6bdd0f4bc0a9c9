/**
 * Time as a port, so a wait (a unit settling, a task poll bounded at 30 s) is tested by stepping a
 * clock instead of sleeping in real time.
 */
import { setTimeout as sleep } from 'node:timers/promises';

export interface Clock {
  /** Milliseconds since the epoch. */
  now(): number;
  /**
   * Resolves after `ms`. An aborted `signal` rejects it at once: a deadline armed for a command
   * that ended first must not keep the process alive until it would have fired.
   */
  sleep(ms: number, signal?: AbortSignal): Promise<void>;
}

export const systemClock: Clock = {
  now: () => Date.now(),
  sleep: (ms, signal) => sleep(ms, undefined, signal === undefined ? undefined : { signal }),
};
