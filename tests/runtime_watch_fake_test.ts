/**
 * The informer against testing/'s fake API server (real HTTP, and HTTPS with client certificates): sync, dropped
 * and stalled streams, compaction, injected errors, restart with lost state, and a seeded random-fault run.
 */
import { seededRandom } from "../runtime/random.ts";
import { eventually, type EventuallyOptions } from "../testing/eventually.ts";
import assert from "node:assert/strict";
import { Informer } from "../runtime/cache/cache.ts";
import { KubeClient } from "../runtime/client/client.ts";
import { VirtualClock } from "../runtime/clock.ts";
import { isNotFound } from "../runtime/client/errors.ts";
import { CoreTypes, type KubeObject } from "../runtime/types.ts";
import { nestedString } from "../runtime/unstructured.ts";
import { type FakeApiServer, startFakeApiServer } from "../testing/mod.ts";

const quiet = { debug() {}, info() {}, warn() {} };

/** {@link eventually} options that move virtual time by `advanceMs` between checks (real I/O runs in between). */
function advancing(clock: VirtualClock, timeoutMs = 20_000, advanceMs = 250): EventuallyOptions {
  return { timeoutMs, intervalMs: 3, step: () => clock.advance(advanceMs) };
}

interface Rig {
  server: FakeApiServer;
  admin: KubeClient;
  client: KubeClient;
  clock: VirtualClock;
  informer: Informer;
  restarts: string[];
  stop(): Promise<void>;
}

async function rig(opts: { tls?: boolean; seed?: number } = {}): Promise<Rig> {
  const server = await startFakeApiServer({ anonymousAdmin: true, tls: opts.tls, bookmarkIntervalMs: 50 });
  const config = opts.tls
    ? {
      server: server.url,
      caPEM: server.caPEM,
      certPEM: server.clientCert!.certPEM,
      keyPEM: server.clientCert!.keyPEM,
    }
    : { server: server.url };
  const admin = new KubeClient({ config });
  await admin.create(CoreTypes.Namespace, { metadata: { name: "ns" } }).catch(() => {});
  const clock = new VirtualClock(0);
  const client = new KubeClient({ config, clock });
  const restarts: string[] = [];
  const informer = new Informer({
    client,
    resource: CoreTypes.ConfigMap,
    namespace: "ns",
    clock,
    logger: quiet,
    random: seededRandom(opts.seed ?? 3),
    metrics: { watchRestarts: { inc: (l) => void restarts.push(l.reason) } },
  });
  const ctrl = new AbortController();
  const running = informer.start(ctrl.signal);
  return {
    server,
    admin,
    client,
    clock,
    informer,
    restarts,
    async stop() {
      ctrl.abort();
      await running;
      client.close();
      admin.close();
      await server.stop();
    },
  };
}

async function serverState(admin: KubeClient): Promise<Map<string, string>> {
  const list = await admin.listAll(CoreTypes.ConfigMap, { namespace: "ns" });
  return new Map(list.items.map((o) => [o.metadata.name!, o.metadata.resourceVersion!]));
}

async function converged(r: Rig): Promise<boolean> {
  const want = await serverState(r.admin);
  if (want.size !== r.informer.store.size) return false;
  for (const [name, rv] of want) if (r.informer.store.get(`ns/${name}`)?.metadata.resourceVersion !== rv) return false;
  return true;
}

const cm = (name: string, data: Record<string, string> = {}): KubeObject => ({
  metadata: { name, namespace: "ns" },
  data,
});

async function upsert(admin: KubeClient, name: string, data: Record<string, string>): Promise<void> {
  try {
    const cur = await admin.get(CoreTypes.ConfigMap, name, { namespace: "ns" });
    await admin.update(CoreTypes.ConfigMap, { ...cur, data });
  } catch (err) {
    if (!isNotFound(err)) throw err;
    await admin.create(CoreTypes.ConfigMap, cm(name, data));
  }
}

