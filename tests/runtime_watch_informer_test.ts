import assert from "node:assert/strict";
import { seededRandom } from "../runtime/random.ts";
import { eventually, type EventuallyOptions } from "../testing/eventually.ts";
import { Informer, type InformerMetrics } from "../runtime/cache/cache.ts";
import { KubeClient } from "../runtime/client/client.ts";
import { VirtualClock } from "../runtime/clock.ts";
import { CacheSyncTimeoutError, InformerRegistry } from "../runtime/cache/informers.ts";
import { CoreTypes, type KubeObject } from "../runtime/types.ts";
import { nestedString } from "../runtime/unstructured.ts";
import { WatchStub } from "./runtime_watch_stub.ts";

const quietLogger = { debug() {}, info() {}, warn() {} };

class RecordingMetrics implements InformerMetrics {
  restarts: string[] = [];
  decodeErrors = 0;
  watchDecodeErrors = { inc: () => void this.decodeErrors++ };
  relists: string[] = [];
  objects = 0;
  watchRestarts = { inc: (l: { reason: string }) => void this.restarts.push(l.reason) };
  watchRelists = { inc: (l: { cause: string }) => void this.relists.push(l.cause) };
  cacheObjects = { set: (_l: unknown, v: number) => void (this.objects = v) };
}

/** {@link eventually} options that move virtual time by `advanceMs` between checks (real I/O runs in between). */
function advancing(clock: VirtualClock, timeoutMs = 15_000, advanceMs = 250): EventuallyOptions {
  return { timeoutMs, intervalMs: 2, step: () => clock.advance(advanceMs) };
}

interface Harness {
  stub: WatchStub;
  clock: VirtualClock;
  client: KubeClient;
  informer: Informer;
  metrics: RecordingMetrics;
  log: string[];
  stop(): Promise<void>;
}

function harness(opts: { watchList?: boolean; seed?: number } = {}): Harness {
  const stub = new WatchStub();
  stub.watchListSupported = opts.watchList ?? true;
  const clock = new VirtualClock(0);
  const client = new KubeClient({ config: { server: stub.url }, clock });
  const metrics = new RecordingMetrics();
  const random = seededRandom(opts.seed ?? 7);
  const informer = new Informer({
    client,
    resource: CoreTypes.ConfigMap,
    namespace: "ns",
    clock,
    metrics,
    logger: quietLogger,
    random,
  });
  const log: string[] = [];
  informer.addHandler({
    added: (o) => void log.push(`added ${o.metadata.name} ${o.metadata.resourceVersion}`),
    modified: (_old, o) => void log.push(`modified ${o.metadata.name} ${o.metadata.resourceVersion}`),
    deleted: (o) => void log.push(`deleted ${o.metadata.name}`),
    synced: () => void log.push("synced"),
  });
  const ctrl = new AbortController();
  const running = informer.start(ctrl.signal);
  return {
    stub,
    clock,
    client,
    informer,
    metrics,
    log,
    async stop() {
      ctrl.abort();
      await running;
      client.close();
      await stub.close();
    },
  };
}

function sameAsServer(h: Harness): boolean {
  if (h.informer.store.size !== h.stub.objects.size) return false;
  for (const [name, obj] of h.stub.objects) {
    if (h.informer.store.get(`ns/${name}`)?.metadata.resourceVersion !== obj.metadata.resourceVersion) return false;
  }
  return true;
}

Deno.test("informer: syncs through WatchList, then follows events; objects are frozen and lose managedFields", async () => {
  const h = harness();
  try {
    h.stub.write("a", { v: "1" });
    h.stub.write("b");
    await eventually("sync", () => h.informer.hasSynced(), advancing(h.clock));
    assert.ok(h.stub.requests.some((u) => u.searchParams.get("sendInitialEvents") === "true"));
    assert.ok(!h.stub.requests.some((u) => u.searchParams.get("watch") !== "true"), "no list request");
    h.stub.write("a", { v: "2" });
    h.stub.remove("b");
    await eventually("delete", () => h.log.includes("deleted b"), advancing(h.clock));
    assert.deepEqual(h.log, ["added a 101", "added b 102", "synced", "modified a 103", "deleted b"]);
    const a = h.informer.store.get("ns/a")!;
    assert.equal(nestedString(a, "data", "v"), "2");
    assert.equal(a.metadata.managedFields, undefined);
    assert.ok(Object.isFrozen(a) && Object.isFrozen(a.data));
  } finally {
    await h.stop();
  }
});

