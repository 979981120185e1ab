import assert from "node:assert/strict";
import { flushMicrotasks, VirtualClock } from "../clock.ts";
import { Controller, done, requeueAfter } from "./controller.ts";
import { NotLeaderError, TerminalError } from "../client/errors.ts";
import type { KubeObject } from "../types.ts";
import { LeaderFence } from "../leader/write_fence.ts";
import {
  FakeRecorder,
  FakeRegistry,
  harness,
  machine,
  MachineType,
  PodType,
  results,
  stubClient,
  SwitchType,
  until,
} from "../../testing/unit/controller_harness.ts";
Deno.test("For objects are reconciled by key once the caches have synced, with a fresh reconcileID", async () => {
  const h = harness(() => done());
  h.registry.of(MachineType).set(machine("a"));
  await flushMicrotasks();
  assert.equal(h.calls.length, 0, "not before sync");
  h.registry.syncAll();
  await until(() => h.calls.length === 1);
  const ctx = h.calls[0];
  assert.equal(ctx.key, "ns/a");
  assert.equal(ctx.namespace, "ns");
  assert.equal(ctx.name, "a");
  assert.equal(ctx.object?.metadata.uid, "uid-a");
  assert.match(ctx.reconcileID, /^[0-9a-f-]{36}$/);
  h.registry.of(MachineType).set(machine("a", "2"));
  await until(() => h.calls.length === 2);
  assert.notEqual(h.calls[1].reconcileID, ctx.reconcileID);
  assert.equal(await results(h.metrics, "success"), 2);
  await h.stop();
});

Deno.test("owns() maps a controller ownerRef of the For kind to the owner's key and ignores others", async () => {
  const h = harness(() => done(), (c) => c.owns(SwitchType));
  h.registry.of(MachineType);
  h.registry.syncAll();
  const sw = (name: string, refs: KubeObject["metadata"]["ownerReferences"]) => ({
    metadata: { name, namespace: "ns", uid: name, resourceVersion: "1", ownerReferences: refs },
  });
  const ref = { apiVersion: "useless.container.training/v1alpha1", kind: "Machine", name: "m1", uid: "u" };
  const switches = h.registry.of(SwitchType);
  switches.set(sw("s0", [{ ...ref, controller: false }]));
  switches.set(sw("s1", [{ ...ref, apiVersion: "other.group/v1", controller: true }]));
  switches.set(sw("s2", [{ ...ref, controller: true }]));
  await until(() => h.calls.length === 1);
  await flushMicrotasks();
  assert.deepEqual(h.calls.map((c) => c.key), ["ns/m1"]);
  await h.stop();
});

Deno.test("watches() reconciles the keys for both the old and the new object on a change", async () => {
  const h = harness(() => done(), (c) => c.watches(PodType, (pod) => [`ns/${pod.metadata.labels?.machine}`]));
  h.registry.of(MachineType);
  h.registry.syncAll();
  const pods = h.registry.of(PodType);
  pods.set({ metadata: { name: "p", namespace: "ns", labels: { machine: "old" } } });
  await until(() => h.calls.length === 1);
  pods.set({ metadata: { name: "p", namespace: "ns", labels: { machine: "new" } } });
  await until(() => h.calls.length === 3);
  assert.deepEqual(h.calls.map((c) => c.key).sort(), ["ns/new", "ns/old", "ns/old"]);
  await h.stop();
});

Deno.test("a thrown error retries with growing backoff, is counted, logged and raised as a Warning Event", async () => {
  let failures = 2;
  const h = harness(() => {
    if (failures-- > 0) throw new Error("apiserver said no");
    return done();
  });
  h.registry.of(MachineType).set(machine("a"));
  h.registry.syncAll();
  await until(() => h.calls.length === 3, h.clock, "three attempts");
  assert.equal(await results(h.metrics, "error"), 2);
  assert.equal(await results(h.metrics, "success"), 1);
  assert.equal(await h.metrics.value("controller_runtime_reconcile_errors_total", { controller: "machine" }), 2);
  assert.equal(h.recorder.events[0].input.type, "Warning");
  assert.equal(h.recorder.events[0].input.note, "apiserver said no");
  assert.equal(h.clock.now(), 5 + 10, "5 ms then 10 ms");
  await h.stop();
});

Deno.test("a TerminalError is not retried and counts as terminal", async () => {
  const h = harness(() => {
    throw new TerminalError("bad spec");
  });
  h.registry.of(MachineType).set(machine("a"));
  h.registry.syncAll();
  await until(() => h.calls.length === 1);
  for (let i = 0; i < 5; i++) await h.clock.advance(1_000_000);
  assert.equal(h.calls.length, 1);
  assert.equal(
    await h.metrics.value("controller_runtime_terminal_reconcile_errors_total", { controller: "machine" }),
    1,
  );
  await h.stop();
});

