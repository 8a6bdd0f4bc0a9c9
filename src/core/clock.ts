/**
 * Time as a port, so a wait (a unit settling, a task poll bounded at 30 s) is tested by stepping a
 * clock instead of sleeping in real time.
 */
import { setTimeout as sleep } from 'node:timers/promises';

export interface Clock {
  /** Milliseconds since the epoch. */
  now(): number;
  sleep(ms: number): Promise<void>;
}

export const systemClock: Clock = {
  now: () => Date.now(),
  sleep: (ms) => sleep(ms),
};