Deno.test("informer: falls back to a paginated list when the server refuses WatchList", async () => {
  const h = harness({ watchList: false });
  try {
    for (let i = 0; i < 1_100; i++) h.stub.write(`o${i}`);
    await eventually("sync", () => h.informer.hasSynced() && h.stub.openStreams === 1, advancing(h.clock));
    assert.equal(h.informer.store.size, 1_100);
    const lists = h.stub.requests.filter((u) => u.searchParams.get("watch") !== "true");
    assert.deepEqual(lists.map((u) => u.searchParams.get("limit")), ["500", "500", "500"]);
    const watch = h.stub.requests.filter((u) => u.searchParams.get("watch") === "true").at(-1)!;
    assert.equal(watch.searchParams.get("resourceVersion"), String(h.stub.rv));
    assert.equal(watch.searchParams.get("allowWatchBookmarks"), "true");
    const timeout = Number(watch.searchParams.get("timeoutSeconds"));
    assert.ok(timeout >= 15 && timeout <= 22);
    assert.deepEqual(h.metrics.relists, ["watchlist-fallback"]);
  } finally {
    await h.stop();
  }
});

Deno.test("informer: a bookmark moves the RV the next watch resumes from; a dropped stream is resumed after backoff", async () => {
  const h = harness();
  try {
    h.stub.write("a");
    await eventually("sync", () => h.informer.hasSynced() && h.stub.openStreams === 1, advancing(h.clock));
    h.stub.rv += 50; // writes elsewhere in the server move the RV
    h.stub.bookmark();
    await eventually("bookmark", () => h.informer.health().resourceVersion === "151", advancing(h.clock));
    const before = h.stub.requests.length;
    h.stub.drop("end");
    await eventually("re-watch", () => h.stub.requests.length > before && h.stub.openStreams === 1, advancing(h.clock));
    assert.equal(h.stub.requests.at(-1)!.searchParams.get("resourceVersion"), "151");
    assert.deepEqual(h.metrics.restarts, ["stream-ended"]);
    h.stub.write("b");
    await eventually("event after resume", () => h.informer.store.get("ns/b") !== undefined, advancing(h.clock));
    assert.equal(h.log.filter((l) => l.startsWith("added a")).length, 1, "no duplicate add");
  } finally {
    await h.stop();
  }
});

Deno.test("informer: 410 after a missed window relists and emits deletes for objects gone meanwhile", async () => {
  const h = harness();
  try {
    h.stub.write("a");
    h.stub.write("b");
    h.stub.write("c");
    await eventually("sync", () => h.informer.hasSynced() && h.stub.openStreams === 1, advancing(h.clock));
    h.stub.stall(); // the informer misses what follows
    h.stub.remove("a");
    h.stub.write("b", { changed: "yes" });
    h.stub.compact(false); // history gone, streams reset: re-watch from the old RV gets HTTP 410
    await eventually("relist", () => sameAsServer(h), advancing(h.clock));
    assert.deepEqual(h.log.slice(4).sort(), ["deleted a", "modified b 105"]);
    assert.ok(h.metrics.relists.includes("expired"));
    // in-stream 410
    h.stub.write("d");
    await eventually("event", () => sameAsServer(h), advancing(h.clock));
    h.stub.compact(true);
    await eventually(
      "in-stream 410",
      () => h.metrics.relists.filter((c) => c === "expired").length === 2,
      advancing(h.clock),
    );
    await eventually("relist 2", () => sameAsServer(h), advancing(h.clock));
    assert.equal(h.log.filter((l) => l.startsWith("added d")).length, 1, "relist added no duplicate");
  } finally {
    await h.stop();
  }
});