Deno.test("a NotLeaderError is not retried; no reconcile starts once the write fence closed", async () => {
  let fence: LeaderFence | undefined;
  let n = 0;
  const h = harness(
    () => {
      // The second reconcile's write is refused by the fenced client (its deadline passed mid-reconcile).
      if (++n === 2) {
        throw new NotLeaderError({ call: { verb: "patch" }, lease: "ns/l", identity: "a", renewDeadlineMs: 10_000 });
      }
      return done();
    },
    undefined,
    stubClient(),
    {
      fence: (clock) => {
        fence = new LeaderFence({ clock, renewDeadlineMs: 10_000, lease: "ns/l", identity: "a" });
        fence.open(clock.nowMonotonic());
        return fence;
      },
    },
  );
  const machines = h.registry.of(MachineType);
  machines.set(machine("a"));
  h.registry.syncAll();
  await until(() => h.calls.length === 1);
  assert.equal(await results(h.metrics, "success"), 1);

  machines.set(machine("a", "2"));
  await until(() => h.calls.length === 2);
  await flushMicrotasks();
  assert.equal(await results(h.metrics, "error"), 1);
  for (let i = 0; i < 3; i++) await h.clock.advance(3_000);
  assert.equal(h.calls.length, 2, "a NotLeaderError is not retried with backoff");
  assert.equal(h.recorder.events.length, 0, "no Warning Event (it would be refused too)");

  await h.clock.advance(1_000); // 10 s after the fence opened, with no renew: the renew deadline has passed
  machines.set(machine("a", "3"));
  machines.set(machine("b"));
  for (let i = 0; i < 5; i++) await h.clock.advance(1_000);
  assert.equal(h.calls.length, 2, "no reconcile starts once the fence is closed");
  assert.equal(fence!.signal.aborted, true, "in-flight calls bound to the fence are aborted");
  await h.stop();
});

Deno.test("unexpected exceptions (TypeError, non-Error throws) are caught, counted as panics and retried", async () => {
  let n = 0;
  const h = harness((ctx) => {
    n++;
    if (n === 1) return (ctx as unknown as { nope: { x: number } }).nope.x as never;
    if (n === 2) throw "a string";
    return done();
  });
  h.registry.of(MachineType).set(machine("a"));
  h.registry.syncAll();
  await until(() => h.calls.length === 3, h.clock, "recovery");
  assert.equal(await h.metrics.value("controller_runtime_reconcile_panics_total", { controller: "machine" }), 2);
  await h.stop();
});

Deno.test("requeueAfter reconciles again after that long without a change", async () => {
  const h = harness(() => requeueAfter(30_000));
  h.registry.of(MachineType).set(machine("a"));
  h.registry.syncAll();
  await until(() => h.calls.length === 1);
  const first = h.clock.now();
  await until(() => h.calls.length === 2, h.clock, "requeue");
  assert.equal(h.clock.now() - first, 30_000);
  assert.equal(await results(h.metrics, "requeue_after"), 2);
  await h.stop();
});

Deno.test("shutdown aborts the reconcile signal, stops intake and waits for in-flight reconciles", async () => {
  let release!: () => void;
  let sawAbort = false;
  const h = harness((ctx) =>
    new Promise((resolve) => {
      release = () => resolve(done());
      ctx.signal.addEventListener("abort", () => sawAbort = true);
    })
  );
  h.registry.of(MachineType).set(machine("a"));
  h.registry.syncAll();
  await until(() => h.calls.length === 1);
  let finished = false;
  h.ac.abort();
  const stopped = h.running.then(() => finished = true);
  await flushMicrotasks();
  assert.ok(sawAbort);
  assert.equal(finished, false, "in-flight reconcile still running");
  h.registry.of(MachineType).set(machine("b"));
  release();
  await stopped;
  assert.equal(h.calls.length, 1, "no new work after shutdown");
});

Deno.test("live changes are reconciled ahead of the initial list", async () => {
  let release!: () => void;
  const h = harness(
    (ctx) => ctx.key === "ns/a0" ? new Promise((r) => release = () => r(done())) : Promise.resolve(done()),
  );
  const machines = h.registry.of(MachineType);
  for (let i = 0; i < 4; i++) machines.set(machine(`a${i}`));
  h.registry.syncAll();
  await until(() => h.calls.length === 1);
  machines.set(machine("live"));
  release();
  await until(() => h.calls.length === 5);
  assert.deepEqual(h.calls.map((c) => c.key), ["ns/a0", "ns/live", "ns/a1", "ns/a2", "ns/a3"]);
  await h.stop();
});

