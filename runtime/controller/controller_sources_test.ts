import assert from "node:assert/strict";
import { VirtualClock } from "../clock.ts";
import type { InformerHandler, InformerLike } from "../cache/cache.ts";
import { controllerOwnerKeys, ownWritesStores, type Source, startResync, wireSources } from "./controller_sources.ts";
import { kubeopLogger } from "../observe/log.ts";
import { OwnWritesTracker } from "./own_writes.ts";
import { WorkQueue } from "../queue/queue.ts";
import { StoreWriter } from "../cache/store.ts";
import { CoreTypes, type KubeObject, objectKey, type OwnerReference, type ResourceType } from "../types.ts";

const SECRET = CoreTypes.Secret;
const POD = CoreTypes.Pod;
const NS = CoreTypes.Namespace;

const obj = (name: string, namespace?: string, owner?: OwnerReference): KubeObject => ({
  metadata: { name, namespace, uid: `uid-${name}`, ownerReferences: owner ? [owner] : undefined },
});
const ref = (kind: string, name: string, apiVersion = "v1", controller = true): OwnerReference => ({
  apiVersion,
  kind,
  name,
  uid: `uid-${name}`,
  controller,
});

Deno.test("controllerOwnerKeys maps a controller ownerRef of the For group and kind to the owner's key", () => {
  const secretOwner = controllerOwnerKeys(SECRET);
  const cases: [KubeObject, string[]][] = [
    [obj("p", "ns", ref("Secret", "s")), ["ns/s"]],
    [obj("p", "ns", ref("Secret", "s", "v1", false)), []], // not the controller
    [obj("p", "ns", ref("ConfigMap", "s")), []], // another kind
    [obj("p", "ns", ref("Secret", "s", "example.com/v1")), []], // same kind, another group
    [obj("p", "ns"), []],
  ];
  for (const [o, want] of cases) assert.deepEqual(secretOwner(o), want, JSON.stringify(o.metadata.ownerReferences));
  // A cluster-scoped For (or a cluster-scoped child) is keyed by name alone.
  assert.deepEqual(controllerOwnerKeys(NS)(obj("p", "ns", ref("Namespace", "team"))), ["team"]);
  assert.deepEqual(controllerOwnerKeys(SECRET)(obj("p", undefined, ref("Secret", "s"))), ["s"]);
});

/** An informer whose initial objects are replayed to each new handler and whose events a test fires by hand. */
function fakeInformer(resource: ResourceType, initial: KubeObject[] = []) {
  const handlers = new Set<InformerHandler>();
  let synced = false;
  const store = new StoreWriter();
  store.replace(initial);
  const informer: InformerLike & { sync(): void; fire: Required<InformerHandler>; handlers(): number } = {
    resource,
    store: store.reader,
    addHandler(h) {
      for (const o of initial) h.added?.(o);
      handlers.add(h);
      return () => handlers.delete(h);
    },
    hasSynced: () => synced,
    waitForSync: () => Promise.resolve(),
    sync: () => void (synced = true),
    fire: {
      added: (o) => handlers.forEach((h) => h.added?.(o)),
      modified: (old, o) => handlers.forEach((h) => h.modified?.(old, o)),
      deleted: (o) => handlers.forEach((h) => h.deleted?.(o)),
      synced: () => {},
    },
    handlers: () => handlers.size,
  };
  return informer;
}

function drain(queue: WorkQueue): string[] {
  const keys: string[] = [];
  for (let key = queue.tryGet(); key !== undefined; key = queue.tryGet()) {
    keys.push(key);
    queue.done(key);
  }
  return keys;
}

function rig(sources: Source[], informers: ReturnType<typeof fakeInformer>[]) {
  const clock = new VirtualClock();
  const queue = new WorkQueue({ clock });
  const ownWrites = new OwnWritesTracker({ clock, storeFor: () => undefined });
  const unregister = wireSources({ sources, informers, queue, ownWrites, log: kubeopLogger("test") });
  return { queue, unregister };
}

