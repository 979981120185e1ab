import assert from "node:assert/strict";
import { DEFAULT_FEATURE_GATES, parseFeatureGates } from "./feature_gates.ts";

Deno.test("feature gates: defaults off, ShardedListAndWatch (alpha in v1.37) and ManagedFieldsOptOut (alpha in v1.38)", () => {
  assert.equal(DEFAULT_FEATURE_GATES.ShardedListAndWatch, false);
  assert.deepEqual(parseFeatureGates(""), { ShardedListAndWatch: false, ManagedFieldsOptOut: false });
  assert.equal(parseFeatureGates("ManagedFieldsOptOut=true").ManagedFieldsOptOut, true);
});

Deno.test("feature gates: parses kube-apiserver's --feature-gates syntax (strconv.ParseBool values)", () => {
  assert.equal(parseFeatureGates("ShardedListAndWatch=true").ShardedListAndWatch, true);
  assert.equal(parseFeatureGates(" ShardedListAndWatch = T ,").ShardedListAndWatch, true);
  assert.equal(parseFeatureGates("ShardedListAndWatch=true,ShardedListAndWatch=0").ShardedListAndWatch, false);
});

Deno.test("feature gates: unknown gates and non-boolean values are refused with kube's wording", () => {
  assert.throws(() => parseFeatureGates("WatchList=true"), /unrecognized feature gate: WatchList/);
  assert.throws(() => parseFeatureGates("ShardedListAndWatch"), /missing bool value for ShardedListAndWatch/);
  assert.throws(() => parseFeatureGates("ShardedListAndWatch=yes"), /invalid value of ShardedListAndWatch=yes/);
});