Deno.test("maxConcurrentReconciles runs keys in parallel but never one key twice at once", async () => {
  const gates = new Map<string, () => void>();
  let inFlight = 0;
  let maxInFlight = 0;
  const h = harness(
    (ctx) =>
      new Promise((resolve) => {
        inFlight++;
        maxInFlight = Math.max(maxInFlight, inFlight);
        gates.set(ctx.key, () => {
          inFlight--;
          resolve(done());
        });
      }),
    undefined,
    stubClient(),
    { maxConcurrentReconciles: 2 },
  );
  const machines = h.registry.of(MachineType);
  for (const n of ["a", "b", "c"]) machines.set(machine(n));
  h.registry.syncAll();
  await until(() => h.calls.length === 2);
  assert.equal(await h.metrics.value("controller_runtime_active_workers", { controller: "machine" }), 2);
  assert.equal(await h.metrics.value("controller_runtime_max_concurrent_reconciles", { controller: "machine" }), 2);
  machines.set(machine("a", "2"));
  await flushMicrotasks();
  assert.deepEqual(h.calls.map((c) => c.key), ["ns/a", "ns/b"], "a is in flight: its change waits");
  gates.get("ns/b")!();
  await until(() => h.calls.length === 3);
  assert.equal(h.calls[2].key, "ns/c");
  gates.get("ns/a")!();
  await until(() => h.calls.length === 4);
  assert.equal(h.calls[3].key, "ns/a");
  assert.equal(maxInFlight, 2);
  gates.get("ns/c")!();
  gates.get("ns/a")!();
  await h.stop();
});

Deno.test("requeueAfter(0) requeues through the backoff and is labelled requeue", async () => {
  let n = 0;
  const h = harness(() => ++n < 3 ? requeueAfter(0) : done());
  h.registry.of(MachineType).set(machine("a"));
  h.registry.syncAll();
  await until(() => h.calls.length === 3, h.clock, "three passes");
  assert.equal(h.clock.now(), 5 + 10, "backoff, not a spin");
  assert.equal(await results(h.metrics, "requeue"), 2);
  assert.equal(await results(h.metrics, "success"), 1);
  await h.stop();
});

Deno.test("resyncPeriodMs re-queues every cached For object at low priority", async () => {
  const clock = new VirtualClock(0);
  const registry = new FakeRegistry();
  const calls: string[] = [];
  const ctl = new Controller({
    name: "machine",
    for: MachineType,
    resyncPeriodMs: 60_000,
    reconcile: (ctx) => {
      calls.push(ctx.key);
      return Promise.resolve(done());
    },
    deps: { client: stubClient(), informers: registry, recorder: new FakeRecorder(), clock },
  });
  const machines = registry.of(MachineType);
  machines.set(machine("a"));
  machines.set(machine("b"));
  const ac = new AbortController();
  const running = ctl.start(ac.signal);
  registry.syncAll();
  await until(() => calls.length === 2);
  await clock.advance(59_999);
  assert.equal(calls.length, 2);
  await clock.advance(1);
  await until(() => calls.length === 4);
  await clock.advance(60_000);
  await until(() => calls.length === 6);
  ac.abort();
  await running;
  assert.equal(clock.pendingTimers, 0, "resync timer cancelled on shutdown");
});

Deno.test("watchedResources lists For, Owns and Watches informers for warm standby", () => {
  const ctl = new Controller({ name: "m", for: MachineType, reconcile: () => Promise.resolve(done()) })
    .owns(SwitchType)
    .watches(PodType, () => [], { labelSelector: "app=x" });
  assert.deepEqual(ctl.watchedResources(), [
    { rt: MachineType },
    { rt: SwitchType },
    { rt: PodType, opts: { labelSelector: "app=x" } },
  ]);
});

Deno.test("ctx.object carries apiVersion and kind even when the cached list item has none", async () => {
  const h = harness(() => done());
  h.registry.of(MachineType).set({ metadata: { name: "bare", namespace: "ns", uid: "u", resourceVersion: "1" } });
  h.registry.syncAll();
  await until(() => h.calls.length === 1);
  assert.equal(h.calls[0].object?.apiVersion, "useless.container.training/v1alpha1");
  assert.equal(h.calls[0].object?.kind, "Machine");
  await h.stop();
});
