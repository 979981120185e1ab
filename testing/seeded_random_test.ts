import assert from "node:assert/strict";
import { seededRandom } from "./seeded_random.ts";

Deno.test("seededRandom: the same seed replays the same sequence, another seed another one", () => {
  const take = (seed: number) => Array.from({ length: 5 }, seededRandom(seed));
  assert.deepEqual(take(7), take(7));
  assert.notDeepEqual(take(7), take(8));
});

Deno.test("seededRandom: values are in [0, 1) and spread over the interval", () => {
  const random = seededRandom(123);
  const buckets = new Array(10).fill(0);
  for (let i = 0; i < 10_000; i++) {
    const v = random();
    assert.ok(v >= 0 && v < 1, String(v));
    buckets[Math.floor(v * 10)]++;
  }
  for (const n of buckets) assert.ok(n > 800 && n < 1200, `bucket counts ${buckets.join(",")}`);
});
