/**
 * An in-process model of leader safety: replicas of {@link LeaderElector} on one shared {@link VirtualClock}, each
 * seeing it through its own {@link ReplicaClock} (a monotonic offset, a steppable wall clock, SIGSTOP-like pauses,
 * crashes), contending for one {@link MemoryLeaseStore} over a lossless network with random latency. Every replica
 * tries to write at random moments, leader or not, through its elector's fence; writes that pass reach the "server"
 * after a random transport delay. The store's own record of Lease changes and the write arrivals are replayed by
 * tests/faults/leader_checker.ts.
 *
 * The model states the fence's assumption (docs/reliability.md): the time between a passed fence check and the
 * write's arrival — a pause between the check and the socket write, plus transport — stays below
 * `leaseDuration − renewDeadline`. Pauses anywhere else are unbounded.
 * @module
 */
import { type Clock, VirtualClock } from "../../runtime/clock.ts";
import { NotLeaderError } from "../../runtime/client/errors.ts";
import { LeaderElector } from "../../runtime/leader/leader.ts";
import { type LeaseLock, MemoryLeaseStore } from "../../runtime/leader/lease_lock.ts";
import { seededRandom } from "../../runtime/random.ts";
import { checkLeaderSafety, type LeaderObservation, type LeaderSafetyReport } from "./leader_checker.ts";

/** A fixed-seed random source: the runtime's mulberry32 (runtime/random.ts), under the name the fault harness uses. */
export { seededRandom as seeded } from "../../runtime/random.ts";

/**
 * One replica's view of the shared clock: its monotonic time has its own origin, its wall clock may be set wrong or
 * stepped, and while it is paused (SIGSTOP) none of its timers or I/O completions run — they run on resume, in
 * order; once it is dead nothing of it runs again. Time itself keeps moving while it is paused.
 */
export class ReplicaClock implements Clock {
  #base: VirtualClock;
  #monoOffset: number;
  #wallOffset: number;
  #paused = false;
  #dead = false;
  #deferred: (() => void)[] = [];

  constructor(base: VirtualClock, opts: { monoOffsetMs?: number; wallOffsetMs?: number } = {}) {
    this.#base = base;
    this.#monoOffset = opts.monoOffsetMs ?? 0;
    this.#wallOffset = opts.wallOffsetMs ?? 0;
  }

  now(): number {
    return this.#base.now() + this.#wallOffset;
  }

  nowMonotonic(): number {
    return this.#base.nowMonotonic() + this.#monoOffset;
  }

  /** Steps this replica's wall clock (NTP step, an operator setting the date). */
  stepWall(deltaMs: number): void {
    this.#wallOffset += deltaMs;
  }

  get paused(): boolean {
    return this.#paused;
  }

  get dead(): boolean {
    return this.#dead;
  }

  pause(): void {
    this.#paused = true;
  }

