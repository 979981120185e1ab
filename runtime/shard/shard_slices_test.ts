/**
 * Which informers the shard ring slices: a sharded controller's primary, unless another controller (or a runnable
 * that is not sharded) reads the same informer; holding no bucket slices to the empty range, never to `null`.
 */
import assert from "node:assert/strict";
import type { ShardSelector } from "../apimachinery/shard_selector.ts";
import type { InformerLike, InformerSource } from "../cache/cache.ts";
import type { ControllerRunnable } from "../manager/runnable.ts";
import { EMPTY_SLICE_RANGE, primarySlicer, primeShardSlices, slicedPrimaries } from "./shard_slices.ts";
import type { KubeObject, ResourceType } from "../types.ts";

const rt = (plural: string): ResourceType => ({ group: "x.io", version: "v1", kind: plural, plural, namespaced: true });
const Widget = rt("widgets");
const Gadget = rt("gadgets");
const Pod = rt("pods");

class StubInformer {
  selector: ShardSelector | null = null;
  syncs = 0;
  constructor(readonly name: string) {}
  waitForSync() {
    this.syncs++;
    return Promise.resolve();
  }
}

function source() {
  const made = new Map<string, StubInformer>();
  const informers: InformerSource = {
    get<T extends KubeObject>(r: ResourceType) {
      if (!made.has(r.plural)) made.set(r.plural, new StubInformer(r.plural));
      return made.get(r.plural) as unknown as InformerLike<T>;
    },
    relist(r, _scope, slice) {
      (this.get(r) as unknown as StubInformer).selector = slice;
    },
  };
  return { informers, made };
}

const runnable = (name: string, shardable: boolean, ...types: ResourceType[]): ControllerRunnable => ({
  name,
  shardable,
  bind() {},
  start: () => Promise.resolve(),
  watchedResources: () => types.map((t) => ({ rt: t })),
});
const isShardable = (r: ControllerRunnable) => r.shardable === true;

Deno.test("slices a sharded controller's primary, but not one that is another controller's child", () => {
  const { informers, made } = source();
  const widgets = runnable("widgets", true, Widget, Gadget, Pod); // owns gadgets
  const gadgets = runnable("gadgets", true, Gadget); // gadgets is primary here, child above
  const plan = slicedPrimaries([widgets, gadgets], informers, isShardable);
  assert.deepEqual(plan.sliced.map((s) => s.informer), [made.get("widgets")]);
  assert.deepEqual(plan.whole.map((w) => w.runnable), ["gadgets"]);
});

Deno.test("does not slice a primary that a runnable without sharding reads", () => {
  const { informers } = source();
  const plan = slicedPrimaries(
    [runnable("widgets", true, Widget), runnable("report", false, Widget)],
    informers,
    isShardable,
  );
  assert.deepEqual(plan.sliced, []);
});

Deno.test("a source that cannot re-list its informers leaves the primaries whole", () => {
  const { informers } = source();
  const plan = slicedPrimaries([runnable("widgets", true, Widget)], { get: informers.get }, isShardable);
  assert.deepEqual(plan.sliced, []);
  assert.deepEqual(plan.whole.map((w) => w.reason), ["its primary informer cannot watch a slice"]);
});

Deno.test("holding no bucket slices the primaries to the empty range, not to the whole collection", async () => {
  const { informers, made } = source();
  const slice = primarySlicer({ informers, runnables: () => [runnable("widgets", true, Widget, Pod)], isShardable });
  const ranges = [{ start: "0x0000000000000000", end: "0x8000000000000000" }];
  await slice(ranges, new AbortController().signal);
  assert.deepEqual(made.get("widgets")!.selector, { field: "object.metadata.uid", ranges });
  assert.equal(made.get("pods")!.selector, null, "children stay whole");
  await slice([], new AbortController().signal);
  assert.deepEqual(made.get("widgets")!.selector?.ranges, [EMPTY_SLICE_RANGE]);
  assert.equal(made.get("widgets")!.syncs, 2, "each change waits for the new slice's list");
});

Deno.test("before the ring won a bucket, the primaries are primed to the empty range and children stay whole", () => {
  const { informers, made } = source();
  primeShardSlices([runnable("widgets", true, Widget, Pod)], informers, isShardable);
  assert.deepEqual(made.get("widgets")!.selector?.ranges, [EMPTY_SLICE_RANGE]);
  assert.equal(made.get("pods")!.selector, null);
});
