import assert from "node:assert/strict";
import { shardHash } from "../apimachinery/shard_selector.ts";
import { isShardedInformer, sliceLeavers } from "./informer_slice.ts";
import type { KubeObject } from "../types.ts";

const obj = (name: string, uid: string): KubeObject => ({ metadata: { name, namespace: "ns", uid } });

Deno.test("sliceLeavers: cached objects outside the new slice and absent from its list leave; the rest stay", () => {
  const a = obj("a", "uid-a");
  const b = obj("b", "uid-b");
  const hashA = shardHash("uid-a");
  // A slice of exactly a's hash: [hashA, hashA+1).
  const next = "0x" + (BigInt(hashA) + 1n).toString(16).padStart(16, "0");
  const onlyA = { field: "object.metadata.uid" as const, ranges: [{ start: hashA, end: next }] };
  assert.deepEqual(sliceLeavers([a, b], [a], onlyA), [b]);
  // b absent from the list but inside the slice would be a deletion (left to the relist diff), not a leaver.
  const all = {
    field: "object.metadata.uid" as const,
    ranges: [{ start: "0x0000000000000000", end: "0x10000000000000000" }],
  };
  assert.deepEqual(sliceLeavers([a, b], [], all), []);
  // Listed objects never leave, whatever the selector says.
  assert.deepEqual(sliceLeavers([a, b], [a, b], onlyA), []);
});

Deno.test("isShardedInformer: needs setShardSelector, shardSelector and shardMode", () => {
  assert.equal(isShardedInformer({ setShardSelector() {} }), false);
  assert.equal(isShardedInformer({ setShardSelector() {}, shardSelector: () => null, shardMode: () => "off" }), true);
});
