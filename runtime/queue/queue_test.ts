import assert from "node:assert/strict";
import fc from "fast-check";
import { VirtualClock } from "../clock.ts";
import { type Priority, WorkQueue } from "./queue.ts";
import { ExponentialBackoffRateLimiter, maxOf, TokenBucketRateLimiter } from "./rate_limiter.ts";
import { DelayHeap } from "./delay_heap.ts";
import { Metrics } from "../observe/metrics.ts";

function drainReady(q: WorkQueue): string[] {
  const out: string[] = [];
  for (let k = q.tryGet(); k !== undefined; k = q.tryGet()) out.push(k);
  return out;
}

Deno.test("a key added many times while queued is handed out once", () => {
  const q = new WorkQueue({ clock: new VirtualClock(0) });
  q.add("ns/a");
  q.add("ns/b");
  q.add("ns/a");
  q.add("ns/a");
  assert.equal(q.length, 2);
  assert.deepEqual(drainReady(q), ["ns/a", "ns/b"]);
});

Deno.test("a key being processed is never handed out twice; re-adds wait for done", async () => {
  const clock = new VirtualClock(0);
  const q = new WorkQueue({ clock });
  q.add("ns/a");
  assert.equal(await q.get(), "ns/a");
  q.add("ns/a");
  q.add("ns/a");
  assert.equal(q.tryGet(), undefined, "in flight: not handed out again");
  const waiting = q.get();
  q.done("ns/a");
  assert.equal(await waiting, "ns/a", "queued again once after done");
  q.done("ns/a");
  assert.equal(q.tryGet(), undefined, "the two re-adds collapsed into one");
});

Deno.test("rate-limited re-adds back off 5 ms · 2^n up to the cap, and forget resets", async () => {
  const clock = new VirtualClock(0);
  const q = new WorkQueue({ clock, maxDelayMs: 100 });
  const delays: number[] = [];
  for (let i = 0; i < 7; i++) {
    const before = clock.now();
    q.addRateLimited("k");
    let got: string | undefined;
    q.get().then((k) => got = k);
    while (got === undefined) assert.ok(await clock.advanceToNext());
    assert.equal(got, "k");
    delays.push(clock.now() - before);
    q.done("k");
  }
  assert.deepEqual(delays, [5, 10, 20, 40, 80, 100, 100]);
  assert.equal(q.numRequeues("k"), 7);
  q.forget("k");
  assert.equal(q.numRequeues("k"), 0);
  const rl = new ExponentialBackoffRateLimiter();
  for (let i = 0; i < 2000; i++) rl.when("x");
  assert.equal(rl.when("x"), 1_000_000, "default cap 1000 s, no overflow");
});

Deno.test("addAfter keeps the earliest time", async () => {
  const clock = new VirtualClock(0);
  const q = new WorkQueue({ clock });
  q.addAfter("k", 500);
  q.addAfter("k", 100);
  q.addAfter("k", 900);
  await clock.advance(99);
  assert.equal(q.tryGet(), undefined);
  await clock.advance(1);
  assert.equal(q.tryGet(), "k");
  q.done("k");
  await clock.advance(1000);
  assert.equal(q.tryGet(), undefined, "the later addAfters were absorbed");
  assert.equal(clock.pendingTimers, 0);
});

Deno.test("shutdown stops intake and drain waits for in-flight keys", async () => {
  const clock = new VirtualClock(0);
  const q = new WorkQueue({ clock });
  q.add("a");
  q.add("b");
  q.addAfter("c", 50);
  const a = q.tryGet()!;
  const pendingGet = new WorkQueue({ clock }).get(AbortSignal.abort());
  assert.equal(await pendingGet, undefined);
  let drained = false;
  const drain = q.shutdown({ drain: true }).then(() => drained = true);
  q.add("d");
  assert.equal(await q.get(), undefined, "no more work after shutdown");
  assert.equal(clock.pendingTimers, 0, "delay timer cancelled");
  await clock.advance(0);
  assert.equal(drained, false, "still waiting for the in-flight key");
  q.done(a);
  await drain;
  assert.equal(drained, true);
});

Deno.test("a waiting get resolves undefined on shutdown or abort", async () => {
  const q = new WorkQueue({ clock: new VirtualClock(0) });
  const ac = new AbortController();
  const aborted = q.get(ac.signal);
  const waiting = q.get();
  ac.abort();
  assert.equal(await aborted, undefined);
  await q.shutdown();
  assert.equal(await waiting, undefined);
});

