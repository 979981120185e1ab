import assert from "node:assert/strict";
import { seededRandom } from "../random.ts";
import { VirtualClock } from "../clock.ts";
import { ApiError, failureStatus, isConflict } from "../client/errors.ts";
import { eventually } from "../../testing/eventually.ts";
import {
  type LeaderElectionOutcome,
  LeaderElector,
  type LeaderElectorOptions,
  LeadershipLostError,
  microTime,
  validateLeaderElectionDurations,
} from "./leader.ts";
import { type LeaseLock, MemoryLeaseStore } from "./lease_lock.ts";
import { captureSink, configureLogging } from "../observe/log.ts";

const RETRY_MS = 2_000;
const LEASE_MS = 15_000;
const RENEW_MS = 10_000;

type LockMode = "ok" | "fail" | "hang";

/** Wraps a lock so a test can make one candidate's API calls fail or hang (a partitioned replica). */
function faultyLock(inner: LeaseLock, mode: { value: LockMode }): LeaseLock {
  const guard = <T>(call: () => Promise<T>, signal?: AbortSignal): Promise<T> => {
    if (mode.value === "fail") return Promise.reject(new Error("connection refused"));
    if (mode.value === "hang") {
      return new Promise<T>((_, reject) => signal?.addEventListener("abort", () => reject(signal.reason)));
    }
    return call();
  };
  return {
    get: (signal) => guard(() => inner.get(signal), signal),
    create: (spec, signal) => guard(() => inner.create(spec, signal), signal),
    update: (spec, rv, signal) => guard(() => inner.update(spec, rv, signal), signal),
    describe: () => inner.describe(),
    watch: inner.watch ? (signal, onChange) => guard(() => inner.watch!(signal, onChange), signal) : undefined,
  };
}

interface Candidate {
  id: string;
  elector: LeaderElector;
  mode: { value: LockMode };
  stop: AbortController;
  done: Promise<LeaderElectionOutcome>;
  crashed: boolean;
  leadingSignal?: AbortSignal;
  startedAt?: number;
  stoppedAt?: number;
  newLeaders: string[];
}

/**
 * A shared in-memory Lease, candidates contending for it on one virtual clock, and a checker that looks at every
 * transition: when a candidate starts leading nobody else may be leading, and whenever the Lease is written with a
 * new holder, no other (live) candidate may still believe it leads.
 */
class Election {
  readonly clock = new VirtualClock(Date.UTC(2026, 0, 1));
  readonly store = new MemoryLeaseStore("kube-system/kubeop");
  readonly leaders = new Set<string>();
  readonly violations: string[] = [];
  readonly candidates = new Map<string, Candidate>();
  readonly writes: { at: number; holder: string }[] = [];
  #seed = 1;

  constructor() {
    this.store.onWrite((record) => {
      const holder = record.spec.holderIdentity ?? "";
      this.writes.push({ at: this.clock.now(), holder });
      for (const id of this.leaders) {
        if (id !== holder && holder !== "") {
          this.violations.push(`${this.clock.now()}: lease taken by ${holder} while ${id} still leads`);
        }
      }
    });
  }

