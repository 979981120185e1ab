import assert from "node:assert/strict";
import { randomInt, seededRandom } from "./random.ts";

Deno.test("seededRandom: reproducible per seed, different across seeds, uniform-ish in [0, 1)", () => {
  const a = seededRandom(7), b = seededRandom(7), c = seededRandom(8);
  const xs = Array.from({ length: 1000 }, () => a());
  assert.deepEqual(Array.from({ length: 1000 }, () => b()), xs);
  assert.notDeepEqual(Array.from({ length: 1000 }, () => c()), xs);
  assert.ok(xs.every((x) => x >= 0 && x < 1));
  const mean = xs.reduce((s, x) => s + x, 0) / xs.length;
  assert.ok(mean > 0.45 && mean < 0.55, `mean ${mean}`);
  const r = seededRandom(1);
  assert.ok(Array.from({ length: 200 }, () => randomInt(r, 3)).every((i) => i === 0 || i === 1 || i === 2));
});
