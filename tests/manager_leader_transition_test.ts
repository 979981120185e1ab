/**
 * Issue 25 item 1: a graceful leader transition (KEP-5366). A replica that loses the Lease stops and drains its
 * controllers, stays up with its caches warm, campaigns again and leads again when the Lease can be had; a term's
 * controllers never start while the previous term's reconciles still run.
 */
import assert from "node:assert/strict";
import { VirtualClock } from "../runtime/clock.ts";
import { LeadershipLostError, Manager } from "../runtime/manager/manager.ts";
import { type LeaseLock, MemoryLeaseStore } from "../runtime/leader/lease_lock.ts";
import {
  advanceUntil,
  electionOptions,
  FakeController,
  FakeInformers,
  managerOptions,
} from "./support/manager_fakes.ts";

/** A Lease lock whose calls fail while `down` (the API server unreachable). */
function outageLock(store: MemoryLeaseStore): { lock: LeaseLock; down(on: boolean): void } {
  let down = false;
  const inner = store.lock();
  const fail = () => Promise.reject(new Error("apiserver unreachable"));
  return {
    lock: {
      get: (s) => down ? fail() : inner.get(s),
      create: (spec, s) => down ? fail() : inner.create(spec, s),
      update: (spec, rv, s) => down ? fail() : inner.update(spec, rv, s),
      describe: () => inner.describe(),
    },
    down: (on) => down = on,
  };
}

Deno.test("a lost Lease stops and drains the controllers; the manager stays up and leads again once it can", async () => {
  const clock = new VirtualClock();
  const store = new MemoryLeaseStore();
  const { lock, down } = outageLock(store);
  const informers = new FakeInformers(clock);
  informers.markSynced();
  const ctl = new FakeController("machines");
  const mgr = new Manager(managerOptions(clock, informers, { leaderElection: electionOptions("a", lock) })).add(ctl);
  const stop = new AbortController();
  let settled: string | undefined;
  const running = mgr.start(stop.signal).then(() => settled = "resolved", (err) => settled = String(err));

  await advanceUntil(clock, () => ctl.running, 5_000);
  const firstTerm = ctl.signal!;
  down(true); // the API server goes away for longer than the renew deadline
  await advanceUntil(clock, () => firstTerm.aborted, 11_000);
  assert.equal(mgr.isLeader(), false);

  // The outage ends while the first term's reconcile is still in flight: no second term until it drained.
  down(false);
  await clock.advance(15_000); // within gracefulShutdownMs (25 s by default)
  assert.equal(ctl.starts, 1, "a new term started while the previous term's reconcile was still running");
  assert.equal(mgr.isLeader(), false);
  assert.equal(settled, undefined, "the manager stopped after losing the Lease");

  ctl.finishReconcile(); // drained: the replica campaigns again and wins the Lease it held
  await advanceUntil(clock, () => ctl.starts === 2 && ctl.running, 30_000);
  assert.equal(mgr.isLeader(), true);
  assert.equal(store.current!.spec.holderIdentity, "a");
  assert.notEqual(ctl.signal, firstTerm, "each term gets its own stop signal");
  assert.equal(settled, undefined);

  stop.abort();
  await clock.advance(0);
  await running;
  assert.equal(settled, "resolved");
  assert.equal(store.current!.spec.holderIdentity, "", "released on shutdown after the second term");
});

Deno.test("while this replica is out of the Lease another holds it; this one takes over when that one lets it expire", async () => {
  const clock = new VirtualClock();
  const store = new MemoryLeaseStore();
  const a = outageLock(store);
  const informers = new FakeInformers(clock);
  informers.markSynced();
  const ctlA = new FakeController("a-machines");
  const mgrA = new Manager(managerOptions(clock, informers, { leaderElection: electionOptions("a", a.lock) }))
    .add(ctlA);
  const ctlB = new FakeController("b-machines");
  const mgrB = new Manager(managerOptions(clock, informers, { leaderElection: electionOptions("b", store.lock()) }))
    .add(ctlB);
  const stopA = new AbortController();
  const stopB = new AbortController();
  const runningA = mgrA.start(stopA.signal);
  await advanceUntil(clock, () => ctlA.running, 5_000);
  const runningB = mgrB.start(stopB.signal);

  a.down(true);
  ctlA.finishReconcile();
  await advanceUntil(clock, () => ctlB.running, 60_000); // b takes over once a's Lease expired
  assert.equal(ctlA.running, false, "both replicas ran controllers at once");
  assert.equal(mgrA.isLeader(), false);
  a.down(false);
  await clock.advance(30_000);
  assert.equal(ctlA.starts, 1, "a led while b held the Lease");
  assert.equal(store.current!.spec.holderIdentity, "b");

  stopB.abort(); // b releases on shutdown: a, a candidate all along, takes the Lease
  ctlB.finishReconcile();
  await advanceUntil(clock, () => ctlA.starts === 2 && ctlA.running, 30_000);
  await runningB;
  stopA.abort();
  await clock.advance(0);
  await runningA;
});

Deno.test("a term whose reconciles do not drain within gracefulShutdownMs ends the run with LeadershipLostError", async () => {
  const clock = new VirtualClock();
  const store = new MemoryLeaseStore();
  const { lock, down } = outageLock(store);
  const informers = new FakeInformers(clock);
  informers.markSynced();
  const ctl = new FakeController("stuck", { reconcileForever: true });
  const mgr = new Manager(managerOptions(clock, informers, {
    leaderElection: electionOptions("a", lock),
    gracefulShutdownMs: 5_000,
  })).add(ctl);
  const running = mgr.start(new AbortController().signal);
  const rejected = assert.rejects(running, (err) => err instanceof LeadershipLostError);
  await advanceUntil(clock, () => ctl.running, 5_000);
  down(true);
  await advanceUntil(clock, () => ctl.signal!.aborted, 11_000);
  let settled = false;
  running.catch(() => settled = true);
  await clock.advance(4_000);
  assert.equal(settled, false, "the reconcile gets gracefulShutdownMs to drain");
  down(false);
  for (let i = 0; i < 20 && !settled; i++) await clock.advance(500);
  await rejected;
  assert.equal(ctl.starts, 1);
});