Deno.test("informer: malformed frames, unknown types and objects without metadata are counted and skipped", async () => {
  const h = harness();
  try {
    await eventually("sync", () => h.informer.hasSynced() && h.stub.openStreams === 1, advancing(h.clock));
    h.stub.sendRaw("{not json");
    h.stub.sendRaw(JSON.stringify({ type: "EXPLODED", object: { metadata: { name: "x" } } }));
    h.stub.sendRaw(JSON.stringify({ type: "ADDED", object: { kind: "ConfigMap" } }));
    h.stub.write("after");
    await eventually("event after garbage", () => h.informer.store.get("ns/after") !== undefined, advancing(h.clock));
    assert.equal(h.metrics.decodeErrors, 3);
    assert.equal(h.informer.store.size, 1);
    assert.deepEqual(h.metrics.restarts, [], "the stream was not restarted");
  } finally {
    await h.stop();
  }
});

Deno.test("informer: a stalled (half-open) stream is detected by the read-idle deadline and replaced", async () => {
  const h = harness();
  try {
    await eventually("sync", () => h.informer.hasSynced() && h.stub.openStreams === 1, advancing(h.clock));
    for (let i = 0; i < 3; i++) {
      await h.clock.advance(30_000);
      h.stub.bookmark();
      await eventually("bookmark", () => h.informer.health().sinceLastEventMs === 0, advancing(h.clock, 15_000, 0));
    }
    h.stub.stall();
    h.stub.write("late");
    await eventually("recovery", () => h.informer.store.get("ns/late") !== undefined, advancing(h.clock, 20_000));
    assert.ok(h.metrics.restarts.includes("idle-deadline"));
  } finally {
    await h.stop();
  }
});

Deno.test("informer: server restart with lost state → relist, synthetic deletes, then new objects", async () => {
  const h = harness();
  try {
    h.stub.write("a");
    h.stub.write("b");
    await eventually("sync", () => h.informer.hasSynced() && h.informer.store.size === 2, advancing(h.clock));
    h.stub.restart({ keepState: false });
    h.stub.write("c");
    await eventually("resync", () => sameAsServer(h), advancing(h.clock));
    assert.deepEqual(h.informer.store.keys(), ["ns/c"]);
    assert.ok(h.log.includes("deleted a") && h.log.includes("deleted b"));
  } finally {
    await h.stop();
  }
});

Deno.test("informer: injected 500s on list and watch are retried with backoff; health reports failures", async () => {
  const h = harness({ watchList: false });
  try {
    h.stub.fail500 = 3;
    h.stub.write("a");
    await eventually("failures counted", () => h.informer.health().consecutiveFailures >= 2, advancing(h.clock));
    assert.equal(h.informer.hasSynced(), false);
    await eventually("sync after 500s", () => h.informer.hasSynced(), advancing(h.clock));
    assert.equal(h.informer.health().synced, true);
    assert.ok(h.metrics.restarts.length >= 2, h.metrics.restarts.join());
  } finally {
    await h.stop();
  }
});

Deno.test("informer: waits for its own writes (RV ≥ N) and for a uid's deletion", async () => {
  const h = harness();
  try {
    h.stub.write("a");
    await eventually("sync", () => h.informer.hasSynced(), advancing(h.clock));
    const uid = h.stub.objects.get("a")!.metadata.uid!;
    h.stub.stall();
    const rv = h.stub.write("a", { n: "2" });
    const seen = h.informer.waitForResourceVersion("ns/a", rv, { timeoutMs: 1_000 });
    await h.clock.advance(1_000);
    assert.equal(await seen, false, "stalled stream: the write is not visible, wait times out");
    h.stub.drop("reset");
    assert.equal(await h.informer.waitForResourceVersion("ns/a", "1", { timeoutMs: 10 }), true);
    const seen2 = h.informer.waitForResourceVersion("ns/a", rv, { timeoutMs: 60_000 });
    let resolved: boolean | undefined;
    seen2.then((v) => resolved = v);
    await eventually("rv seen", () => resolved !== undefined, advancing(h.clock));
    assert.equal(resolved, true);
    const gone = h.informer.waitForDeletion(uid, { timeoutMs: 60_000 });
    let deleted: boolean | undefined;
    gone.then((v) => deleted = v);
    h.stub.remove("a");
    await eventually("deletion seen", () => deleted !== undefined, advancing(h.clock));
    assert.equal(deleted, true);
  } finally {
    await h.stop();
  }
});

