import assert from "node:assert/strict";
import { KubeClient } from "../client/client.ts";
import { VirtualClock } from "../clock.ts";
import { isNotLeader, isRetriable, NotLeaderError } from "../client/errors.ts";
import { LeaderElector } from "./leader.ts";
import { type LeaseLock, MemoryLeaseStore } from "./lease_lock.ts";
import { CoreTypes, type KubeObject } from "../types.ts";
import { LeaderFence, type WriteFence, writeGate } from "./write_fence.ts";
import { httpAnswer, startRawHttpServer } from "../../testing/raw_http_server.ts";

const RENEW_MS = 10_000;
const RESPONSE_DELAY_MS = 500;

/** A lock whose updates answer RESPONSE_DELAY_MS (virtual) after they were sent, and hang once `stalled` is set. */
function slowLock(inner: LeaseLock, clock: VirtualClock): { lock: LeaseLock; stall(): void; updatesSent: number[] } {
  let stalled = false;
  const updatesSent: number[] = [];
  const hang = (signal?: AbortSignal) =>
    new Promise<never>((_, reject) => signal?.addEventListener("abort", () => reject(signal.reason), { once: true }));
  const lock: LeaseLock = {
    get: (signal) => stalled ? hang(signal) : inner.get(signal),
    create: (spec, signal) => stalled ? hang(signal) : inner.create(spec, signal),
    update: async (spec, rv, signal) => {
      if (stalled) return await hang(signal);
      updatesSent.push(clock.nowMonotonic());
      await clock.sleep(RESPONSE_DELAY_MS, signal);
      return await inner.update(spec, rv, signal);
    },
    describe: () => inner.describe(),
  };
  return { lock, stall: () => stalled = true, updatesSent };
}

/** A server on 127.0.0.1 that answers every request with a ConfigMap and counts what reached it. */
function countingServer(): { url: string; received: string[]; close(): Promise<void> } {
  const received: string[] = [];
  const server = Deno.serve({ hostname: "127.0.0.1", port: 0, onListen() {} }, (req) => {
    received.push(`${req.method} ${new URL(req.url).pathname}`);
    const cm: KubeObject = { metadata: { name: "a", namespace: "ns", resourceVersion: "1" } };
    return Response.json(cm);
  });
  return { url: `http://127.0.0.1:${server.addr.port}`, received, close: () => server.shutdown() };
}

async function advanceUntil(clock: VirtualClock, cond: () => boolean, limitMs = 60_000): Promise<void> {
  const start = clock.nowMonotonic();
  while (!cond()) {
    if (clock.nowMonotonic() - start > limitMs) throw new Error(`not reached within ${limitMs} virtual ms`);
    await clock.advance(50);
  }
}

Deno.test("a write passes until renewDeadline after the last renew's SEND time, then is refused before the server", async () => {
  const clock = new VirtualClock();
  const store = new MemoryLeaseStore();
  const { lock, stall, updatesSent } = slowLock(store.lock(), clock);
  const elector = new LeaderElector({
    lock,
    identity: "a",
    clock,
    leaseSeconds: 15,
    renewDeadlineSeconds: RENEW_MS / 1000,
    retryPeriodSeconds: 2,
    random: () => 0.5,
  });
  const stop = new AbortController();
  const done = elector.run(stop.signal);
  const server = countingServer();
  const client = new KubeClient({ config: { server: server.url } }).withWriteFence(elector.fence);
  try {
    await advanceUntil(clock, () => elector.isLeader() && updatesSent.length === 1);
    const t0 = updatesSent[0]; // the renew was sent at t0; its answer comes RESPONSE_DELAY_MS later
    await clock.advance(RESPONSE_DELAY_MS);
    stall(); // no renew succeeds after t0
    const cm: KubeObject = { metadata: { name: "a", namespace: "ns" } };

    await clock.advance(t0 + RENEW_MS - 1 - clock.nowMonotonic());
    await client.create(CoreTypes.ConfigMap, cm);
    assert.deepEqual(server.received, ["POST /api/v1/namespaces/ns/configmaps"]);

    await clock.advance(1); // t0 + renewDeadline: not t0 + response delay + renewDeadline
    const refused = await client.create(CoreTypes.ConfigMap, cm).then(() => undefined, (err) => err);
    assert.ok(refused instanceof NotLeaderError, `expected NotLeaderError, got ${refused}`);
    assert.match(refused.message, /create configmaps ns\/a: refused, a is not the leader of lease default\/lease/);
    assert.match(refused.message, /last successful renew was sent 10000 ms ago \(renew deadline 10000 ms\)/);
    assert.equal(isNotLeader(refused), true);
    assert.equal(isRetriable(refused), false);
    assert.equal(server.received.length, 1, "the refused write never reached the server");

    // Reads are not fenced.
    await client.get(CoreTypes.ConfigMap, "a", { namespace: "ns" });
    assert.equal(server.received.length, 2);
    assert.equal(await done, "lost");
  } finally {
    stop.abort();
    client.close();
    await server.close();
  }
});

