import assert from "node:assert/strict";
import { RealClock, VirtualClock } from "../runtime/clock.ts";
import { Controller, done } from "../runtime/controller/controller.ts";
import { CacheSyncTimeoutError } from "../runtime/cache/informers.ts";
import { type LeaseLock, MemoryLeaseStore } from "../runtime/leader/lease_lock.ts";
import { LeadershipLostError, Manager } from "../runtime/manager/manager.ts";
import { CoreTypes } from "../runtime/types.ts";
import { eventually } from "../testing/eventually.ts";
import {
  advanceUntil,
  electionOptions,
  FakeController,
  FakeInformers,
  managerOptions,
} from "./support/manager_fakes.ts";

Deno.test("/readyz fails until the caches sync; controllers start only after sync", async () => {
  const clock = new RealClock();
  const informers = new FakeInformers(clock);
  const ctl = new FakeController("pods");
  const mgr = new Manager(managerOptions(clock, informers, { healthProbeBindAddress: "127.0.0.1:0" })).add(ctl);
  const stop = new AbortController();
  const running = mgr.start(stop.signal);
  await eventually("the health probe server", () => Promise.resolve(mgr.endpoints.healthProbe !== undefined));
  const url = mgr.endpoints.healthProbe!;

  const notReady = await fetch(`${url}/readyz`);
  assert.equal(notReady.status, 500);
  assert.match(await notReady.text(), /\[-\]informer-sync failed: not synced: pods/);
  const alive = await fetch(`${url}/healthz`);
  assert.equal(alive.status, 200);
  await alive.body?.cancel();
  assert.equal(ctl.starts, 0, "controllers must wait for the caches");
  assert.deepEqual(informers.requested, ["pods"], "the controller's informers are requested before it starts");

  informers.markSynced();
  await eventually("readiness", async () => {
    const res = await fetch(`${url}/readyz`);
    await res.body?.cancel();
    return res.status === 200;
  });
  await eventually("the controller to start", () => Promise.resolve(ctl.starts === 1));

  informers.failures = 5;
  const unhealthy = await fetch(`${url}/readyz`);
  assert.equal(unhealthy.status, 500);
  assert.match(await unhealthy.text(), /\[-\]watches failed: pods: 5 failures/);

  stop.abort();
  ctl.finishReconcile();
  await running;
  assert.equal(ctl.running, false);
});

Deno.test("exitOnCacheSyncTimeout: a cache that never syncs fails start with an error naming the resource", async () => {
  const clock = new VirtualClock();
  const ctl = new FakeController("pods");
  const opts = { cacheSyncTimeoutMs: 30_000, exitOnCacheSyncTimeout: true };
  const mgr = new Manager(managerOptions(clock, new FakeInformers(clock), opts)).add(ctl);
  const running = mgr.start(new AbortController().signal);
  const rejected = assert.rejects(running, (err) => err instanceof CacheSyncTimeoutError && /pods/.test(err.message));
  await clock.advance(30_000);
  await rejected;
  assert.equal(ctl.starts, 0);
});

Deno.test("by default a cache that syncs late only delays the start: the manager waits on, unready, then runs", async () => {
  // A replica started while the API server is down, or before the CRD it watches exists, must not exit into a restart
  // loop (issue 25): kube-controller-manager waits for its caches without a deadline, and so does kubeop by default.
  const clock = new VirtualClock();
  const informers = new FakeInformers(clock);
  const ctl = new FakeController("pods");
  const mgr = new Manager(managerOptions(clock, informers, { cacheSyncTimeoutMs: 30_000 })).add(ctl);
  const stop = new AbortController();
  let settled = false;
  const running = mgr.start(stop.signal).finally(() => settled = true);
  await clock.advance(95_000); // three timeouts, each logged
  assert.equal(settled, false, "the manager gave up on its caches");
  assert.equal(ctl.starts, 0);
  assert.equal(mgr.readiness().ok, false);
  informers.markSynced();
  await advanceUntil(clock, () => ctl.starts === 1, 5_000);
  stop.abort();
  ctl.finishReconcile();
  await running;
});

Deno.test("only the leader runs controllers; shutdown drains in-flight reconciles, then releases the lease", async () => {
  const clock = new VirtualClock();
  const store = new MemoryLeaseStore("default/kubeop");
  const replicas = ["a", "b"].map((id) => {
    const informers = new FakeInformers(clock);
    informers.markSynced();
    const ctl = new FakeController("pods");
    const mgr = new Manager(
      managerOptions(clock, informers, { leaderElection: electionOptions(id, store.lock()) }),
    ).add(ctl);
    const stop = new AbortController();
    return { id, ctl, mgr, stop, running: mgr.start(stop.signal), informers };
  });
  const [a, b] = replicas;
  await advanceUntil(clock, () => a.ctl.running || b.ctl.running, 10_000);
  await clock.advance(20_000);
  const [leader, follower] = a.ctl.running ? [a, b] : [b, a];
  assert.equal(leader.mgr.isLeader(), true);
  assert.equal(follower.mgr.isLeader(), false);
  assert.equal(follower.ctl.starts, 0, "a follower must not run controllers");
  assert.deepEqual(follower.informers.requested, ["pods"], "a follower's caches are warm");
  assert.equal(store.current!.spec.holderIdentity, leader.id);

  leader.stop.abort();
  await clock.advance(5_000);
  assert.equal(leader.ctl.signal!.aborted, true, "intake stops at once");
  assert.equal(store.current!.spec.holderIdentity, leader.id, "the lease is held while a reconcile is in flight");
  assert.equal(leader.mgr.readiness().ok, false);

  const holders: string[] = [];
  store.onWrite((record) => holders.push(record.spec.holderIdentity ?? ""));
  leader.ctl.finishReconcile();
  await leader.running;
  assert.equal(holders[0], "", "released on shutdown");
  // The follower watches the Lease: it takes it on the release itself, without waiting for a poll.
  const took = await advanceUntil(clock, () => follower.ctl.running, 10_000);
  assert.equal(took, 0, `follower took ${took} ms of virtual time to take over`);
  assert.deepEqual(holders.slice(0, 2), ["", follower.id]);

  follower.stop.abort();
  follower.ctl.finishReconcile();
  await clock.advance(0);
  await follower.running;
});