  resume(): void {
    if (!this.#paused) return;
    this.#paused = false;
    const due = this.#deferred;
    this.#deferred = [];
    for (const fn of due) this.gate(fn);
  }

  kill(): void {
    this.#dead = true;
    this.#deferred = [];
  }

  /** Runs `fn` as this process: now if it runs, on resume if paused, never if dead. */
  gate(fn: () => void): void {
    if (this.#dead) return;
    if (this.#paused) this.#deferred.push(fn);
    else fn();
  }

  setTimer(ms: number, fn: () => void): () => void {
    return this.#base.setTimer(ms, () => this.gate(fn));
  }

  sleep(ms: number, signal?: AbortSignal): Promise<void> {
    if (signal?.aborted) return Promise.reject(signal.reason);
    return new Promise((resolve, reject) => {
      const onAbort = () => {
        cancel();
        reject(signal!.reason);
      };
      const cancel = this.setTimer(ms, () => {
        signal?.removeEventListener("abort", onAbort);
        resolve();
      });
      signal?.addEventListener("abort", onAbort, { once: true });
    });
  }
}

/** Timings of the model, in ms. */
export interface ModelTimings {
  leaseMs: number;
  renewDeadlineMs: number;
  retryMs: number;
  /** Upper bound of one network leg of a Lease call. */
  lockLatencyMs: number;
  /** Upper bound of check → arrival of a fenced write (must stay below lease − renew deadline). */
  writeTransitMs: number;
}

/** Options of {@link runLeaderModel}. */
export interface LeaderModelOptions {
  seed: number;
  rounds: number;
  timings?: Partial<ModelTimings>;
  /** The bug the fence fixes, for the checker's self-test: gate writes on `isLeader()` instead of the fence. */
  bypassFence?: boolean;
}

/** What {@link runLeaderModel} measured, with the checker's verdict. */
export interface LeaderModelResult extends LeaderSafetyReport {
  rounds: number;
  attempted: number;
  refused: number;
  /** Refusals while the elector still believed it led: a paused leader resumed past its renew deadline. */
  refusedWhileBelievingLeader: number;
  pauses: number;
  crashes: number;
  wallSteps: number;
  /** Most fences open at one sampled instant. */
  maxOpenFences: number;
}

interface Replica {
  slot: number;
  identity: string;
  clock: ReplicaClock;
  elector: LeaderElector;
  stop: AbortController;
  /** Shutting down: no new writes; the elector stops (and releases) once the writes on the wire were answered. */
  draining: boolean;
  inflight: number;
}

/**
 * Runs `rounds` rounds: each picks a fault (pause past the renew deadline, crash and restart, graceful stop and
 * restart, a wall-clock step on replica slot 2, or none) and lets up to 1.5 lease durations of virtual time pass.
 * Replica slot 1 runs with a monotonic origin 10⁹ ms away and a wall clock 3 h behind.
 */
export async function runLeaderModel(opts: LeaderModelOptions): Promise<LeaderModelResult> {
  const t: ModelTimings = {
    leaseMs: 1_000,
    renewDeadlineMs: 600,
    retryMs: 200,
    lockLatencyMs: 30,
    writeTransitMs: 350,
    ...opts.timings,
  };
  if (t.writeTransitMs >= t.leaseMs - t.renewDeadlineMs) {
    throw new RangeError("writeTransitMs must stay below leaseMs − renewDeadlineMs: the fence's stated assumption");
  }
  const rand = seededRandom(opts.seed);
  const base = new VirtualClock(Date.UTC(2026, 0, 1));
  const store = new MemoryLeaseStore("default/kubeop");
  const observations: LeaderObservation[] = [];
  let seq = 0;
  store.onWrite((record) => {
    observations.push({ kind: "lease", seq: seq++, at: base.nowMonotonic(), holder: record.spec.holderIdentity ?? "" });
  });
  const result = {
    rounds: opts.rounds,
    attempted: 0,
    refused: 0,
    refusedWhileBelievingLeader: 0,
    pauses: 0,
    crashes: 0,
    wallSteps: 0,
    maxOpenFences: 0,
  };

  /** A network leg: delivered after random latency; the answer reaches the replica only when it runs. */
  const leg = () => base.sleep(Math.floor(rand() * t.lockLatencyMs));
  const lockFor = (clock: ReplicaClock): LeaseLock => {
    const inner = store.lock();
    const call = <T>(fn: () => Promise<T>): Promise<T> =>
      new Promise<T>((resolve, reject) => {
        leg().then(fn).then(
          (v) => leg().then(() => clock.gate(() => resolve(v))),
          (err) => leg().then(() => clock.gate(() => reject(err))),
        );
      });
    return {
      get: () => call(() => inner.get()),
      create: (spec) => call(() => inner.create(spec)),
      update: (spec, rv) => call(() => inner.update(spec, rv)),
      describe: () => inner.describe(),
    };
  };

  const incarnations = [0, 0, 0];
  const clocks = [
    new ReplicaClock(base),
    new ReplicaClock(base, { monoOffsetMs: 1e9, wallOffsetMs: -3 * 3_600_000 }),
    new ReplicaClock(base),
  ];
  const replicas: Replica[] = [];

  const writeLoop = (r: Replica) => {
    const next = () =>
      r.clock.setTimer(20 + rand() * 130, () => {
        if (r.stop.signal.aborted || r.draining) return;
        attempt(r);
        next();
      });
    next();
  };
  const attempt = (r: Replica) => {
    result.attempted++;
    if (opts.bypassFence) {
      if (!r.elector.isLeader()) return void result.refused++;
    } else {
      try {
        r.elector.fence.check({ verb: "create", resource: "configmaps", namespace: "default" });
      } catch (err) {
        if (!(err instanceof NotLeaderError)) throw err;
        result.refused++;
        if (r.elector.isLeader()) result.refusedWhileBelievingLeader++;
        return;
      }
    }
    // On the wire: arrives whatever happens to the sender now (a pause or SIGKILL after the send changes nothing).
    r.inflight++;
    base.setTimer(rand() * t.writeTransitMs, () => {
      observations.push({ kind: "write", seq: seq++, at: base.nowMonotonic(), identity: r.identity });
      leg().then(() => r.inflight--); // the answer
    });
  };

  const start = (slot: number) => {
    const clock = clocks[slot];
    const identity = `r${slot}.${incarnations[slot]++}`;
    const stop = new AbortController();
    const elector = new LeaderElector({
      lock: lockFor(clock),
      identity,
      clock,
      random: seededRandom(opts.seed * 31 + slot * 7 + incarnations[slot]),
      leaseSeconds: t.leaseMs / 1000,
      renewDeadlineSeconds: t.renewDeadlineMs / 1000,
      retryPeriodSeconds: t.retryMs / 1000,
    });
    const r: Replica = { slot, identity, clock, elector, stop, draining: false, inflight: 0 };
    replicas[slot] = r;
    elector.run(stop.signal);
    writeLoop(r);
  };
  const restart = (slot: number) => {
    clocks[slot] = new ReplicaClock(base, slot === 1 ? { monoOffsetMs: 2e9, wallOffsetMs: 5 * 3_600_000 } : {});
    start(slot);
  };
  for (let slot = 0; slot < 3; slot++) start(slot);

  for (let round = 0; round < opts.rounds; round++) {
    const live = replicas.filter((r) => !r.clock.dead && !r.clock.paused && !r.stop.signal.aborted && !r.draining);
    const leader = live.find((r) => r.elector.isLeader());
    const pick = rand() < 0.6 && leader ? leader : live[Math.floor(rand() * live.length)];
    const fault = rand();
    if (pick && fault < 0.25) {
      // SIGSTOP past the renew deadline (sometimes past the whole lease), then SIGCONT.
      result.pauses++;
      pick.clock.pause();
      const clock = pick.clock;
      base.setTimer(t.renewDeadlineMs * (0.5 + rand() * 3), () => clock.resume());
    } else if (pick && fault < 0.35) {
      // SIGKILL; the process manager restarts it a little later with a new identity.
      result.crashes++;
      pick.clock.kill();
      pick.stop.abort();
      base.setTimer(rand() * t.leaseMs, () => restart(pick.slot));
    } else if (pick && fault < 0.42) {
      // SIGTERM: drain (in-flight writes answered, as the manager drains reconciles), release, exit, restart.
      pick.draining = true;
      const drained = () => {
        if (pick.inflight > 0) return void pick.clock.setTimer(10, drained);
        pick.stop.abort();
        base.setTimer(t.leaseMs * rand(), () => {
          pick.clock.kill();
          restart(pick.slot);
        });
      };
      drained();
    } else if (fault < 0.55) {
      result.wallSteps++;
      clocks[2].stepWall((rand() < 0.5 ? -1 : 1) * rand() * 86_400_000);
    }
    const spanMs = rand() * 1.5 * t.leaseMs;
    for (let elapsed = 0; elapsed < spanMs; elapsed += t.retryMs) {
      await base.advance(Math.min(t.retryMs, spanMs - elapsed));
      let open = 0;
      for (const r of replicas) if (!r.clock.dead && r.elector.fence.isOpen()) open++;
      result.maxOpenFences = Math.max(result.maxOpenFences, open);
    }
  }
  for (const r of replicas) {
    r.clock.resume();
    r.stop.abort();
  }
  await base.advance(t.leaseMs * 2);
  return { ...result, ...checkLeaderSafety(observations) };
}