Deno.test("live changes go ahead of initial-list keys, which age forward and take turns with them", async () => {
  const clock = new VirtualClock(0);
  const q = new WorkQueue({ clock, lowPriorityAgingMs: 1000 });
  for (let i = 0; i < 3; i++) q.add(`list-${i}`, "low");
  q.add("live-0", "high");
  assert.equal(q.tryGet(), "live-0");
  await clock.advance(1500);
  q.add("live-1", "high");
  assert.equal(q.tryGet(), "list-0", "waited longer than the aging window: goes first");
  await clock.advance(2000);
  q.add("live-2", "high");
  assert.deepEqual(drainReady(q), ["live-1", "list-1", "live-2", "list-2"], "aged: one low key per live change");
  q.add("x", "low");
  q.add("x", "high");
  q.add("y", "high");
  assert.deepEqual(drainReady(q).slice(-2), ["x", "y"], "a later high add promotes a low key");
});

Deno.test("a live change behind a long aged backlog waits for one low key, not for the backlog", async () => {
  const clock = new VirtualClock(0);
  const q = new WorkQueue({ clock, lowPriorityAgingMs: 1000 });
  for (let i = 0; i < 10_000; i++) q.add(`resync-${i}`, "low");
  await clock.advance(5000); // every low key has aged past the window
  q.add("live-a", "high");
  q.add("live-b", "high");
  const order = [q.tryGet(), q.tryGet(), q.tryGet(), q.tryGet(), q.tryGet()];
  assert.deepEqual(order, ["resync-0", "live-a", "resync-1", "live-b", "resync-2"]);
  assert.equal(q.length, 10_000 - 3);
});

Deno.test("rate limiters compose with maxOf: the bucket limits overall rate", () => {
  const clock = new VirtualClock(0);
  const rl = maxOf(
    new ExponentialBackoffRateLimiter({ baseDelayMs: 1 }),
    new TokenBucketRateLimiter({ perSecond: 10, burst: 2, clock }),
  );
  assert.deepEqual(["a", "b", "c", "d"].map((k) => rl.when(k)), [1, 1, 100, 200]);
  assert.equal(rl.numRequeues("a"), 1);
});

Deno.test("delay heap pops in due order and keeps the earliest per key", () => {
  const heap = new DelayHeap<number>();
  const dues = [50, 10, 40, 30, 20, 60, 5];
  dues.forEach((d, i) => heap.push(`k${i}`, d, i));
  heap.push("k0", 1, 0);
  assert.equal(heap.delete("k5"), true);
  const out: number[] = [];
  for (let e = heap.popDue(100); e; e = heap.popDue(100)) out.push(e.dueMs);
  assert.deepEqual(out, [1, 5, 10, 20, 30, 40]);
});

Deno.test("queue metrics hooks see adds, depth, retries and in-flight work", async () => {
  const clock = new VirtualClock(0);
  const metrics = new Metrics();
  const q = new WorkQueue({ clock, metrics: metrics.queueHooks("m") });
  q.add("a");
  q.add("a");
  q.add("b");
  q.addRateLimited("c");
  const labels = { name: "m", controller: "m" };
  assert.equal(await metrics.value("workqueue_adds_total", labels), 3);
  assert.equal(await metrics.value("workqueue_depth", labels), 2);
  assert.equal(await metrics.value("workqueue_retries_total", labels), 1);
  q.tryGet();
  await clock.advance(2000);
  assert.equal(q.longestRunningSeconds(), 2);
  assert.match(await metrics.render(), /workqueue_longest_running_processor_seconds\{name="m",controller="m"\} 2/);
  await q.shutdown();
});

/** The reference model: plain arrays, linear scans. */
class ModelQueue {
  queued: { key: string; priority: Priority; since: number; seq: number }[] = [];
  processing = new Set<string>();
  dirty = new Map<string, Priority>();
  seq = 0;
  constructor(readonly agingMs: number) {}

  add(key: string, p: Priority, now: number) {
    if (this.processing.has(key)) {
      if (this.dirty.get(key) !== "high") this.dirty.set(key, p);
      return;
    }
    const e = this.queued.find((q) => q.key === key);
    if (e) {
      if (e.priority === "low" && p === "high") Object.assign(e, { priority: "high", since: now, seq: ++this.seq });
      return;
    }
    this.queued.push({ key, priority: p, since: now, seq: ++this.seq });
  }

  lowTookTurn = false;

  pop(): string | undefined {
    if (this.queued.length === 0) return undefined;
    const oldest = (p: Priority) => this.queued.filter((q) => q.priority === p).sort((a, b) => a.seq - b.seq)[0];
    const high = oldest("high");
    const low = oldest("low");
    let best = high ?? low;
    if (high && low) {
      const aged = low.since + this.agingMs < high.since;
      best = aged && !this.lowTookTurn ? low : high;
      this.lowTookTurn = best === low;
    }
    this.queued.splice(this.queued.indexOf(best), 1);
    this.processing.add(best.key);
    return best.key;
  }

  done(key: string, now: number) {
    if (!this.processing.delete(key)) return;
    const p = this.dirty.get(key);
    if (p) {
      this.dirty.delete(key);
      this.add(key, p, now);
    }
  }
}

