/**
 * A clock whose sleeps return at once and move its time on, shared with the fake PVE's tasks, so a
 * handler's 30 s task wait runs in milliseconds and every elapsed time it prints is exact.
 */
import { setImmediate as nextTurn } from 'node:timers/promises';
import type { Clock } from '../../src/core/clock';

export class VirtualClock implements Clock {
  /** Every sleep asked for, in ms. */
  readonly sleeps: number[] = [];

  constructor(private ms = 1_800_000_000_000) {}

  now = (): number => this.ms;

  sleep = async (ms: number): Promise<void> => {
    this.sleeps.push(ms);
    this.ms += ms;
    await nextTurn();
  };
}
