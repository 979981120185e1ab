/**
 * The one fixed-seed random source of kubeop's tests (and users' tests): property tests, fault schedules and jitter
 * replay exactly from their seed. mulberry32: 32-bit state, uniform in [0, 1), fast and good enough for tests.
 * @module
 */

/**
 * A deterministic uniform [0, 1) source: the same seed gives the same sequence on every run.
 *
 * @example
 * ```ts
 * import { seededRandom } from "./seeded_random.ts";
 * const a = seededRandom(42);
 * const b = seededRandom(42);
 * console.assert(a() === b() && a() === b());
 * ```
 */
export function seededRandom(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}