Deno.test("fake server over mTLS: the informer syncs and follows changes through the raw TLS watch transport", async () => {
  const r = await rig({ tls: true });
  try {
    await r.admin.create(CoreTypes.ConfigMap, cm("a"));
    await eventually(
      "sync",
      () => r.informer.hasSynced() && r.informer.store.get("ns/a") !== undefined,
      advancing(r.clock),
    );
    await r.admin.create(CoreTypes.ConfigMap, cm("b"));
    await r.admin.delete(CoreTypes.ConfigMap, "a", { namespace: "ns" });
    await eventually("changes", () => converged(r), advancing(r.clock));
    assert.deepEqual(r.informer.store.keys(), ["ns/b"]);
  } finally {
    await r.stop();
  }
});

Deno.test("fake server: dropped, stalled and compacted watches and injected 500s are survived", async () => {
  const r = await rig();
  try {
    await eventually("sync", () => r.informer.hasSynced(), advancing(r.clock));
    await r.admin.create(CoreTypes.ConfigMap, cm("a"));
    await eventually("first event", () => converged(r), advancing(r.clock));

    assert.ok(r.server.faults.dropWatches() >= 1);
    await r.admin.create(CoreTypes.ConfigMap, cm("b"));
    await eventually("after drop", () => converged(r), advancing(r.clock));

    await eventually("bookmarks", () => {
      const h = r.informer.health(); // a bookmark arrived on the current stream: the idle deadline is armed
      return h.watchAgeMs !== undefined && h.sinceLastEventMs !== undefined && h.sinceLastEventMs < h.watchAgeMs;
    }, advancing(r.clock));
    assert.ok(r.server.faults.stallWatches() >= 1);
    await r.admin.create(CoreTypes.ConfigMap, cm("c"));
    await eventually("after stall", () => converged(r), advancing(r.clock, 30_000));
    assert.ok(r.restarts.includes("idle-deadline"), r.restarts.join());

    r.server.faults.stallWatches();
    await r.admin.delete(CoreTypes.ConfigMap, "a", { namespace: "ns" });
    r.server.faults.compact();
    r.server.faults.dropWatches();
    await eventually("after compaction", () => converged(r), advancing(r.clock));

    r.server.faults.inject({ verb: "watch", code: 500, times: 2 });
    r.server.faults.dropWatches();
    await r.admin.create(CoreTypes.ConfigMap, cm("d"));
    await eventually("after 500s", () => converged(r), advancing(r.clock));
    assert.ok(r.restarts.some((x) => x === "http-500" || x === "watchlist-error"), r.restarts.join());
  } finally {
    await r.stop();
  }
});

Deno.test("fake server: restart with lost state → relist with synthetic deletes", async () => {
  const r = await rig();
  try {
    await r.admin.create(CoreTypes.ConfigMap, cm("a"));
    await r.admin.create(CoreTypes.ConfigMap, cm("b"));
    await eventually("sync", () => r.informer.store.size === 2, advancing(r.clock));
    const deleted: string[] = [];
    r.informer.addHandler({ deleted: (o) => void deleted.push(o.metadata.name!) });
    await r.server.restart({ keepState: false });
    await r.admin.create(CoreTypes.Namespace, { metadata: { name: "ns" } }).catch(() => {});
    await r.admin.create(CoreTypes.ConfigMap, cm("c"));
    await eventually("resync", () => converged(r), advancing(r.clock));
    assert.deepEqual(r.informer.store.keys(), ["ns/c"]);
    assert.deepEqual(deleted.sort(), ["a", "b"]);
  } finally {
    await r.stop();
  }
});

