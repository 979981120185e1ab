/**
 * The shard gate: admission only in active buckets, drain of in-flight tickets, and in-flight counts that survive a
 * lost-and-won-again bucket (its old term's writes may still be on the wire).
 */
import assert from "node:assert/strict";
import { flushMicrotasks, VirtualClock } from "../clock.ts";
import { ShardGate } from "./shard_gate.ts";
import { LeaderFence } from "../leader/write_fence.ts";

function setup() {
  const clock = new VirtualClock();
  const gate = new ShardGate({ buckets: 1, clock });
  const term = () => {
    const fence = new LeaderFence({ clock, renewDeadlineMs: 10_000, lease: "ns/kubeop-bucket-0", identity: "me" });
    fence.open(clock.nowMonotonic());
    return fence;
  };
  return { clock, gate, term };
}

Deno.test("shard gate: admits only while the bucket is active and its fence open", async () => {
  const { clock, gate, term } = setup();
  assert.equal(gate.admit("u"), undefined, "not held");
  const fence = term();
  gate.hold(0, fence);
  assert.equal(gate.admit("u"), undefined, "held, syncing");
  gate.activate(0);
  const t = gate.admit("u");
  assert.ok(t && t.fence === fence && t.bucket === 0 && t.uid === "u");
  t.done();
  await clock.advance(10_000); // the renew deadline passed: the fence closes, nothing is admitted
  assert.equal(gate.admit("u"), undefined);
});

Deno.test("shard gate: a drain times out (false) while work runs and resolves true once it ended", async () => {
  const { clock, gate, term } = setup();
  gate.hold(0, term());
  gate.activate(0);
  const t = gate.admit("u")!;
  const first = gate.drain(0, 1_000);
  await clock.advance(1_000);
  assert.equal(await first, false);
  let drained: boolean | undefined;
  gate.drain(0, 60_000).then((d) => drained = d);
  await flushMicrotasks();
  assert.equal(drained, undefined);
  t.done();
  t.done(); // idempotent
  await flushMicrotasks();
  assert.equal(drained, true);
  assert.equal(gate.inflight(0), 0);
});

Deno.test("shard gate: a bucket lost with work in flight and won again drains that work before it is handed over", async () => {
  const { gate, term } = setup();
  gate.hold(0, term());
  gate.activate(0);
  const old = gate.admit("u")!; // its write may be on the wire when the bucket is lost
  gate.drop(0); // lost
  gate.hold(0, term()); // won again (the Lease still named this replica)
  gate.activate(0);
  assert.equal(gate.inflight(0), 1, "the old term's ticket still counts");
  let drained: boolean | undefined;
  gate.drain(0, 60_000).then((d) => drained = d);
  await flushMicrotasks();
  assert.equal(drained, undefined, "the handover waits for the old term's reconcile");
  old.done();
  await flushMicrotasks();
  assert.equal(drained, true);
});
