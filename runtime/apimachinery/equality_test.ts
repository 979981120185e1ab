import assert from "node:assert/strict";
import { deepEqual } from "./equality.ts";

Deno.test("deepEqual: key order does not matter, array order does, undefined keys are absent", () => {
  assert.equal(deepEqual({ a: 1, b: { c: [1, { d: 2, e: 3 }] } }, { b: { c: [1, { e: 3, d: 2 }] }, a: 1 }), true);
  assert.equal(deepEqual([1, 2], [2, 1]), false);
  assert.equal(deepEqual({ a: 1, b: undefined }, { a: 1 }), true);
  assert.equal(deepEqual({ a: 1 }, { a: 1, b: 2 }), false);
  assert.equal(deepEqual({ a: null }, {}), false);
  assert.equal(deepEqual("1", 1), false);
  assert.equal(deepEqual([], {}), false);
});
