import assert from "node:assert/strict";
import { Informer } from "./cache.ts";
import type { KubeClient } from "../client/client.ts";
import { flushMicrotasks, VirtualClock } from "../clock.ts";
import { CoreTypes, type KubeObject, type WatchEvent } from "../types.ts";

const quiet = { debug() {}, info() {}, warn() {} };

function cm(name: string, rv: string, extra: Partial<KubeObject["metadata"]> = {}): KubeObject {
  return { metadata: { name, namespace: "ns", resourceVersion: rv, uid: `uid-${name}`, ...extra } };
}

/** An informer over a client that lists `items` once and then serves one watch the test feeds. */
function rig(items: KubeObject[]) {
  const clock = new VirtualClock(0);
  let feed: (event: WatchEvent<unknown>) => void = () => {};
  const client = {
    clock,
    credentials: { invalidate() {} },
    listAll: () => Promise.resolve({ apiVersion: "v1", kind: "List", metadata: { resourceVersion: "10" }, items }),
    watchStream(_rt: unknown, opts: { signal?: AbortSignal; onOpen?: () => void }, onEvent: typeof feed) {
      feed = onEvent;
      opts.onOpen?.();
      return new Promise<void>((_, reject) =>
        opts.signal?.addEventListener("abort", () => reject(opts.signal!.reason))
      );
    },
  } as unknown as KubeClient;
  const informer = new Informer({ client, resource: CoreTypes.ConfigMap, clock, logger: quiet, watchList: false });
  const ctrl = new AbortController();
  return { informer, ctrl, send: (e: WatchEvent<unknown>) => feed(e), start: () => informer.start(ctrl.signal) };
}

Deno.test("cache: readers get a Store with no write methods; the informer exposes no write path", async () => {
  const r = rig([cm("a", "1", { managedFields: [{ manager: "x" }] })]);
  const running = r.start();
  await r.informer.waitForSync();
  const store = r.informer.store;
  for (const method of ["replace", "apply", "upsert", "remove", "addIndex"]) {
    assert.ok(!(method in store), `store.${method}`);
  }
  for (const method of ["replace", "apply", "upsert", "remove"]) {
    assert.ok(!(method in r.informer), `informer.${method}`);
  }
  const a = store.get("ns/a")!;
  assert.ok(Object.isFrozen(a) && Object.isFrozen(a.metadata));
  assert.equal(a.metadata.managedFields, undefined, "the default transform drops managedFields");
  assert.equal(store.getByUid("uid-a"), a);
  r.ctrl.abort();
  await running;
});

Deno.test("cache: handlers see added, modified, deleted and synced; a throwing handler does not stop the others", async () => {
  const r = rig([cm("a", "1")]);
  const seen: string[] = [];
  r.informer.addHandler({
    added: () => {
      throw new Error("boom");
    },
  });
  r.informer.addHandler({
    added: (o) => void seen.push(`added ${o.metadata.name}`),
    modified: (old, o) =>
      void seen.push(`modified ${o.metadata.name} ${old.metadata.resourceVersion}→${o.metadata.resourceVersion}`),
    deleted: (o) => void seen.push(`deleted ${o.metadata.name}`),
    synced: () => void seen.push("synced"),
  });
  const running = r.start();
  await r.informer.waitForSync();
  await flushMicrotasks();
  r.send({ type: "MODIFIED", object: cm("a", "11") });
  r.send({ type: "ADDED", object: cm("b", "12") });
  r.send({ type: "DELETED", object: cm("a", "13") });
  assert.deepEqual(seen, ["added a", "synced", "modified a 1→11", "added b", "deleted a"]);
  assert.deepEqual(r.informer.store.keys(), ["ns/b"]);
  const late: string[] = [];
  r.informer.addHandler({ added: (o) => void late.push(o.metadata.name!), synced: () => void late.push("synced") });
  assert.deepEqual(late, ["b", "synced"], "a handler added after sync is told the cached objects, then synced");
  r.ctrl.abort();
  await running;
});

Deno.test("cache: waitForResourceVersion resolves once the cache shows the write", async () => {
  const r = rig([cm("a", "1")]);
  const running = r.start();
  await r.informer.waitForSync();
  await flushMicrotasks();
  const waiting = r.informer.waitForResourceVersion("ns/a", "15");
  r.send({ type: "MODIFIED", object: cm("a", "15") });
  assert.equal(await waiting, true);
  r.ctrl.abort();
  await running;
});
