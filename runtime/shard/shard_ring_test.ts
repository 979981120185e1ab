/**
 * The shard ring on a virtual clock with in-memory Leases: shares follow membership, a bucket is never held by two
 * replicas at once, a handover whose drain times out leaves the Lease to expire, and a replica cut off from the API
 * server loses its buckets to the others once their Leases expire.
 */
import assert from "node:assert/strict";
import { VirtualClock } from "../clock.ts";
import { Metrics } from "../observe/metrics.ts";
import { shardMetrics } from "./shard_metrics.ts";
import { type LeaseDirectory, MemoryLeaseDirectory } from "./shard_leases.ts";
import { ShardRing } from "./shard_ring.ts";
import type { Logger } from "../observe/log.ts";

const TIMINGS = { leaseSeconds: 1, renewDeadlineSeconds: 0.6, retryPeriodSeconds: 0.2 };

function start(
  clock: VirtualClock,
  directory: LeaseDirectory,
  identity: string,
  extra: { drainTimeoutMs?: number } = {},
) {
  const metrics = new Metrics();
  const ring = new ShardRing({
    ...TIMINGS,
    ...extra,
    directory,
    ring: "kubeop",
    buckets: 8,
    identity,
    clock,
    random: () => 0.5,
    metrics: shardMetrics(metrics, "kubeop"),
  });
  const stop = new AbortController();
  const done = ring.run(stop.signal);
  return { ring, stop, done, metrics };
}

/** Advances `ms` in 50 ms steps, failing when two rings hold one bucket at any step. */
async function advanceChecked(clock: VirtualClock, rings: ShardRing[], ms: number): Promise<void> {
  for (let t = 0; t < ms; t += 50) {
    await clock.advance(50);
    const seen = new Map<number, string>();
    for (const ring of rings) {
      for (const b of ring.gate.held()) {
        assert.ok(!seen.has(b), `bucket ${b} held by ${seen.get(b)} and ${ring.identity}`);
        seen.set(b, ring.identity);
      }
    }
  }
}

Deno.test("shard ring: shares follow membership (8 → 4/4 → 3/3/2 → 4/4) and no bucket is held twice", async () => {
  const clock = new VirtualClock();
  const leases = new MemoryLeaseDirectory();
  const a = start(clock, leases.directory(), "a");
  await advanceChecked(clock, [a.ring], 2_000);
  assert.equal(a.ring.gate.active().length, 8);
  const b = start(clock, leases.directory(), "b");
  await advanceChecked(clock, [a.ring, b.ring], 4_000);
  assert.deepEqual([a.ring.gate.active().length, b.ring.gate.active().length], [4, 4]);
  const c = start(clock, leases.directory(), "c");
  await advanceChecked(clock, [a.ring, b.ring, c.ring], 4_000);
  assert.deepEqual([a, b, c].map((r) => r.ring.gate.active().length), [3, 3, 2]);
  assert.equal(await c.metrics.value("kubeop_shard_members", { ring: "kubeop" }), 3);
  c.stop.abort();
  await advanceChecked(clock, [a.ring, b.ring], 4_000);
  await c.done;
  assert.deepEqual([a.ring.gate.active().length, b.ring.gate.active().length], [4, 4]);
  assert.equal(leases.current("kubeop-member-c"), undefined, "a leaving member deletes its Lease");
  a.stop.abort();
  b.stop.abort();
  await clock.advance(1_000);
  await Promise.all([a.done, b.done]);
});

Deno.test("shard ring: a handover whose drain times out leaves the Lease to expire instead of releasing it", async () => {
  const clock = new VirtualClock();
  const leases = new MemoryLeaseDirectory();
  const a = start(clock, leases.directory(), "a", { drainTimeoutMs: 300 });
  await clock.advance(2_000);
  // A reconcile of every bucket that never ends.
  const stuck = a.ring.gate.active().map((b) => {
    for (let n = 0;; n++) {
      const uid = `u-${b}-${n}`;
      if (a.ring.gate.bucketOfUid(uid) === b) return a.ring.gate.admit(uid)!;
    }
  });
  assert.equal(stuck.length, 8);
  const b = start(clock, leases.directory(), "b", { drainTimeoutMs: 300 });
  await advanceChecked(clock, [a.ring, b.ring], 800);
  const surplus = [4, 5, 6, 7].map((n) => leases.current(`kubeop-bucket-${n}`)?.spec.holderIdentity);
  assert.deepEqual(surplus, ["a", "a", "a", "a"], "not released: the drain timed out");
  assert.deepEqual(a.ring.gate.held(), [0, 1, 2, 3], "but no longer held (fence closed)");
  await advanceChecked(clock, [a.ring, b.ring], 3_000);
  assert.deepEqual(b.ring.gate.active(), [4, 5, 6, 7], "taken once the Leases expired");
  assert.equal(await a.metrics.value("kubeop_shard_handoffs_total", { ring: "kubeop", kind: "expired" }), 4);
  for (const t of stuck) t.done();
  a.stop.abort();
  b.stop.abort();
  await clock.advance(1_000);
  await Promise.all([a.done, b.done]);
});

