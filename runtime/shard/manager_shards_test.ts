/**
 * The Manager with sharding on: shardable runnables (controllers) run on every replica with the shard gate and no
 * leader fence, the rest stay leader-gated; the ring splits the buckets, /readyz says when a replica is idle, and a
 * replica that stops hands its buckets over at once.
 */
import assert from "node:assert/strict";
import { bucketOf, shardHash } from "../apimachinery/shard_selector.ts";
import { KubeClient } from "../client/client.ts";
import { kubeopLogger } from "../observe/log.ts";
import { VirtualClock } from "../clock.ts";
import type { ControllerDeps, InformerLike } from "../controller/controller.ts";
import { MemoryLeaseStore } from "../leader/lease_lock.ts";
import { Manager, type ManagerInformers } from "../manager/manager.ts";
import { renderReport } from "../manager/probes.ts";
import type { Runnable } from "../manager/runnable.ts";
import { MemoryLeaseDirectory } from "./shard_leases.ts";
import type { KubeObject } from "../types.ts";

const caches: ManagerInformers = {
  get<T extends KubeObject>(): InformerLike<T> {
    throw new Error("no informers in this test");
  },
  start: (signal) => new Promise((resolve) => signal.addEventListener("abort", () => resolve(), { once: true })),
  waitForSync: () => Promise.resolve(),
  hasSynced: () => true,
};

class Worker implements Runnable {
  deps?: ControllerDeps;
  running = false;
  constructor(readonly name: string, readonly shardable: boolean) {}
  bind(deps: ControllerDeps) {
    this.deps = deps;
  }
  async start(signal: AbortSignal) {
    this.running = true;
    await new Promise((resolve) => signal.addEventListener("abort", resolve, { once: true }));
    this.running = false;
  }
}

/** A uid whose bucket among 4 is `bucket`. */
function uidIn(bucket: number): string {
  for (let n = 0;; n++) if (bucketOf(shardHash(`m-${n}`), 4) === bucket) return `m-${n}`;
}

/** Whether `deps`' admission lets a reconcile of an object with `uid` start now. */
function admits(deps: ControllerDeps | undefined, uid: string): boolean {
  const obj = { metadata: { name: "m", namespace: "ns", uid } };
  const door = deps?.admission?.attach({
    controller: "test",
    forType: { group: "", version: "v1", kind: "ConfigMap", plural: "configmaps", namespaced: true },
    forInformer: { addHandler: () => () => {}, store: { list: () => [] } } as unknown as InformerLike<KubeObject>,
    requeue() {},
    log: kubeopLogger("test"),
  });
  const ticket = door?.admit("ns/m", obj);
  ticket?.done(false);
  door?.close();
  return ticket !== undefined;
}

function replica(clock: VirtualClock, leases: MemoryLeaseDirectory, store: MemoryLeaseStore, identity: string) {
  const sharded = new Worker("machines", true);
  const singleton = new Worker("reporter", false);
  const manager = new Manager({
    client: new KubeClient({ config: { server: "http://127.0.0.1:1" } }),
    clock,
    informers: caches,
    recorder: { event() {}, close: () => Promise.resolve() },
    leaderElection: { id: "kubeop", namespace: "default", identity, lock: store.lock(), random: () => 0.5 },
    sharding: { namespace: "default", buckets: 4, directory: leases.directory(), random: () => 0.5 },
  }).add(sharded).add(singleton);
  const stop = new AbortController();
  const running = manager.start(stop.signal);
  return { manager, sharded, singleton, stop, running };
}

Deno.test("sharding: controllers run on every replica and split the buckets; the rest stays leader-gated", async () => {
  const clock = new VirtualClock();
  const leases = new MemoryLeaseDirectory();
  const store = new MemoryLeaseStore();
  const a = replica(clock, leases, store, "a");
  await clock.advance(5_000);
  assert.equal(a.manager.shardRing?.gate.active().length, 4, "alone, a holds every bucket");
  const b = replica(clock, leases, store, "b");
  await clock.advance(10_000);
  assert.equal(a.manager.shardRing?.gate.active().length, 2);
  assert.equal(b.manager.shardRing?.gate.active().length, 2);
  assert.ok(a.sharded.running && b.sharded.running, "the sharded controller runs on both");
  assert.ok(a.singleton.running && !b.singleton.running, "the leader-gated runnable only on the leader");
  const held = b.manager.shardRing!.gate.active()[0];
  const uid = uidIn(held);
  assert.ok(admits(b.sharded.deps, uid), "the gate admits the held bucket's uid though b is not the leader");
  assert.ok(!admits(b.singleton.deps, uid), "the leader fence, not the gate, admits the rest");
  assert.equal(await b.manager.metrics.value("kubeop_shard_buckets_held", { ring: "kubeop" }), 2);
  assert.equal(await b.manager.metrics.value("kubeop_shard_members", { ring: "kubeop" }), 2);
  assert.match(renderReport("readyz", b.manager.readiness(), false).body, /^ok \(shards: holds 2\/4 shard buckets/);

  a.stop.abort();
  await clock.advance(0);
  await a.running;
  await clock.advance(5_000);
  assert.equal(b.manager.shardRing?.gate.active().length, 4, "a handed its buckets over when it stopped");
  assert.equal(
    await b.manager.metrics.value("kubeop_shard_handoffs_total", { ring: "kubeop", kind: "acquired" }),
    4,
  );
  b.stop.abort();
  await clock.advance(0);
  await b.running;
  assert.equal(leases.current("kubeop-bucket-0")?.spec.holderIdentity, "");
});

Deno.test("sharding: /readyz reports a replica holding no bucket as ready but idle", async () => {
  const clock = new VirtualClock();
  const leases = new MemoryLeaseDirectory();
  const lease = leases.directory().lock("kubeop-bucket-0");
  await lease.create({ holderIdentity: "someone-else", leaseDurationSeconds: 15 });
  const sharded = new Worker("machines", true);
  const manager = new Manager({
    client: new KubeClient({ config: { server: "http://127.0.0.1:1" } }),
    clock,
    informers: caches,
    recorder: { event() {}, close: () => Promise.resolve() },
    sharding: { namespace: "default", buckets: 1, directory: leases.directory(), random: () => 0.5 },
  }).add(sharded);
  const stop = new AbortController();
  const running = manager.start(stop.signal);
  // Keep the other holder's Lease fresh so it never expires.
  for (let i = 0; i < 5; i++) {
    const cur = leases.current("kubeop-bucket-0")!;
    await lease.update({ ...cur.spec, renewTime: `t${i}` }, cur.rv);
    await clock.advance(2_000);
  }
  const report = manager.readiness();
  assert.equal(report.ok, true);
  assert.match(renderReport("readyz", report, true).body, /\[\+\]shards ok \(idle: holds no shard bucket/);
  stop.abort();
  await clock.advance(0);
  await running;
});
