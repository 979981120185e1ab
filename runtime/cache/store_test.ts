import assert from "node:assert/strict";
import { StoreWriter } from "./store.ts";
import type { KubeObject } from "../types.ts";
import { nestedString } from "../unstructured.ts";

function pod(name: string, rv: string, extra: Partial<KubeObject["metadata"]> = {}): KubeObject {
  return { metadata: { name, namespace: extra.namespace ?? "ns", uid: `uid-${name}`, resourceVersion: rv, ...extra } };
}

Deno.test("store: relist diff emits synthetic deletes, no duplicate adds, no spurious updates", () => {
  const store = new StoreWriter();
  store.replace([pod("a", "1"), pod("b", "1"), pod("c", "1")]);
  const changes = store.replace([pod("a", "1"), pod("b", "2"), pod("d", "3")]);
  const summary = changes.map((c) => `${c.type}:${c.obj.metadata.name}`).sort();
  assert.deepEqual(summary, ["added:d", "deleted:c", "modified:b"]);
  assert.deepEqual(store.keys().sort(), ["ns/a", "ns/b", "ns/d"]);
});

Deno.test("store: indexes by namespace, owner uid, label and a custom function follow updates", () => {
  const store = new StoreWriter();
  store.addIndex("byNode", (o) => {
    const node = nestedString(o, "spec", "nodeName");
    return node ? [node] : [];
  });
  const owned = pod("a", "1", {
    labels: { app: "x" },
    ownerReferences: [{ apiVersion: "v1", kind: "X", name: "o", uid: "o1" }],
  });
  store.upsert({ ...owned, spec: { nodeName: "n1" } });
  store.upsert(pod("b", "1", { namespace: "other", labels: { app: "y" } }));
  assert.equal(store.byIndex("owner", "o1").length, 1);
  assert.equal(store.byIndex("label", "app=x").length, 1);
  assert.equal(store.byIndex("byNode", "n1").length, 1);
  assert.equal(store.list("other").length, 1);
  store.upsert({ ...pod("a", "2", { labels: { app: "y" } }), spec: { nodeName: "n2" } });
  assert.equal(store.byIndex("label", "app=x").length, 0);
  assert.equal(store.byIndex("label", "app=y").length, 2);
  assert.equal(store.byIndex("owner", "o1").length, 0);
  assert.equal(store.byIndex("byNode", "n1").length, 0);
  store.remove(pod("b", "3", { namespace: "other" }));
  assert.equal(store.list("other").length, 0);
  assert.equal(store.getByUid("uid-a")?.metadata.resourceVersion, "2");
});

Deno.test("store: readers get frozen objects", () => {
  const store = new StoreWriter();
  store.upsert(pod("a", "1", { labels: { app: "x" } }));
  const got = store.get("ns/a")!;
  assert.throws(() => {
    (got.metadata.labels as Record<string, string>).app = "changed";
  }, TypeError);
  assert.equal(store.get("ns/a")!.metadata.labels!.app, "x");
});

Deno.test("store: an upsert with an unchanged resourceVersion is not a change", () => {
  const store = new StoreWriter();
  assert.equal(store.upsert(pod("a", "1"))?.type, "added");
  assert.equal(store.upsert(pod("a", "1")), undefined);
  assert.equal(store.upsert(pod("a", "2"))?.type, "modified");
  assert.equal(store.remove(pod("zz", "3")), undefined);
});

Deno.test("store: stored objects are frozen all the way down (nested objects, arrays, objects in arrays)", () => {
  const store = new StoreWriter();
  const obj = {
    metadata: {
      name: "a",
      namespace: "ns",
      uid: "u1",
      resourceVersion: "1",
      labels: { app: "x" },
      ownerReferences: [{ apiVersion: "v1", kind: "ConfigMap", name: "o", uid: "o1" }],
    },
    spec: { list: [[1, { deep: { deeper: "v" } }]], empty: {}, nothing: null },
  };
  store.upsert(obj);
  const got = store.get("ns/a") as unknown as typeof obj;
  for (
    const v of [
      got,
      got.metadata,
      got.metadata.labels,
      got.metadata.ownerReferences,
      got.metadata.ownerReferences[0],
      got.spec,
      got.spec.list,
      got.spec.list[0],
      got.spec.list[0][1],
      (got.spec.list[0][1] as { deep: object }).deep,
      got.spec.empty,
    ]
  ) assert.ok(Object.isFrozen(v), JSON.stringify(v));
  assert.throws(() => {
    "use strict";
    (got.metadata.labels as Record<string, string>).app = "y";
  }, TypeError);
});

Deno.test("store: the reader handle reads the writer's contents and offers no way to write", () => {
  const writer = new StoreWriter();
  const store = writer.reader;
  writer.upsert(pod("a", "1"));
  assert.equal(store.get("ns/a")?.metadata.resourceVersion, "1");
  assert.equal(store.size, 1);
  assert.deepEqual(store.keys(), ["ns/a"]);
  assert.equal(store.getByUid("uid-a")?.metadata.name, "a");
  for (const method of ["upsert", "remove", "replace", "addIndex"]) assert.ok(!(method in store), method);
  assert.ok(Object.isFrozen(store));
  assert.throws(() => (store as unknown as { upsert: unknown }).upsert = () => {});
});
