/**
 * Sizes, medians and the load line the scale benches (plan-scale, apply-scale) share, so both read
 * `BENCH_*_SIZES` the same way and report the same statistic.
 */
import { loadavg } from 'node:os';

export interface Size {
  readonly n: number;
  readonly runs: number;
}

/** `10,100,1000x1` → sizes with their run counts; an empty list skips the kind. */
export const parseSizes = (text: string, runs: number): Size[] =>
  text
    .split(',')
    .map((s) => s.trim())
    .filter((s) => s !== '')
    .map((s) => {
      const [n = '', r] = s.split('x');
      return { n: Number(n), runs: r === undefined ? runs : Number(r) };
    });

export const median = (values: readonly number[]): number =>
  [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)] ?? NaN;

/** The 1, 5 and 15 minute load averages, as `uptime` prints them. */
export const loadText = (): string =>
  loadavg()
    .map((l) => l.toFixed(2))
    .join(' ');