Deno.test("a wall-clock step neither extends nor shortens leadership or the fence", async () => {
  for (const stepMs of [-3_600_000, 3_600_000]) {
    const clock = new VirtualClock();
    const store = new MemoryLeaseStore();
    const a = slowLock(store.lock(), clock);
    const opts = { clock, leaseSeconds: 15, renewDeadlineSeconds: 10, retryPeriodSeconds: 2, random: () => 0.5 };
    const leader = new LeaderElector({ ...opts, lock: a.lock, identity: "a" });
    const standby = new LeaderElector({ ...opts, lock: store.lock(), identity: "b" });
    const stop = new AbortController();
    const runs = [leader.run(stop.signal)];
    await advanceUntil(clock, () => leader.isLeader());
    runs.push(standby.run(stop.signal));
    await clock.advance(5_000);

    clock.stepWallClock(stepMs);
    await clock.advance(30_000);
    assert.equal(leader.isLeader(), true, `step ${stepMs}: the leader keeps leading while it renews`);
    assert.equal(standby.isLeader(), false, `step ${stepMs}: the standby does not take a renewed Lease`);

    await advanceUntil(clock, () => a.updatesSent.length > 0 && clock.nowMonotonic() > a.updatesSent.at(-1)!);
    await clock.advance(RESPONSE_DELAY_MS);
    a.stall();
    const t0 = a.updatesSent.at(-1)!;
    clock.stepWallClock(stepMs);
    await clock.advance(t0 + RENEW_MS - 1 - clock.nowMonotonic());
    assert.doesNotThrow(() => leader.fence.check({ verb: "create", resource: "pods" }), `step ${stepMs}`);
    await clock.advance(1);
    assert.throws(() => leader.fence.check({ verb: "create", resource: "pods" }), NotLeaderError, `step ${stepMs}`);
    stop.abort();
    await Promise.all(runs);
  }
});

Deno.test("the fence closes itself when checked after the deadline, even before any timer fires", async () => {
  const clock = new VirtualClock();
  const fence = new LeaderFence({ clock, renewDeadlineMs: 1_000, lease: "ns/l", identity: "a" });
  assert.throws(() => fence.check({ verb: "create" }), /a is not the leader of lease ns\/l: it never led/);
  fence.open(clock.nowMonotonic());
  const term = fence.signal;
  assert.equal(term.aborted, false);
  await clock.advance(600);
  fence.renewed(clock.nowMonotonic() - 100); // a renew sent at 500
  await clock.advance(899);
  assert.equal(fence.isOpen(), true);
  await clock.advance(1);
  assert.equal(term.aborted, false, "nothing happens until someone checks");
  assert.throws(() => fence.check({ verb: "patch", resource: "ats.example.com", namespace: "ns", name: "x" }), {
    name: "NotLeaderError",
    message: /patch ats\.example\.com ns\/x: refused.*sent 1000 ms ago/,
  });
  assert.equal(term.aborted, true, "the failed check aborts in-flight calls bound to the term");
  fence.renewed(clock.nowMonotonic()); // a renew answered late does not reopen an expired term
  assert.equal(fence.isOpen(), false);
  fence.open(clock.nowMonotonic()); // a new term
  assert.equal(fence.isOpen(), true);
  assert.notEqual(fence.signal, term);
});

Deno.test("writeGate: reads pass no fence; a fence given twice (client's and call's) is checked once per point", async () => {
  const server = startRawHttpServer(() => ({ write: [httpAnswer(201, "{}", ["content-type: application/json"])] }));
  const checks: string[] = [];
  const fence: WriteFence = { signal: new AbortController().signal, check: (call) => void checks.push(call.verb) };
  const client = new KubeClient({ config: { server: server.url } }).withWriteFence(fence);
  try {
    await client.create(CoreTypes.ConfigMap, { metadata: { name: "c", namespace: "d" } }, { fence });
    assert.deepEqual(checks, ["create", "create"], "per attempt and in the transport's beforeWrite, once each");
    await client.get(CoreTypes.ConfigMap, "c", { namespace: "d", fence });
    assert.equal(checks.length, 2, "reads ignore fences");
    assert.equal(writeGate("GET", { verb: "get" }, [fence]), undefined);
    assert.equal(writeGate("POST", { verb: "create" }, [undefined]), undefined);
  } finally {
    client.close();
    await server.close();
  }
});
