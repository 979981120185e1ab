import assert from "node:assert/strict";
import {
  bucketOf,
  bucketRanges,
  formatShardSelector,
  matchesShardSelector,
  parseShardSelector,
  rangeContains,
  shardHash,
} from "./shard_selector.ts";

Deno.test("shardHash is FNV-1a 64 as Go's hash/fnv computes it", () => {
  // Reference vectors of FNV-1a 64 (offset basis for "", and the published "a" / "foobar" values).
  assert.equal(shardHash(""), "0xcbf29ce484222325");
  assert.equal(shardHash("a"), "0xaf63dc4c8601ec8c");
  assert.equal(shardHash("foobar"), "0x85944171f73967e8");
});

Deno.test("bucketRanges tile the hash space and bucketOf agrees with rangeContains", () => {
  for (const n of [1, 2, 3, 7, 16]) {
    const ranges = bucketRanges(n);
    assert.equal(ranges[0].start, "0x0000000000000000");
    assert.equal(ranges[n - 1].end, "0x10000000000000000");
    for (let i = 1; i < n; i++) assert.equal(ranges[i].start, ranges[i - 1].end);
    for (let k = 0; k < 200; k++) {
      const hash = shardHash(`uid-${k}`);
      const b = bucketOf(hash, n);
      assert.ok(rangeContains(ranges[b], hash), `${hash} in bucket ${b} of ${n}`);
      assert.equal(ranges.filter((r) => rangeContains(r, hash)).length, 1);
    }
  }
});

Deno.test("formatShardSelector merges adjacent ranges and parseShardSelector reads it back", () => {
  const ranges = bucketRanges(4);
  const text = formatShardSelector({ field: "object.metadata.uid", ranges: [ranges[3], ranges[0], ranges[1]] });
  assert.equal(
    text,
    "shardRange(object.metadata.uid, '0x0000000000000000', '0x8000000000000000') || " +
      "shardRange(object.metadata.uid, '0xc000000000000000', '0x10000000000000000')",
  );
  const parsed = parseShardSelector(`(${text})`);
  assert.equal(parsed.field, "object.metadata.uid");
  assert.equal(parsed.ranges.length, 2);
  const obj = { metadata: { uid: "0b7c1a44-0000-4000-8000-000000000001" } };
  const inFirstHalf = BigInt(shardHash(obj.metadata.uid)) < 1n << 63n;
  assert.equal(
    matchesShardSelector({ field: "object.metadata.uid", ranges: [ranges[0], ranges[1]] }, obj),
    inFirstHalf,
  );
});

Deno.test("parseShardSelector refuses what kube-apiserver refuses, with its messages", () => {
  const cases: [string, RegExp][] = [
    ["", /empty shard selector is not allowed/],
    ["shardRange(object.metadata.name, '0x0000000000000000', '0x8000000000000000')", /unsupported field path/],
    ["shardRange(object.metadata.uid, '0x0', '0x8000000000000000')", /did you mean "0x0000000000000000"/],
    ["shardRange(object.metadata.uid, '0x8000000000000000', '0x0000000000000000')", /must be less than end/],
    ["shardRange(object.metadata.uid, '0x0000000000000000')", /exactly 3 arguments, got 2/],
    ["other(object.metadata.uid, '0x0000000000000000', '0x8000000000000000')", /unsupported function "other"/],
    ["shardRange(object.metadata.uid, '0x0000000000000000', '0x1000000000000000g')", /too long|invalid hex/],
    [
      "shardRange(object.metadata.uid, '0x0000000000000000', '0x8000000000000000') || " +
      "shardRange(object.metadata.namespace, '0x8000000000000000', '0x10000000000000000')",
      /same field/,
    ],
  ];
  for (const [expr, message] of cases) assert.throws(() => parseShardSelector(expr), message, expr);
});
