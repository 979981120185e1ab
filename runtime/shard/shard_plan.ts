/**
 * The shard ring's arithmetic, pure: how many of the B buckets each of N live members aims to hold, and in which
 * order a member looks at free buckets. Every member computes the same targets from the same member list (sorted
 * identities; the first `B mod N` get `ceil(B/N)`, the rest `floor(B/N)`), so the targets always add up to B and
 * members never chase each other's buckets.
 * @module
 */

/**
 * The number of buckets `self` should hold when `members` (including `self`) are alive.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { shardTarget } from "./shard_plan.ts";
 * assert.deepEqual(["a", "b", "c"].map((m) => shardTarget(m, ["c", "a", "b"], 16)), [6, 5, 5]);
 * ```
 */
export function shardTarget(self: string, members: readonly string[], buckets: number): number {
  const sorted = [...new Set([...members, self])].sort();
  const n = sorted.length;
  const index = sorted.indexOf(self);
  return Math.floor(buckets / n) + (index < buckets % n ? 1 : 0);
}

/**
 * Bucket numbers in the order `self` tries them: starting at its own share of the ring (`index × B / N`), so members
 * that start at once aim at different buckets instead of racing for bucket 0.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { preferredBuckets } from "./shard_plan.ts";
 * assert.deepEqual(preferredBuckets("b", ["a", "b"], 4), [2, 3, 0, 1]);
 * ```
 */
export function preferredBuckets(self: string, members: readonly string[], buckets: number): number[] {
  const sorted = [...new Set([...members, self])].sort();
  const start = Math.floor((sorted.indexOf(self) * buckets) / sorted.length);
  return Array.from({ length: buckets }, (_, i) => (start + i) % buckets);
}

/** What one member should do now, given what it holds and what is free. */
export interface ShardPlan {
  /** Buckets to hand over (surplus above the target): drain, then release. */
  release: number[];
  /** Free or expired buckets to campaign for. */
  acquire: number[];
  /** Campaigns to abandon (already enough buckets, or the bucket was taken by someone else). */
  abandon: number[];
}

/**
 * Decides releases, campaigns and abandons: hand over the highest-numbered held buckets above `target`; campaign
 * for free buckets in `preference` order while held + campaigning stays below the target; abandon campaigns beyond
 * it or for buckets no longer free.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { planShards } from "./shard_plan.ts";
 * const plan = planShards({ target: 2, held: [0, 1, 5], campaigning: [], free: new Set([3]), preference: [0, 1, 2, 3] });
 * assert.deepEqual(plan, { release: [5], acquire: [], abandon: [] });
 * ```
 */
export function planShards(s: {
  target: number;
  held: readonly number[];
  campaigning: readonly number[];
  free: ReadonlySet<number>;
  preference: readonly number[];
}): ShardPlan {
  const held = [...s.held].sort((a, b) => a - b);
  const release = held.length > s.target ? held.slice(s.target) : [];
  const room = Math.max(0, s.target - held.length);
  const keep = s.campaigning.filter((b) => s.free.has(b)).slice(0, room);
  const abandon = s.campaigning.filter((b) => !keep.includes(b));
  const acquire: number[] = [];
  for (const b of s.preference) {
    if (keep.length + acquire.length >= room) break;
    if (s.free.has(b) && !held.includes(b) && !keep.includes(b)) acquire.push(b);
  }
  return { release, acquire, abandon };
}