Deno.test("wireSources: replayed initial state is low priority, live changes after sync go ahead of it", () => {
  const secrets = fakeInformer(SECRET, [obj("old-1", "ns"), obj("old-2", "ns")]);
  const { queue } = rig([{ rt: SECRET, map: (o) => [objectKey(o)] }], [secrets]);
  secrets.sync();
  secrets.fire.added(obj("live", "ns"));
  assert.deepEqual(drain(queue), ["ns/live", "ns/old-1", "ns/old-2"]);
});

Deno.test("wireSources: an Owns/Watches change enqueues the old and the new owner, a For change only itself", () => {
  const secrets = fakeInformer(SECRET);
  const pods = fakeInformer(POD);
  const sources: Source[] = [
    { rt: SECRET, map: (o) => [objectKey(o)] },
    { rt: POD, map: controllerOwnerKeys(SECRET) },
  ];
  const { queue } = rig(sources, [secrets, pods]);
  secrets.sync();
  pods.sync();
  pods.fire.modified(obj("p", "ns", ref("Secret", "before")), obj("p", "ns", ref("Secret", "after")));
  assert.deepEqual(drain(queue).sort(), ["ns/after", "ns/before"]);
  secrets.fire.modified(obj("was", "ns"), obj("s", "ns")); // For: only the new object's key
  pods.fire.deleted(obj("p", "ns", ref("Secret", "gone")));
  assert.deepEqual(drain(queue).sort(), ["ns/gone", "ns/s"]);
});

Deno.test("wireSources: a throwing map function drops that event only; unregister removes every handler", () => {
  const secrets = fakeInformer(SECRET);
  const pods = fakeInformer(POD);
  const sources: Source[] = [
    { rt: SECRET, map: (o) => [objectKey(o)] },
    {
      rt: POD,
      map: (o) => {
        if (o.metadata.name === "bad") throw new Error("no owner");
        return [`ns/${o.metadata.name}-owner`];
      },
    },
  ];
  const { queue, unregister } = rig(sources, [secrets, pods]);
  pods.fire.added(obj("bad", "ns"));
  pods.fire.added(obj("good", "ns"));
  assert.deepEqual(drain(queue), ["ns/good-owner"]);
  assert.equal(secrets.handlers() + pods.handlers(), 2);
  unregister();
  assert.equal(secrets.handlers() + pods.handlers(), 0);
});

Deno.test("ownWritesStores: the first unscoped informer per resource; selector-scoped caches are not waited on", () => {
  const scoped = fakeInformer(SECRET);
  const all = fakeInformer(SECRET);
  const pods = fakeInformer(POD);
  const stores = ownWritesStores([
    { rt: SECRET, opts: { labelSelector: "a=b" }, map: () => [] },
    { rt: SECRET, map: () => [] },
    { rt: POD, opts: { namespace: "ns" }, map: () => [] },
  ], [scoped, all, pods]);
  assert.equal(stores.get("secrets")?.store, all.store);
  assert.equal(stores.get("pods")?.store, pods.store);
  assert.equal(stores.size, 2);
});

Deno.test("startResync re-queues every cached For object at low priority each period until cancelled", async () => {
  const clock = new VirtualClock();
  const queue = new WorkQueue({ clock });
  const forStore = fakeInformer(SECRET, [obj("a", "ns"), obj("b", "ns")]).store;
  const cancel = startResync({ clock, periodMs: 1_000, forStore, queue });
  await clock.advance(999);
  assert.deepEqual(drain(queue), []);
  await clock.advance(1);
  assert.deepEqual(drain(queue), ["ns/a", "ns/b"]);
  await clock.advance(1_000);
  queue.add("ns/live", "high");
  assert.deepEqual(drain(queue), ["ns/live", "ns/a", "ns/b"], "resync keys are low priority");
  cancel();
  await clock.advance(5_000);
  assert.deepEqual(drain(queue), []);
  const off = startResync({ clock, periodMs: undefined, forStore, queue });
  await clock.advance(5_000);
  assert.deepEqual(drain(queue), []);
  off();
});