  add(id: string, extra: Partial<LeaderElectorOptions> = {}): Candidate {
    const mode = { value: "ok" as LockMode };
    const stop = new AbortController();
    const c = { id, mode, stop, crashed: false, newLeaders: [] as string[] } as unknown as Candidate;
    c.elector = new LeaderElector({
      lock: faultyLock(this.store.lock(), mode),
      identity: id,
      clock: this.clock,
      random: seededRandom(this.#seed++),
      onStartedLeading: (signal) => {
        c.startedAt = this.clock.now();
        c.leadingSignal = signal;
        if (this.leaders.size > 0) {
          this.violations.push(`${this.clock.now()}: ${id} started leading while ${[...this.leaders]} lead`);
        }
        if (this.store.current?.spec.holderIdentity !== id) {
          this.violations.push(`${this.clock.now()}: ${id} started leading but the lease names another holder`);
        }
        this.leaders.add(id);
      },
      onStoppedLeading: () => {
        c.stoppedAt = this.clock.now();
        this.leaders.delete(id);
      },
      onNewLeader: (holder) => c.newLeaders.push(holder),
      ...extra,
    });
    c.done = c.elector.run(stop.signal);
    this.candidates.set(id, c);
    return c;
  }

  /** The process dies: its work ends at once, nothing is released. */
  crash(c: Candidate): void {
    c.crashed = true;
    this.leaders.delete(c.id);
    c.mode.value = "fail";
    c.stop.abort();
  }

  /** Advances in small steps until `cond` holds; returns the elapsed virtual ms. */
  async advanceUntil(cond: () => boolean, limitMs: number, stepMs = 50): Promise<number> {
    const start = this.clock.now();
    while (!cond()) {
      if (this.clock.now() - start > limitMs) {
        throw new Error(`condition not reached within ${limitMs} ms of virtual time`);
      }
      await this.clock.advance(stepMs);
    }
    return this.clock.now() - start;
  }

  async stopAll(): Promise<void> {
    for (const c of this.candidates.values()) {
      c.mode.value = c.crashed ? "fail" : "ok";
      c.stop.abort();
    }
    await this.clock.advance(RENEW_MS + 1);
    await Promise.all([...this.candidates.values()].map((c) => c.done));
    assert.deepEqual(this.violations, []);
  }
}

Deno.test("durations are validated: lease > renew deadline > 1.2 × retry period", () => {
  assert.deepEqual(validateLeaderElectionDurations({}), {
    leaseSeconds: 15,
    renewDeadlineSeconds: 10,
    retryPeriodSeconds: 2,
  });
  assert.throws(() => validateLeaderElectionDurations({ leaseSeconds: 10 }), /leaseSeconds \(10\) must be greater/);
  assert.throws(
    () => validateLeaderElectionDurations({ renewDeadlineSeconds: 2.4 }),
    /renewDeadlineSeconds \(2.4\) must be greater than 1.2 × retryPeriodSeconds \(2\)/,
  );
  assert.throws(() => validateLeaderElectionDurations({ retryPeriodSeconds: 0 }), /retryPeriodSeconds must be > 0/);
  const store = new MemoryLeaseStore();
  assert.throws(() => new LeaderElector({ lock: store.lock(), leaseSeconds: 5 }), RangeError);
});

Deno.test("microTime has microsecond precision", () => {
  assert.equal(microTime(Date.UTC(2026, 0, 1, 10, 0, 0, 123)), "2026-01-01T10:00:00.123000Z");
});

Deno.test("a lone candidate creates the lease, renews it with MicroTimes, and releases it on stop", async () => {
  const e = new Election();
  const status: number[] = [];
  const a = e.add("a", {
    metrics: {
      leaderElectionMasterStatus: { set: (labels, v) => labels.name === "kube-system/kubeop" && status.push(v) },
    },
  });
  await e.clock.advance(0);
  assert.equal(a.elector.isLeader(), true);
  const first = e.store.current!.spec;
  assert.equal(first.holderIdentity, "a");
  assert.equal(first.leaseDurationSeconds, 15);
  assert.equal(first.leaseTransitions, 0);
  assert.match(first.acquireTime!, /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{6}Z$/);
  assert.equal(status.at(-1), 1);

  await e.clock.advance(RETRY_MS);
  const renewed = e.store.current!.spec;
  assert.equal(renewed.acquireTime, first.acquireTime);
  assert.notEqual(renewed.renewTime, first.renewTime);
  assert.equal(renewed.leaseTransitions, 0);

  a.stop.abort();
  assert.equal(await a.done, "released");
  const released = e.store.current!.spec;
  assert.equal(released.holderIdentity, "");
  assert.equal(released.leaseDurationSeconds, 1);
  assert.equal(released.leaseTransitions, 0);
  assert.equal(a.elector.isLeader(), false);
  assert.equal(a.leadingSignal?.aborted, true);
  assert.equal(status.at(-1), 0);
  await e.stopAll();
});

Deno.test("two candidates: one leads; after a release the other takes over within retry × 2.2", async () => {
  const e = new Election();
  const a = e.add("a");
  await e.clock.advance(0);
  const b = e.add("b");
  await e.clock.advance(60_000);
  assert.equal(a.elector.isLeader(), true);
  assert.equal(b.elector.isLeader(), false);
  assert.deepEqual(b.newLeaders, ["a"]);

  a.stop.abort();
  assert.equal(await a.done, "released");
  const elapsed = await e.advanceUntil(() => b.elector.isLeader(), 60_000);
  assert.ok(elapsed <= RETRY_MS * 2.2, `took ${elapsed} ms`);
  assert.equal(e.store.current!.spec.holderIdentity, "b");
  assert.equal(e.store.current!.spec.leaseTransitions, 1);
  assert.deepEqual(b.newLeaders, ["a", "b"]);
  await e.stopAll();
});

Deno.test("watchForRelease: a standby takes a released Lease at once instead of at its next poll", async () => {
  const e = new Election();
  const a = e.add("a");
  await e.clock.advance(0);
  const polling = e.add("polling");
  const watching = e.add("watching", { watchForRelease: true });
  await e.clock.advance(60_000);
  assert.equal(a.elector.isLeader(), true);
  const before = e.clock.now();

  a.stop.abort();
  assert.equal(await a.done, "released");
  await eventually("the watching standby to lead", () => watching.elector.isLeader());
  assert.equal(e.clock.now(), before, "no virtual time passed: the release itself woke it");
  assert.equal(polling.elector.isLeader(), false);
  assert.equal(e.store.current!.spec.holderIdentity, "watching");
  await e.stopAll();
});

Deno.test("watchForRelease without the watch verb: one info line, then polling alone", async () => {
  const capture = captureSink();
  await configureLogging({ sink: capture.sink, level: "debug" });
  try {
    const e = new Election();
    const a = e.add("a");
    await e.clock.advance(0);
    const store = e.store;
    const forbidden: LeaseLock = {
      ...store.lock(),
      watch: () =>
        Promise.reject(new ApiError(failureStatus(403, "Forbidden", "cannot watch leases"), { verb: "watch" })),
    };
    const b = e.add("b", { watchForRelease: true, lock: forbidden });
    await e.clock.advance(60_000);
    a.stop.abort();
    assert.equal(await a.done, "released");
    const elapsed = await e.advanceUntil(() => b.elector.isLeader(), 60_000);
    assert.ok(elapsed > 0 && elapsed <= RETRY_MS * 2.2, `took ${elapsed} ms`);
    const lines = capture.lines().filter((l) => l.includes("cannot watch lease"));
    assert.equal(lines.length, 1, lines.join("\n"));
    assert.match(lines[0], /"level":"info"/);
    await e.stopAll();
  } finally {
    await configureLogging({ sink: () => {}, level: "fatal" });
  }
});

Deno.test("three candidates: after the leader crashes a successor leads within lease + 2 × retry × 2.2", async () => {
  const e = new Election();
  const a = e.add("a");
  await e.clock.advance(0);
  const others = [e.add("b"), e.add("c")];
  await e.clock.advance(33_333);
  assert.equal(a.elector.isLeader(), true);
  assert.ok(others.every((c) => !c.elector.isLeader()));

  e.crash(a);
  const lastRenewByA = e.writes.filter((w) => w.holder === "a").at(-1)!.at;
  const crashedAt = e.clock.now();
  const elapsed = await e.advanceUntil(() => others.some((c) => c.elector.isLeader()), 60_000);
  assert.ok(elapsed <= LEASE_MS + 2 * RETRY_MS * 2.2, `took ${elapsed} ms`);
  const successor = others.find((c) => c.elector.isLeader())!;
  // Nobody may take over before a full lease duration has passed since the crashed leader's last renewal.
  assert.ok(successor.startedAt! - lastRenewByA >= LEASE_MS);
  assert.ok(successor.startedAt! > crashedAt);
  assert.equal(e.store.current!.spec.leaseTransitions, 1);
  await e.clock.advance(60_000);
  assert.equal(others.filter((c) => c.elector.isLeader()).length, 1);
  await e.stopAll();
});

for (const fault of ["fail", "hang"] as const) {
  Deno.test(`a leader whose renewals ${fault} stops its work before another candidate can acquire`, async () => {
    const e = new Election();
    const a = e.add("a");
    await e.clock.advance(0);
    const b = e.add("b");
    await e.clock.advance(20_000);
    assert.equal(a.elector.isLeader(), true);

    a.mode.value = fault;
    await e.advanceUntil(() => b.elector.isLeader(), 60_000);
    assert.equal(await a.done, "lost");
    assert.ok(a.stoppedAt! < b.startedAt!, `a stopped at ${a.stoppedAt}, b started at ${b.startedAt}`);
    assert.ok(a.leadingSignal!.reason instanceof LeadershipLostError);
    assert.match(String(a.leadingSignal!.reason), /could not renew lease kube-system\/kubeop/);
    assert.equal(e.store.current!.spec.holderIdentity, "b");
    await e.stopAll();
  });
}

Deno.test("expiry is judged by local observation time, not the holder's timestamps (clock skew)", async () => {
  const e = new Election();
  // A holder whose clock is decades behind: its renewTime looks ancient, but it was written just now.
  const rec = await e.store.lock().create({
    holderIdentity: "skewed",
    leaseDurationSeconds: 15,
    renewTime: "2000-01-01T00:00:00.000000Z",
    acquireTime: "2000-01-01T00:00:00.000000Z",
    leaseTransitions: 3,
  });
  const a = e.add("a");
  await e.clock.advance(LEASE_MS - 1);
  assert.equal(a.elector.isLeader(), false, "took over a lease that was renewed moments ago");
  assert.equal(a.elector.observedLeader, "skewed");

  // The skewed holder renews (with a timestamp far in the future): the observation clock restarts.
  await e.store.lock().update({ ...rec.spec, renewTime: "2099-01-01T00:00:00.000000Z" }, rec.rv);
  await e.clock.advance(LEASE_MS - 1);
  assert.equal(a.elector.isLeader(), false);

  // Then it stops renewing: a takes over once the record has been unchanged for a lease duration.
  const elapsed = await e.advanceUntil(() => a.elector.isLeader(), 60_000);
  assert.ok(elapsed <= 2 * RETRY_MS * 2.2);
  assert.equal(e.store.current!.spec.leaseTransitions, 4);
  await e.stopAll();
});

Deno.test("updates carry the observed resourceVersion: a stale write conflicts", async () => {
  const store = new MemoryLeaseStore();
  const lock = store.lock();
  const created = await lock.create({ holderIdentity: "x" });
  await lock.update({ holderIdentity: "y" }, created.rv);
  await assert.rejects(() => lock.update({ holderIdentity: "z" }, created.rv), (err) => isConflict(err));
  assert.equal(store.current!.spec.holderIdentity, "y");
});

for (const watchForRelease of [false, true]) {
  Deno.test(`random crashes, restarts and partitions never yield two leaders (fixed seed, watchForRelease ${watchForRelease})`, async () => {
    const e = new Election();
    const rand = seededRandom(42);
    let next = 0;
    const live = () => [...e.candidates.values()].filter((c) => !c.crashed && !c.stop.signal.aborted);
    for (let i = 0; i < 3; i++) e.add(`c${next++}`, { watchForRelease });
    let leaderChanges = 0;
    let lastLeader = "";
    for (let step = 0; step < 300; step++) {
      const r = rand();
      const pool = live();
      const pick = pool[Math.floor(rand() * pool.length)];
      if (r < 0.03 && pick) e.crash(pick);
      else if (r < 0.06 && pick) pick.stop.abort();
      else if (r < 0.12 && pick) pick.mode.value = pick.mode.value === "ok" ? (rand() < 0.5 ? "fail" : "hang") : "ok";
      if (live().length < 2) e.add(`c${next++}`, { watchForRelease });
      await e.clock.advance(Math.floor(rand() * 3_000));
      const holder = [...e.leaders][0] ?? "";
      if (holder && holder !== lastLeader) {
        leaderChanges++;
        lastLeader = holder;
      }
      assert.ok(e.leaders.size <= 1);
    }
    assert.ok(leaderChanges >= 3, `only ${leaderChanges} leader changes: the scenario exercised too little`);
    await e.stopAll();
  });
}

Deno.test("a candidate that can never reach the Lease says why at warning level; lost races stay quiet", async () => {
  const capture = captureSink();
  await configureLogging({ sink: capture.sink, level: "debug" });
  try {
    const e = new Election();
    const a = e.add("a");
    a.mode.value = "fail";
    await e.clock.advance(60_000);
    const warnings = capture.records.filter((r) => r.level === "warning").map((r) => r.properties);
    assert.ok(warnings.length >= 1 && warnings.length < 5, `${warnings.length} warnings`);
    assert.ok(["get", "create"].includes(String(warnings[0].verb)));
    assert.match(String(warnings[0].error), /connection refused/);

    a.mode.value = "ok";
    const b = e.add("b");
    await e.clock.advance(30_000);
    assert.ok(a.elector.isLeader() !== b.elector.isLeader());
    assert.equal(capture.records.filter((r) => r.level === "warning").length, warnings.length);
    await e.stopAll();
  } finally {
    await configureLogging({ sink: () => {}, level: "fatal" });
  }
});
