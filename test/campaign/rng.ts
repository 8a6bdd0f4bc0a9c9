/**
 * The campaign's randomness, all from one seed: each round draws from a generator of its own (seed and
 * round number), so `--only R` replays round R's fault exactly, whatever the rounds before it drew.
 */

/** mulberry32: small, fast, and the same sequence on every platform for a 32-bit seed. */
export const generator = (seed: number): (() => number) => {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
};

/** A 32-bit seed from the campaign seed and a label (FNV-1a over both). */
export const childSeed = (seed: number, label: string): number => {
  let hash = 0x811c9dc5 ^ (seed >>> 0);
  for (const char of `${seed}:${label}`) hash = Math.imul(hash ^ char.charCodeAt(0), 0x01000193);
  return hash >>> 0;
};

export interface Draw {
  /** An integer in [0, n). */
  int(n: number): number;
  /** One of `items`. */
  pick<T>(items: readonly T[]): T;
}

export const drawFrom = (random: () => number): Draw => ({
  int: (n) => Math.floor(random() * n),
  pick: (items) => items[Math.floor(random() * items.length)] as (typeof items)[number],
});

/** `items` in a seeded order (Fisher-Yates). */
export const shuffled = <T>(items: readonly T[], random: () => number): T[] => {
  const out = [...items];
  for (let i = out.length - 1; i > 0; i--) {
    const j = Math.floor(random() * (i + 1));
    [out[i], out[j]] = [out[j] as T, out[i] as T];
  }
  return out;
};
