import assert from "node:assert/strict";
import {
  bucketRanges,
  matchesShardSelector,
  parseShardSelector,
  type ShardSelector,
} from "../../runtime/apimachinery/shard_selector.ts";
import { CoreTypes, type KubeObject } from "../../runtime/types.ts";
import { VirtualClock } from "../../runtime/clock.ts";
import { FakeStore } from "./commit_path.ts";
import { ResourceRegistry } from "./registry.ts";
import { ObjectStore } from "./object_storage.ts";
import { shardSelectorParam } from "./list_options.ts";

function storeWith(count: number): { store: FakeStore; made: KubeObject[] } {
  const store = new FakeStore({
    registry: new ResourceRegistry(),
    objects: new ObjectStore(),
    clock: new VirtualClock(),
  });
  store.create(CoreTypes.Namespace, { metadata: { name: "ns" } });
  const made: KubeObject[] = [];
  for (let i = 0; i < count; i++) {
    made.push(store.create(CoreTypes.ConfigMap, { metadata: { name: `cm-${i}`, namespace: "ns" } }));
  }
  return { store, made };
}

const names = (objs: KubeObject[]) => objs.map((o) => o.metadata.name).sort();

Deno.test("fake list: a shard selector filters by uid hash and echoes the ranges in request order", () => {
  const { store, made } = storeWith(20);
  const q = bucketRanges(4);
  const sel: ShardSelector = { field: "object.metadata.uid", ranges: [q[3], q[0]] };
  const list = store.list(CoreTypes.ConfigMap, { namespace: "ns", shardSelector: sel });
  assert.deepEqual(names(list.items), names(made.filter((o) => matchesShardSelector(sel, o))));
  assert.equal(
    list.metadata.shardInfo?.selector,
    `shardRange(object.metadata.uid, '${q[3].start}', '${q[3].end}') || ` +
      `shardRange(object.metadata.uid, '${q[0].start}', '${q[0].end}')`,
  );
  assert.equal(store.list(CoreTypes.ConfigMap, { namespace: "ns" }).metadata.shardInfo, undefined);
});

Deno.test("fake list: pages of a sharded list carry a continue token but no remainingItemCount", () => {
  const { store, made } = storeWith(20);
  const sel: ShardSelector = { field: "object.metadata.uid", ranges: bucketRanges(2).slice(0, 1) };
  // uids are random: add objects until two fall in the half, so the first page of one cannot be the last.
  for (let i = 20; made.filter((o) => matchesShardSelector(sel, o)).length < 2; i++) {
    made.push(store.create(CoreTypes.ConfigMap, { metadata: { name: `cm-${i}`, namespace: "ns" } }));
  }
  const first = store.list(CoreTypes.ConfigMap, { namespace: "ns", shardSelector: sel, limit: 1 });
  assert.ok(first.metadata.continue);
  assert.equal(first.metadata.remainingItemCount, undefined);
  const unsharded = store.list(CoreTypes.ConfigMap, { namespace: "ns", limit: 1 });
  assert.equal(unsharded.metadata.remainingItemCount, made.length - 1);
});

Deno.test("shardSelectorParam: ignored with the gate off or when empty; a bad selector is kube's plain 500", () => {
  const good = "shardRange(object.metadata.uid, '0x0000000000000000', '0x8000000000000000')";
  assert.equal(shardSelectorParam(new URLSearchParams({ shardSelector: "nonsense(" }), false, "list"), undefined);
  assert.equal(shardSelectorParam(new URLSearchParams({ shardSelector: "" }), true, "list"), undefined);
  assert.deepEqual(
    shardSelectorParam(new URLSearchParams({ shardSelector: good }), true, "list"),
    parseShardSelector(good),
  );
  try {
    shardSelectorParam(
      new URLSearchParams({ shardSelector: "shardRange(object.metadata.name, '0x0', '0x1')" }),
      true,
      "watch",
    );
    assert.fail("expected an error");
  } catch (err) {
    const status = (err as { status: { code: number; reason?: string; message: string } }).status;
    assert.equal(status.code, 500);
    assert.equal(status.reason, undefined);
    assert.equal(
      status.message,
      'invalid shard selector: unsupported field path "object.metadata.name"; supported: object.metadata.uid, object.metadata.namespace',
    );
  }
});