Deno.test("draining is bounded by gracefulShutdownMs; the lease is released afterwards", async () => {
  const clock = new VirtualClock();
  const store = new MemoryLeaseStore();
  const informers = new FakeInformers(clock);
  informers.markSynced();
  const ctl = new FakeController("stuck", { reconcileForever: true });
  const mgr = new Manager(managerOptions(clock, informers, {
    leaderElection: electionOptions("a", store.lock()),
    gracefulShutdownMs: 25_000,
  })).add(ctl);
  const stop = new AbortController();
  const running = mgr.start(stop.signal);
  await advanceUntil(clock, () => ctl.running, 5_000);
  stop.abort();
  let resolved = false;
  running.then(() => resolved = true);
  await clock.advance(24_000);
  assert.equal(resolved, false, "waits for in-flight reconciles up to the grace period");
  assert.equal(store.current!.spec.holderIdentity, "a");
  await clock.advance(1_100);
  await running;
  assert.equal(store.current!.spec.holderIdentity, "");
});

Deno.test("with exitOnLostLeadership, losing the lease stops the controllers, waits briefly, and rejects with LeadershipLostError", async () => {
  const clock = new VirtualClock();
  const store = new MemoryLeaseStore();
  let failing = false;
  const inner = store.lock();
  const lock: LeaseLock = {
    get: (s) => failing ? Promise.reject(new Error("apiserver unreachable")) : inner.get(s),
    create: (spec, s) => failing ? Promise.reject(new Error("apiserver unreachable")) : inner.create(spec, s),
    update: (spec, rv, s) => failing ? Promise.reject(new Error("apiserver unreachable")) : inner.update(spec, rv, s),
    describe: () => inner.describe(),
  };
  const informers = new FakeInformers(clock);
  informers.markSynced();
  const ctl = new FakeController("stuck", { reconcileForever: true });
  const mgr = new Manager(managerOptions(clock, informers, {
    leaderElection: { ...electionOptions("a", lock), exitOnLostLeadership: true },
  })).add(ctl);
  const running = mgr.start(new AbortController().signal);
  const rejected = assert.rejects(running, (err) =>
    err instanceof LeadershipLostError && /a could not renew/.test(
      err.message,
    ));
  await advanceUntil(clock, () => ctl.running, 5_000);
  failing = true;
  await advanceUntil(clock, () => ctl.signal!.aborted, 11_000);
  assert.equal(mgr.isLeader(), false);
  let settled = false;
  running.catch(() => settled = true);
  await clock.advance(1_900);
  assert.equal(settled, false, "in-flight reconciles get a short grace");
  await clock.advance(200);
  await rejected;
});

Deno.test("a controller that fails to start stops the manager with its error", async () => {
  const clock = new VirtualClock();
  const informers = new FakeInformers(clock);
  informers.markSynced();
  const ok = new FakeController("ok");
  const bad = new FakeController("bad", { failStart: true });
  const mgr = new Manager(managerOptions(clock, informers)).add(ok).add(bad);
  const running = mgr.start(new AbortController().signal);
  const rejected = assert.rejects(running, /bad: cannot start/);
  await clock.advance(0);
  ok.finishReconcile();
  await clock.advance(0);
  await rejected;
  assert.equal(ok.signal!.aborted, true, "the other controllers are stopped");
});

Deno.test("manager options: one namespace scopes namespaced informers; max concurrent reconciles is the default", async () => {
  const clock = new VirtualClock();
  const informers = new FakeInformers(clock);
  informers.markSynced();
  const mgr = new Manager(managerOptions(clock, informers, { namespaces: ["team-a"], maxConcurrentReconciles: 4 }));
  mgr.informers.get(CoreTypes.Pod);
  mgr.informers.get(CoreTypes.Namespace);
  mgr.informers.get(CoreTypes.Pod, { namespace: "other" });
  assert.deepEqual(informers.requested, ["pods ns=team-a", "namespaces", "pods ns=other"]);

  const reconcile = () => Promise.resolve(done());
  const flagged = new Controller({ name: "pods", for: CoreTypes.Pod, reconcile });
  const own = new Controller({ name: "own", for: CoreTypes.ConfigMap, reconcile, maxConcurrentReconciles: 2 });
  mgr.add(flagged).add(own);
  assert.throws(() => mgr.add(new FakeController("pods")), /already added/);
  const stop = new AbortController();
  const running = mgr.start(stop.signal);
  await clock.advance(0);
  assert.equal(flagged.maxConcurrentReconciles, 4);
  assert.equal(own.maxConcurrentReconciles, 2, "a controller's own setting wins");
  stop.abort();
  await clock.advance(0);
  await running;
});