Deno.test("fake server: property — 200 seeded random faults between writes; cache equals server, no event lost or duplicated", async () => {
  const r = await rig({ seed: 99 });
  const rand = seededRandom(424_242);
  const model = new Map<string, string>();
  const violations: string[] = [];
  r.informer.addHandler({
    added: (o) => {
      if (model.has(o.metadata.name!)) violations.push(`duplicate add ${o.metadata.name}`);
      model.set(o.metadata.name!, o.metadata.resourceVersion!);
    },
    modified: (_old, o) => {
      if (!model.has(o.metadata.name!)) violations.push(`modify of unknown ${o.metadata.name}`);
      model.set(o.metadata.name!, o.metadata.resourceVersion!);
    },
    deleted: (o) => {
      if (!model.delete(o.metadata.name!)) violations.push(`delete of unknown ${o.metadata.name}`);
    },
  });
  try {
    await eventually("sync", () => r.informer.hasSynced(), advancing(r.clock));
    for (let i = 0; i < 200; i++) {
      const name = `o${Math.floor(rand() * 20)}`;
      if (rand() < 0.25) await r.admin.delete(CoreTypes.ConfigMap, name, { namespace: "ns" }).catch(() => {});
      else await upsert(r.admin, name, { i: String(i) });
      const f = rand();
      if (f < 0.25) r.server.faults.dropWatches();
      else if (f < 0.45) r.server.faults.stallWatches();
      else if (f < 0.6) r.server.faults.compact();
      else if (f < 0.7) r.server.faults.inject({ verb: rand() < 0.5 ? "watch" : "list", code: 500, times: 1 });
      await r.clock.advance(rand() < 0.1 ? 100_000 : 1_000);
      await new Promise((res) => setTimeout(res, 2));
    }
    r.server.faults.clear();
    r.server.faults.dropWatches();
    await eventually("convergence", () => converged(r), advancing(r.clock, 60_000));
    assert.deepEqual(violations, []);
    assert.deepEqual(model, await serverState(r.admin));
  } finally {
    await r.stop();
  }
});

Deno.test("fake server: metadata-only and label-selector informers cache only what they asked for", async () => {
  const server = await startFakeApiServer({ anonymousAdmin: true, bookmarkIntervalMs: 50 });
  const admin = new KubeClient({ config: { server: server.url } });
  const clock = new VirtualClock(0);
  const client = new KubeClient({ config: { server: server.url }, clock });
  const ctrl = new AbortController();
  try {
    await admin.create(CoreTypes.Namespace, { metadata: { name: "ns" } }).catch(() => {});
    await admin.create(CoreTypes.ConfigMap, {
      metadata: { name: "x", namespace: "ns", labels: { app: "x" } },
      data: { big: "1" },
    });
    await admin.create(CoreTypes.ConfigMap, {
      metadata: { name: "y", namespace: "ns", labels: { app: "y" } },
      data: { big: "2" },
    });
    const meta = new Informer({
      client,
      resource: CoreTypes.ConfigMap,
      namespace: "ns",
      metadataOnly: true,
      clock,
      logger: quiet,
    });
    const scoped = new Informer({
      client,
      resource: CoreTypes.ConfigMap,
      namespace: "ns",
      labelSelector: "app=x",
      clock,
      logger: quiet,
    });
    const running = [meta.start(ctrl.signal), scoped.start(ctrl.signal)];
    await admin.create(CoreTypes.ConfigMap, {
      metadata: { name: "z", namespace: "ns", labels: { app: "x" } },
      data: { big: "3" },
    });
    await eventually("both caches", () => meta.store.size === 3 && scoped.store.size === 2, advancing(clock));
    const x = meta.store.get("ns/x")!;
    assert.equal(x.kind, "PartialObjectMetadata");
    assert.equal(x.data, undefined);
    assert.deepEqual(x.metadata.labels, { app: "x" });
    assert.deepEqual(scoped.store.keys().sort(), ["ns/x", "ns/z"]);
    assert.equal(nestedString(scoped.store.get("ns/z"), "data", "big"), "3");
    ctrl.abort();
    await Promise.all(running);
  } finally {
    ctrl.abort();
    client.close();
    admin.close();
    await server.stop();
  }
});
