import { at } from '../src/core/list/index.js';

/**
 * mulberry32: a tiny seeded PRNG, so every run benchmarks the same workload
 * (and the crash tests replay the same kill points).
 */
export function seededRandom(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** One of `items`, drawn with `random`: the same draw, so the same workload, as indexing by hand. */
export function pick<T>(random: () => number, items: readonly T[]): T {
  return at(items, Math.floor(random() * items.length));
}
