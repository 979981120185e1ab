/**
 * A fixed-seed random source (mulberry32): the same seed gives the same sequence, so a randomised test or a
 * simulation can be replayed. The runtime takes a `random` option wherever it jitters (watch backoff, leader
 * election retries); pass `seededRandom(n)` there to make a run reproducible.
 * @module
 */

/**
 * A uniform [0, 1) source that yields the same sequence for the same 32-bit `seed`.
 *
 * @example
 * ```ts
 * import { seededRandom } from "./random.ts";
 * const a = seededRandom(42), b = seededRandom(42);
 * console.assert(a() === b() && a() === b());
 * ```
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

/** An integer in [0, n) drawn from `random`. */
export function randomInt(random: () => number, n: number): number {
  return Math.floor(random() * n);
}