Deno.test("registry: one informer per (resource, scope); waitForSync names the unsynced resource", async () => {
  const stub = new WatchStub();
  const clock = new VirtualClock(0);
  const client = new KubeClient({ config: { server: stub.url }, clock });
  const registry = new InformerRegistry({ client, clock, logger: quietLogger });
  const ctrl = new AbortController();
  try {
    const a = registry.get(CoreTypes.ConfigMap, { namespace: "ns" });
    assert.equal(registry.get(CoreTypes.ConfigMap, { namespace: "ns" }), a);
    assert.notEqual(registry.get(CoreTypes.ConfigMap, { namespace: "ns", labelSelector: "x=y" }), a);
    const broken = registry.get(CoreTypes.Secret, { namespace: "ns" }); // stub answers 404 for secrets
    const running = registry.start(ctrl.signal);
    const waiting = registry.waitForSync(5_000);
    let error: unknown;
    waiting.catch((e) => error = e);
    await eventually("sync timeout", () => error !== undefined, advancing(clock));
    assert.ok(error instanceof CacheSyncTimeoutError);
    assert.deepEqual(error.unsynced.map((s) => s.split(" ")[0]), ["secrets"]);
    assert.ok(a.hasSynced());
    assert.equal(broken.hasSynced(), false);
    ctrl.abort();
    await running;
  } finally {
    ctrl.abort();
    client.close();
    await stub.close();
  }
});

Deno.test("informer: property — 1 000 random faults interleaved with writes; the cache ends equal to the server, no event lost or duplicated", async () => {
  const h = harness({ seed: 1234 });
  const rand = seededRandom(20_261_123);
  const model = new Map<string, string>();
  const violations: string[] = [];
  h.informer.addHandler({
    added: (o: KubeObject) => {
      if (model.has(o.metadata.name!)) violations.push(`duplicate add ${o.metadata.name}`);
      model.set(o.metadata.name!, o.metadata.resourceVersion!);
    },
    modified: (_old: KubeObject, o: KubeObject) => {
      if (!model.has(o.metadata.name!)) violations.push(`modify of unknown ${o.metadata.name}`);
      model.set(o.metadata.name!, o.metadata.resourceVersion!);
    },
    deleted: (o: KubeObject) => {
      if (!model.delete(o.metadata.name!)) violations.push(`delete of unknown ${o.metadata.name}`);
    },
  });
  try {
    await eventually("sync", () => h.informer.hasSynced(), advancing(h.clock));
    const faults = { drop: 0, reset: 0, stall: 0, compact: 0, restart: 0, inject500: 0, bookmark: 0 };
    for (let i = 0; i < 1_000; i++) {
      const writes = 1 + Math.floor(rand() * 3);
      for (let w = 0; w < writes; w++) {
        const name = `o${Math.floor(rand() * 40)}`;
        if (rand() < 0.25) h.stub.remove(name);
        else h.stub.write(name, { i: String(i) });
      }
      const f = rand();
      if (f < 0.2) (h.stub.drop("end"), faults.drop++);
      else if (f < 0.35) (h.stub.drop("reset"), faults.reset++);
      else if (f < 0.5) (h.stub.stall(), faults.stall++);
      else if (f < 0.62) (h.stub.compact(rand() < 0.5), faults.compact++);
      else if (f < 0.7) (h.stub.restart({ keepState: rand() < 0.5 }), faults.restart++);
      else if (f < 0.8) (h.stub.fail500 += 1, faults.inject500++);
      else (h.stub.bookmark(), faults.bookmark++);
      // Let the loop react for a few virtual seconds (stalls recover through the idle deadline or later faults).
      await h.clock.advance(rand() < 0.1 ? 120_000 : 2_000);
      await new Promise((r) => setTimeout(r, 1));
    }
    h.stub.fail500 = 0;
    h.stub.drop("reset"); // ends any stall
    await eventually("convergence", () => sameAsServer(h), advancing(h.clock, 60_000));
    assert.deepEqual(violations, []);
    assert.equal(model.size, h.stub.objects.size);
    for (const [name, obj] of h.stub.objects) assert.equal(model.get(name), obj.metadata.resourceVersion, name);
    assert.ok(Object.values(faults).every((n) => n > 20), JSON.stringify(faults));
  } finally {
    await h.stop();
  }
});