Deno.test("shard ring: a replica cut off from the API server loses its buckets; the other takes them after expiry", async () => {
  const clock = new VirtualClock();
  const leases = new MemoryLeaseDirectory();
  let cut = false;
  const inner = leases.directory();
  const never = new Promise<never>(() => {});
  const flaky: LeaseDirectory = {
    lock: (name) => {
      const lock = inner.lock(name);
      return {
        get: () => cut ? never : lock.get(),
        create: (spec) => cut ? never : lock.create(spec),
        update: (spec, rv) => cut ? never : lock.update(spec, rv),
        describe: () => lock.describe(),
      };
    },
    list: () => cut ? never : inner.list(),
    remove: (name) => cut ? never : inner.remove(name),
    describe: () => inner.describe(),
  };
  const a = start(clock, flaky, "a");
  const b = start(clock, leases.directory(), "b");
  await advanceChecked(clock, [a.ring, b.ring], 4_000);
  assert.equal(a.ring.gate.active().length, 4);
  cut = true;
  await advanceChecked(clock, [a.ring, b.ring], 700);
  assert.deepEqual(a.ring.gate.held(), [], "past the renew deadline every bucket is lost");
  await advanceChecked(clock, [a.ring, b.ring], 4_000);
  assert.equal(b.ring.gate.active().length, 8);
  assert.equal(await a.metrics.value("kubeop_shard_handoffs_total", { ring: "kubeop", kind: "lost" }), 4);
  b.stop.abort();
  a.stop.abort();
  await clock.advance(5_000);
  await b.done;
});

Deno.test("shard ring: a bucket still handing over is not campaigned for again when the target rises meanwhile", async () => {
  const clock = new VirtualClock();
  const leases = new MemoryLeaseDirectory();
  const a = start(clock, leases.directory(), "a", { drainTimeoutMs: 5_000 });
  await clock.advance(2_000);
  let uid = "";
  for (let n = 0; a.ring.gate.bucketOfUid(uid = `u-${n}`) !== 7; n++);
  const stuck = a.ring.gate.admit(uid)!; // a reconcile of bucket 7 that runs on
  let inflight = true;
  const releasedWhileInFlight: string[] = [];
  leases.onWrite((name, record) => {
    if (name === "kubeop-bucket-7" && inflight && record.spec.holderIdentity === "") releasedWhileInFlight.push(name);
  });
  const b = start(clock, leases.directory(), "b");
  await advanceChecked(clock, [a.ring, b.ring], 1_500); // a hands 4..7 over; 7 waits for its reconcile
  assert.equal(a.ring.gate.held().includes(7), true);
  b.stop.abort(); // a's target is 8 again while bucket 7 is still draining
  await advanceChecked(clock, [a.ring, b.ring], 3_000);
  await b.done;
  assert.deepEqual(releasedWhileInFlight, [], "bucket 7 was released with its reconcile still in flight");
  inflight = false;
  stuck.done();
  await advanceChecked(clock, [a.ring], 3_000);
  assert.deepEqual(a.ring.gate.active(), [0, 1, 2, 3, 4, 5, 6, 7]);
  a.stop.abort();
  await clock.advance(1_000);
  await a.done;
});

Deno.test("shard ring: the first live member deletes the member Lease of a crashed replica after ten lease durations", async () => {
  const clock = new VirtualClock();
  const leases = new MemoryLeaseDirectory();
  const dir = leases.directory();
  await dir.lock("kubeop-member-0-crashed").create({ holderIdentity: "0-crashed", leaseDurationSeconds: 1 });
  const a = start(clock, dir, "a");
  await clock.advance(5_000);
  assert.ok(leases.current("kubeop-member-0-crashed"), "still there after five lease durations");
  assert.deepEqual(a.ring.members, ["a"], "but not a live member");
  await clock.advance(6_000);
  assert.equal(leases.current("kubeop-member-0-crashed"), undefined);
  assert.ok(leases.current("kubeop-member-a"), "its own stays");
  a.stop.abort();
  await clock.advance(1_000);
  await a.done;
});

Deno.test("shard ring: stopping while the informers sync the held ranges warns of nothing", async () => {
  const clock = new VirtualClock();
  const leases = new MemoryLeaseDirectory();
  const warnings: string[] = [];
  const log = {
    warn: (message: string) => warnings.push(message),
    info: () => {},
    debug: () => {},
    error: (message: string) => warnings.push(message),
    getChild: () => log,
  };
  let syncing = false;
  const ring = new ShardRing({
    ...TIMINGS,
    directory: leases.directory(),
    ring: "kubeop",
    buckets: 8,
    identity: "a",
    clock,
    random: () => 0.5,
    logger: log as unknown as Logger,
    // The informers' re-list of the new slice, aborted by the ring's stop as the Manager's caches would be.
    onBucketsChanged: (_ranges, signal) => {
      syncing = true;
      return new Promise<void>((_, reject) => signal.addEventListener("abort", () => reject(signal.reason)));
    },
  });
  const stop = new AbortController();
  const done = ring.run(stop.signal);
  for (let i = 0; i < 100 && !syncing; i++) await clock.advance(50);
  assert.ok(syncing, "the ring should have asked the informers to sync its ranges");
  stop.abort();
  await clock.advance(1_000);
  await done;
  assert.deepEqual(warnings.filter((w) => /syncing the held ranges failed/.test(w)), []);
});
