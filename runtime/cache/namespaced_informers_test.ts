import assert from "node:assert/strict";
import type { InformerHandler, InformerLike } from "./cache.ts";
import { namespacedInformers } from "./namespaced_informers.ts";
import { StoreWriter } from "./store.ts";
import { CoreTypes, type KubeObject, objectKey, type ResourceType } from "../types.ts";
import type { WatchScope } from "../watch/watch_runner.ts";

/** An informer over a fixed set of objects that syncs when told. */
class ListInformer implements InformerLike {
  readonly handlers = new Set<InformerHandler>();
  synced = false;
  readonly #objects = new StoreWriter();
  constructor(readonly resource: ResourceType, readonly opts: WatchScope, objects: KubeObject[]) {
    this.#objects.replace(objects);
  }
  get store() {
    return this.#objects.reader;
  }
  addIndex(name: string, fn: (obj: KubeObject) => string[]): void {
    this.#objects.addIndex(name, fn);
  }
  addHandler(h: InformerHandler): () => void {
    this.handlers.add(h);
    if (this.synced) h.synced?.();
    return () => this.handlers.delete(h);
  }
  sync(): void {
    this.synced = true;
    for (const h of this.handlers) h.synced?.();
  }
  hasSynced(): boolean {
    return this.synced;
  }
  waitForSync(): Promise<void> {
    return Promise.resolve();
  }
}

const pod = (namespace: string, name: string): KubeObject => ({ metadata: { namespace, name } });
const ALL = [pod("a", "p1"), pod("b", "p2"), pod("c", "p3")];

function registry() {
  const made: ListInformer[] = [];
  return {
    made,
    get<T extends KubeObject>(rt: ResourceType, opts: WatchScope = {}): InformerLike<T> {
      const inf = new ListInformer(
        rt,
        opts,
        ALL.filter((o) => !opts.namespace || o.metadata.namespace === opts.namespace),
      );
      made.push(inf);
      return inf as unknown as InformerLike<T>;
    },
  };
}

Deno.test("no namespaces: requests pass through untouched", () => {
  const inner = registry();
  const scoped = namespacedInformers(inner, []);
  assert.equal(scoped, inner);
});

Deno.test("one namespace: namespaced informers are scoped, cluster-scoped ones are not", () => {
  const inner = registry();
  const scoped = namespacedInformers(inner, ["a"]);
  assert.deepEqual(scoped.get(CoreTypes.Pod).store.list().map(objectKey), ["a/p1"]);
  scoped.get(CoreTypes.Namespace);
  scoped.get(CoreTypes.Pod, { namespace: "c", labelSelector: "x=y" });
  assert.deepEqual(inner.made.map((i) => i.opts), [{ namespace: "a" }, {}, { namespace: "c", labelSelector: "x=y" }]);
});

Deno.test("several namespaces: one informer each, read and notified as one", () => {
  const inner = registry();
  const scoped = namespacedInformers(inner, ["a", "b", "a"]);
  const pods = scoped.get(CoreTypes.Pod, { labelSelector: "app=x" });
  assert.equal(scoped.get(CoreTypes.Pod, { labelSelector: "app=x" }), pods, "shared per selector");
  assert.deepEqual(inner.made.map((i) => i.opts), [
    { labelSelector: "app=x", namespace: "a" },
    { labelSelector: "app=x", namespace: "b" },
  ]);
  assert.deepEqual(pods.store.list().map(objectKey).sort(), ["a/p1", "b/p2"]);
  assert.deepEqual(pods.store.list("b").map(objectKey), ["b/p2"]);
  assert.deepEqual(pods.store.list("c"), []);
  assert.equal(pods.store.get("b/p2")?.metadata.name, "p2");
  assert.equal(pods.store.get("c/p3"), undefined, "objects outside the namespaces are invisible");

  let synced = 0;
  const off = pods.addHandler({ synced: () => synced++ });
  inner.made[0].sync();
  assert.equal(pods.hasSynced(), false);
  assert.equal(synced, 0, "synced waits for every namespace");
  inner.made[1].sync();
  assert.equal(pods.hasSynced(), true);
  assert.equal(synced, 1);
  off();
  assert.equal(inner.made[0].handlers.size + inner.made[1].handlers.size, 0);
});

Deno.test("several namespaces: an index is added to every namespace's cache and read across them", () => {
  const inner = registry();
  const pods = namespacedInformers(inner, ["a", "b"]).get(CoreTypes.Pod);
  pods.addIndex!("name", (o) => [o.metadata.name!]);
  assert.deepEqual(pods.store.byIndex!("name", "p2").map(objectKey), ["b/p2"]);
  assert.deepEqual(pods.store.byIndex!("namespace", "a").map(objectKey), ["a/p1"]);
  assert.deepEqual(pods.store.byIndex!("name", "p3"), [], "namespace c is not cached");
  assert.throws(() => pods.store.byIndex!("nope", "x"), /no index "nope"/);
});