Deno.test("property: the queue behaves like the reference model (fixed seed)", async () => {
  const key = fc.constantFrom("a", "b", "c", "d", "e");
  const op = fc.oneof(
    fc.record({ op: fc.constant("add" as const), key, priority: fc.constantFrom<Priority>("high", "low") }),
    fc.record({ op: fc.constant("get" as const) }),
    fc.record({ op: fc.constant("done" as const), index: fc.nat(4) }),
    fc.record({ op: fc.constant("advance" as const), ms: fc.integer({ min: 1, max: 700 }) }),
  );
  await fc.assert(
    fc.asyncProperty(fc.array(op, { maxLength: 80 }), async (ops) => {
      const clock = new VirtualClock(0);
      const q = new WorkQueue({ clock, lowPriorityAgingMs: 1000 });
      const model = new ModelQueue(1000);
      const inFlight: string[] = [];
      for (const o of ops) {
        if (o.op === "add") {
          q.add(o.key, o.priority);
          model.add(o.key, o.priority, clock.now());
        } else if (o.op === "get") {
          const got = q.tryGet();
          assert.equal(got, model.pop());
          if (got !== undefined) {
            assert.ok(!inFlight.includes(got), "single-flight");
            inFlight.push(got);
          }
        } else if (o.op === "done") {
          if (inFlight.length === 0) continue;
          const [k] = inFlight.splice(o.index % inFlight.length, 1);
          q.done(k);
          model.done(k, clock.now());
        } else await clock.advance(o.ms);
        assert.equal(q.length, model.queued.length);
        assert.equal(q.processingCount, model.processing.size);
      }
    }),
    { seed: 20261123, numRuns: 300 },
  );
});

Deno.test("property: with delays and backoff no add is lost, none is invented, one key is never in flight twice", async () => {
  const key = fc.constantFrom("a", "b", "c", "d");
  const op = fc.oneof(
    fc.record({ op: fc.constant("add" as const), key, low: fc.boolean() }),
    fc.record({ op: fc.constant("addAfter" as const), key, ms: fc.integer({ min: 0, max: 3000 }) }),
    fc.record({ op: fc.constant("addRateLimited" as const), key }),
    fc.record({ op: fc.constant("forget" as const), key }),
    fc.record({ op: fc.constant("get" as const) }),
    fc.record({ op: fc.constant("done" as const), index: fc.nat(3) }),
    fc.record({ op: fc.constant("advance" as const), ms: fc.integer({ min: 1, max: 2000 }) }),
  );
  await fc.assert(
    fc.asyncProperty(fc.array(op, { maxLength: 60 }), async (ops) => {
      const clock = new VirtualClock(0);
      const q = new WorkQueue({ clock, maxDelayMs: 5_000 });
      const inFlight = new Set<string>();
      const adds = new Map<string, number>();
      const handOuts = new Map<string, number>();
      const lastAdd = new Map<string, number>();
      const lastHandOut = new Map<string, number>();
      let step = 0;
      const added = (k: string) => {
        adds.set(k, (adds.get(k) ?? 0) + 1);
        lastAdd.set(k, ++step);
      };
      const take = () => {
        const k = q.tryGet();
        if (k === undefined) return false;
        assert.ok(!inFlight.has(k), `${k} handed out while in flight`);
        inFlight.add(k);
        handOuts.set(k, (handOuts.get(k) ?? 0) + 1);
        lastHandOut.set(k, ++step);
        return true;
      };
      for (const o of ops) {
        if (o.op === "add") (q.add(o.key, o.low ? "low" : "high"), added(o.key));
        else if (o.op === "addAfter") (q.addAfter(o.key, o.ms), added(o.key));
        else if (o.op === "addRateLimited") (q.addRateLimited(o.key), added(o.key));
        else if (o.op === "forget") q.forget(o.key);
        else if (o.op === "get") take();
        else if (o.op === "done") {
          const list = [...inFlight];
          if (list.length === 0) continue;
          const k = list[o.index % list.length];
          inFlight.delete(k);
          q.done(k);
        } else await clock.advance(o.ms);
      }
      // Quiesce: finish everything, fire every timer, hand out what is left.
      for (let guard = 0; guard < 1000; guard++) {
        for (const k of inFlight) (inFlight.delete(k), q.done(k));
        if (take()) continue;
        if (!(await clock.advanceToNext())) break;
      }
      for (const k of inFlight) q.done(k);
      for (const [k, n] of adds) {
        assert.ok((handOuts.get(k) ?? 0) <= n, `${k}: more hand-outs than adds`);
        assert.ok((lastHandOut.get(k) ?? -1) > lastAdd.get(k)!, `${k}: last add never handed out`);
      }
      assert.equal(clock.pendingTimers, 0);
    }),
    { seed: 424242, numRuns: 300 },
  );
});
