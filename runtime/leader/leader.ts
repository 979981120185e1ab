/**
 * Leader election on a coordination.k8s.io/v1 Lease, after client-go's `leaderelection` package: candidates poll
 * the Lease (jittered), take it when it is free, released, or unchanged for a lease duration as measured by THEIR
 * OWN clock (so clock skew between replicas does not matter), and the leader renews it under resourceVersion
 * preconditions. A leader that cannot renew for `renewDeadlineSeconds` stops leading before anyone else may take
 * over (renew deadline < lease duration); on shutdown it releases the Lease so a successor takes over at once.
 * Every deadline and observation uses the clock's monotonic time, so stepping the wall clock changes nothing; the
 * elector keeps a {@link LeaderFence} (runtime/leader/write_fence.ts) that lets writes out only within the renew deadline of
 * the last successful renew's send time.
 * @module
 */

import type { Logger } from "../observe/log.ts";
import { type Clock, RealClock } from "../clock.ts";
import { isAlreadyExists, isConflict } from "../client/errors.ts";
import type { LeaseLock, LeaseRecord, LeaseSpec } from "./lease_lock.ts";
import { watchLeaseForRelease } from "./lease_release_watch.ts";
import { kubeopLogger } from "../observe/log.ts";
import { LeaderFence } from "./write_fence.ts";

/** client-go's JitterFactor: retries wait `retry × (1 + rand × 1.2)`. */
export const JITTER_FACTOR = 1.2;

/** Longest wait for the release write on shutdown. */
export const RELEASE_TIMEOUT_MS = 3_000;

/** The election timings, in seconds (client-go / controller-runtime defaults 15 / 10 / 2). */
export interface LeaderElectionDurations {
  /** How long a Lease is valid without renewal (default 15). */
  leaseSeconds?: number;
  /** How long the leader keeps trying to renew before it gives up leading (default 10). */
  renewDeadlineSeconds?: number;
  /** Interval between acquire/renew attempts (default 2; jittered ×1.2 when acquiring). */
  retryPeriodSeconds?: number;
}

/** The subset of runtime/observe/metrics.ts `Metrics` the elector updates. */
export interface LeaderMetrics {
  /** `leader_election_master_status{name}`: 1 while leading, else 0. */
  leaderElectionMasterStatus: { set(labels: { name: string }, value: number): void };
}

/** Construction options of {@link LeaderElector}. */
export interface LeaderElectorOptions extends LeaderElectionDurations {
  /** Where the Lease lives. */
  lock: LeaseLock;
  /** This candidate's name in `holderIdentity` (default {@link defaultIdentity}). */
  identity?: string;
  /** Election name for the `leader_election_master_status{name}` metric (default: the lock's description). */
  name?: string;
  /** Time source (default the wall clock); tests pass a VirtualClock. */
  clock?: Clock;
  /** Random source in [0, 1) for retry jitter (tests pass a seeded one). */
  random?: () => number;
  /**
   * Clear the holder when stopped while leading (client-go ReleaseOnCancel). Default true. A function is asked at
   * the moment of release: the shard ring declines when a bucket's in-flight work did not drain, so the Lease
   * expires instead and the successor waits a full lease duration (runtime/shard/shard_ring.ts).
   */
  releaseOnCancel?: boolean | (() => boolean);
  /**
   * A record of this Lease already observed by the caller on the same clock, and the monotonic time it was first
   * seen unchanged: the elector's expiry wait counts from then instead of from its own first read (the shard ring
   * observes every bucket's Lease before it starts an elector for one).
   */
  initialObservation?: { record: LeaseRecord; atMonotonic: number };
  /**
   * While campaigning, also watch the Lease (when the lock can: {@link LeaseLock.watch}) and try at once when it is
   * released or deleted, instead of at the next jittered poll: a graceful handover then takes one round trip rather
   * than up to 2.2 retry periods (client-go only polls). Polling continues alongside; without the `watch` verb on
   * leases the watch is dropped after its first refusal. Default false (the Manager turns it on for its Lease).
   */
  watchForRelease?: boolean;
  /** Where `leader_election_master_status` is reported. */
  metrics?: LeaderMetrics;
  /** Parent logger (default `kubeop.leader-election`). */
  logger?: Logger;
  /** Called when this candidate becomes leader; `signal` aborts when leadership ends for any reason. */
  onStartedLeading?(signal: AbortSignal): void;
  /** Called once when leadership ends (lost or stopped), after `onStartedLeading`'s signal aborted. */
  onStoppedLeading?(): void;
  /** Called whenever the observed holder changes to a new non-empty identity (including this one). */
  onNewLeader?(identity: string): void;
}

/** How {@link LeaderElector.run} ended. */
export type LeaderElectionOutcome =
  /** Stopped before ever leading. */
  | "stopped"
  /** Stopped while leading; the Lease was released (or release was attempted, when enabled). */
  | "released"
  /** Renewal failed for longer than the renew deadline. */
  | "lost";

/** Raised by the manager (and used as the abort reason of the leading signal) when leadership is lost. */
export class LeadershipLostError extends Error {
  /** The Lease (its id or `namespace/name`). */
  readonly lease: string;
  /** This replica's holder identity. */
  readonly identity: string;

  /** Says which replica lost which Lease. */
  constructor(lease: string, identity: string) {
    super(`leader election lost: ${identity} could not renew lease ${lease} within the renew deadline`);
    this.name = "LeadershipLostError";
    this.lease = lease;
    this.identity = identity;
  }
}

/**
 * Checks `lease > renewDeadline > 1.2 × retryPeriod` (client-go's NewLeaderElector rules) and fills defaults.
 * Throws a RangeError naming the offending values.
 */
export function validateLeaderElectionDurations(d: LeaderElectionDurations): Required<LeaderElectionDurations> {
  const leaseSeconds = d.leaseSeconds ?? 15;
  const renewDeadlineSeconds = d.renewDeadlineSeconds ?? 10;
  const retryPeriodSeconds = d.retryPeriodSeconds ?? 2;
  for (const [name, v] of Object.entries({ leaseSeconds, renewDeadlineSeconds, retryPeriodSeconds })) {
    if (!Number.isFinite(v) || v <= 0) throw new RangeError(`leader election: ${name} must be > 0, got ${v}`);
  }
  if (!(leaseSeconds > renewDeadlineSeconds)) {
    throw new RangeError(
      `leader election: leaseSeconds (${leaseSeconds}) must be greater than renewDeadlineSeconds ` +
        `(${renewDeadlineSeconds})`,
    );
  }
  if (!(renewDeadlineSeconds > JITTER_FACTOR * retryPeriodSeconds)) {
    throw new RangeError(
      `leader election: renewDeadlineSeconds (${renewDeadlineSeconds}) must be greater than ` +
        `${JITTER_FACTOR} × retryPeriodSeconds (${retryPeriodSeconds})`,
    );
  }
  return { leaseSeconds, renewDeadlineSeconds, retryPeriodSeconds };
}

/** `hostname_uuid`, unique per process (client-go convention for controller-runtime managers). */
export function defaultIdentity(): string {
  let host = "kubeop";
  try {
    host = Deno.hostname();
  } catch {
    // no --allow-sys: the uuid alone keeps identities unique
  }
  return `${host}_${crypto.randomUUID()}`;
}

/** metav1.MicroTime: RFC 3339 with microsecond precision. */
export function microTime(ms: number): string {
  return new Date(ms).toISOString().replace(/\.(\d{3})Z$/, ".$1000Z");
}

/** Resolves with `fallback` as soon as `signal` aborts, else with `promise`'s value. */
function unlessAborted<T>(promise: Promise<T>, signal: AbortSignal, fallback: T): Promise<T> {
  if (signal.aborted) return Promise.resolve(fallback);
  return new Promise<T>((resolve) => {
    const onAbort = () => resolve(fallback);
    signal.addEventListener("abort", onAbort, { once: true });
    promise.then((v) => {
      signal.removeEventListener("abort", onAbort);
      resolve(v);
    });
  });
}

/**
 * One candidate in a Lease election.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { VirtualClock } from "../clock.ts";
 * import { MemoryLeaseStore } from "./lease_lock.ts";
 * import { LeaderElector } from "./leader.ts";
 * const clock = new VirtualClock();
 * const store = new MemoryLeaseStore();
 * const stop = new AbortController();
 * let leading = false;
 * const elector = new LeaderElector({
 *   lock: store.lock(), identity: "a", clock, onStartedLeading: () => leading = true,
 * });
 * const done = elector.run(stop.signal);
 * await clock.advance(100);
 * assert.equal(leading, true);
 * assert.equal(store.current?.spec.holderIdentity, "a");
 * stop.abort();
 * assert.equal(await done, "released");
 * assert.equal(store.current?.spec.holderIdentity, "");
 * ```
 */
export class LeaderElector {
  /** This candidate's identity. */
  readonly identity: string;
  /** Open while this candidate leads and its last successful renew was sent less than a renew deadline ago. */
  readonly fence: LeaderFence;
  readonly #opts: LeaderElectorOptions;
  readonly #clock: Clock;
  readonly #log: Logger;
  readonly #leaseMs: number;
  readonly #renewMs: number;
  readonly #retryMs: number;
  readonly #name: string;
  #running = false;
  #leading = false;
  /** The last record seen (by get or by our own write) and the local monotonic time it was first seen. */
  #observed: LeaseRecord | undefined;
  #observedAt = 0;
  #reportedLeader = "";
  #inflight: Promise<number | undefined> = Promise.resolve(undefined);
  #failures = 0;

  /** Validates the durations (RangeError) and prepares the candidate; nothing happens until {@link LeaderElector.run}. */
  constructor(opts: LeaderElectorOptions) {
    const d = validateLeaderElectionDurations(opts);
    this.#opts = opts;
    this.identity = opts.identity ?? defaultIdentity();
    if (!this.identity) throw new RangeError("leader election: identity must not be empty");
    this.#clock = opts.clock ?? new RealClock();
    this.#log = opts.logger ?? kubeopLogger("leader-election");
    this.#leaseMs = d.leaseSeconds * 1000;
    this.#renewMs = d.renewDeadlineSeconds * 1000;
    this.#retryMs = d.retryPeriodSeconds * 1000;
    this.#name = opts.name ?? opts.lock.describe();
    this.fence = new LeaderFence({
      clock: this.#clock,
      renewDeadlineMs: this.#renewMs,
      lease: this.#name,
      identity: this.identity,
    });
    if (opts.initialObservation) {
      this.#observed = opts.initialObservation.record;
      this.#observedAt = opts.initialObservation.atMonotonic;
      this.#reportedLeader = opts.initialObservation.record.spec.holderIdentity ?? "";
    }
  }

  /** True between `onStartedLeading` and `onStoppedLeading`. */
  isLeader(): boolean {
    return this.#leading;
  }

  /** The holder identity last observed on the Lease ("" when none). */
  get observedLeader(): string {
    return this.#observed?.spec.holderIdentity ?? "";
  }

  /**
   * Campaigns until `signal` aborts or leadership is lost. Resolves (never rejects) with how it ended; when
   * stopped while leading and `releaseOnCancel` is on, the Lease is released before it resolves.
   */
  async run(signal: AbortSignal): Promise<LeaderElectionOutcome> {
    if (this.#running) throw new Error(`leader election ${this.#name}: run() called twice`);
    this.#running = true;
    this.#setMasterStatus(0);
    try {
      const acquiredAt = await this.#acquire(signal);
      if (acquiredAt === undefined) return "stopped";
      return await this.#lead(acquiredAt, signal);
    } finally {
      this.#setMasterStatus(0);
      this.#running = false;
    }
  }

  /** Polls (jittered) until the Lease is ours; returns the monotonic send time of the winning write. */
  async #acquire(signal: AbortSignal): Promise<number | undefined> {
    this.#log.info("attempting to acquire leader lease {lease} as {identity}", {
      lease: this.#name,
      identity: this.identity,
    });
    const watching = new AbortController();
    const wake = this.#opts.watchForRelease
      ? watchLeaseForRelease(
        { lock: this.#opts.lock, clock: this.#clock, retryMs: this.#retryMs, logger: this.#log },
        watching.signal,
      )
      : undefined;
    try {
      while (!signal.aborted) {
        if (wake) wake.released = false;
        const sentAt = await this.#attempt(signal);
        if (sentAt !== undefined) return sentAt;
        if (wake?.released) continue; // released while we were asking: try again at once
        const waitMs = this.#retryMs * (1 + (this.#opts.random ?? Math.random)() * JITTER_FACTOR);
        const nap = new AbortController();
        if (wake) wake.nap = nap;
        try {
          await this.#clock.sleep(waitMs, AbortSignal.any([signal, nap.signal]));
        } catch {
          if (signal.aborted) return undefined;
        } finally {
          if (wake) wake.nap = undefined;
        }
      }
      return undefined;
    } finally {
      watching.abort();
    }
  }

  /** Leads: renews every retry period until stopped, or until no renewal succeeded for the renew deadline. */
  async #lead(acquiredAt: number, signal: AbortSignal): Promise<LeaderElectionOutcome> {
    this.#leading = true;
    this.#setMasterStatus(1);
    this.#log.info("became leader of lease {lease} as {identity}", { lease: this.#name, identity: this.identity });
    const leading = new AbortController();
    this.fence.open(acquiredAt);
    try {
      this.#opts.onStartedLeading?.(leading.signal);
    } catch (err) {
      this.#log.error("onStartedLeading failed: {error}", { error: String(err) });
    }

    const loop = new AbortController();
    let lost = false;
    let lastRenew = acquiredAt;
    let cancelDeadline = () => {};
    // The deadline counts from the SEND time of the last successful write: others observe that write no earlier,
    // and wait a full lease duration from their observation, so we stop strictly before anyone may take over. The
    // fence refuses writes from the same instant, even when this timer fires late (a paused process).
    const armDeadline = () => {
      cancelDeadline();
      cancelDeadline = this.#clock.setTimer(lastRenew + this.#renewMs - this.#clock.nowMonotonic(), () => {
        lost = !signal.aborted;
        if (lost) this.fence.close(new LeadershipLostError(this.#name, this.identity));
        loop.abort();
      });
    };
    const onStop = () => loop.abort();
    signal.addEventListener("abort", onStop, { once: true });
    if (signal.aborted) loop.abort();
    armDeadline();
    try {
      while (!loop.signal.aborted) {
        try {
          await this.#clock.sleep(this.#retryMs, loop.signal);
        } catch {
          break;
        }
        const sentAt = await unlessAborted(this.#attempt(loop.signal), loop.signal, undefined);
        if (sentAt !== undefined) {
          lastRenew = sentAt;
          this.fence.renewed(sentAt);
          armDeadline();
        }
      }
    } finally {
      cancelDeadline();
      signal.removeEventListener("abort", onStop);
    }

    this.#leading = false;
    this.#setMasterStatus(0);
    const ended = lost ? new LeadershipLostError(this.#name, this.identity) : signal.reason;
    this.fence.close(ended);
    leading.abort(ended);
    try {
      this.#opts.onStoppedLeading?.();
    } catch (err) {
      this.#log.error("onStoppedLeading failed: {error}", { error: String(err) });
    }
    if (lost) {
      this.#log.error("lost leadership of lease {lease}: no renewal within {renewDeadlineSeconds}s", {
        lease: this.#name,
        renewDeadlineSeconds: this.#renewMs / 1000,
      });
      return "lost";
    }
    const release = this.#opts.releaseOnCancel ?? true;
    if (typeof release === "function" ? release() : release) {
      await this.#inflight; // a renewal racing the release would make the release conflict
      await this.#release();
    }
    return "released";
  }

  /** One tryAcquireOrRenew (the monotonic send time of its successful write, else undefined); release waits for it. */
  #attempt(signal: AbortSignal): Promise<number | undefined> {
    const p = this.#tryAcquireOrRenew(signal);
    this.#inflight = p;
    return p;
  }

  async #tryAcquireOrRenew(signal: AbortSignal): Promise<number | undefined> {
    const now = this.#clock.now(); // wall time: only written into the Lease for humans and other tools
    const desired: LeaseSpec = {
      holderIdentity: this.identity,
      leaseDurationSeconds: this.#leaseMs / 1000,
      acquireTime: microTime(now),
      renewTime: microTime(now),
      leaseTransitions: 0,
    };
    let current: LeaseRecord | undefined;
    try {
      current = await this.#opts.lock.get(signal);
    } catch (err) {
      this.#attemptFailed("get", err);
      return undefined;
    }
    if (!current) {
      try {
        const sentAt = this.#clock.nowMonotonic();
        this.#observe(await this.#opts.lock.create(desired, signal));
        this.#failures = 0;
        return sentAt;
      } catch (err) {
        this.#attemptFailed("create", err);
        return undefined;
      }
    }
    this.#observe(current);
    const holder = current.spec.holderIdentity ?? "";
    const leaseMs = (current.spec.leaseDurationSeconds ?? this.#leaseMs / 1000) * 1000;
    if (holder !== "" && holder !== this.identity && this.#observedAt + leaseMs > this.#clock.nowMonotonic()) {
      return undefined; // held by someone else, and not seen unchanged for a whole lease duration yet
    }
    if (holder === this.identity) {
      desired.acquireTime = current.spec.acquireTime ?? desired.acquireTime;
      desired.leaseTransitions = current.spec.leaseTransitions ?? 0;
    } else {
      desired.leaseTransitions = (current.spec.leaseTransitions ?? 0) + 1;
    }
    try {
      const sentAt = this.#clock.nowMonotonic();
      this.#observe(await this.#opts.lock.update(desired, current.rv, signal));
      this.#failures = 0;
      return sentAt;
    } catch (err) {
      this.#attemptFailed("update", err);
      return undefined;
    }
  }

  /**
   * A failed lock call. Conflicts are the normal outcome of a race and stay at debug; anything else (RBAC, network)
   * is a warning on the first failure and every tenth after, so a replica that can never campaign says why.
   */
  #attemptFailed(verb: string, err: unknown): void {
    const props = { verb, lease: this.#name, error: String(err) };
    if (isConflict(err) || isAlreadyExists(err)) {
      this.#log.debug("{verb} lease {lease} lost a race: {error}", props);
      return;
    }
    if (this.#failures++ % 10 === 0) this.#log.warn("{verb} lease {lease} failed: {error}", props);
    else this.#log.debug("{verb} lease {lease} failed: {error}", props);
  }

  /** Notes `record`; the observation time moves only when the record changed (local monotonic time, never the server's). */
  #observe(record: LeaseRecord): void {
    const prev = this.#observed;
    const changed = !prev || prev.rv !== record.rv || prev.spec.holderIdentity !== record.spec.holderIdentity ||
      prev.spec.renewTime !== record.spec.renewTime;
    if (!changed) return;
    this.#observed = record;
    this.#observedAt = this.#clock.nowMonotonic();
    const holder = record.spec.holderIdentity ?? "";
    if (holder && holder !== this.#reportedLeader) {
      this.#reportedLeader = holder;
      if (holder !== this.identity) {
        this.#log.info("new leader of lease {lease}: {holder}", { lease: this.#name, holder });
      }
      try {
        this.#opts.onNewLeader?.(holder);
      } catch (err) {
        this.#log.error("onNewLeader failed: {error}", { error: String(err) });
      }
    }
  }

  /** Clears the holder (leaseDurationSeconds 1) if we still hold the Lease; errors are logged, not thrown. */
  async #release(): Promise<void> {
    const timeout = new AbortController();
    // Bounded tightly: drain (≤ 25 s) + release must fit in a pod's 30 s termination grace period.
    const cancel = this.#clock.setTimer(Math.min(this.#renewMs, RELEASE_TIMEOUT_MS), () => timeout.abort());
    try {
      const current = await this.#opts.lock.get(timeout.signal);
      if (!current || current.spec.holderIdentity !== this.identity) return;
      const now = microTime(this.#clock.now());
      const released: LeaseSpec = {
        holderIdentity: "",
        leaseDurationSeconds: 1,
        acquireTime: now,
        renewTime: now,
        leaseTransitions: current.spec.leaseTransitions ?? 0,
      };
      this.#observe(await this.#opts.lock.update(released, current.rv, timeout.signal));
      this.#log.info("released leader lease {lease}", { lease: this.#name });
    } catch (err) {
      this.#log.warn("failed to release lease {lease}: {error}", { lease: this.#name, error: String(err) });
    } finally {
      cancel();
    }
  }

  #setMasterStatus(v: number): void {
    this.#opts.metrics?.leaderElectionMasterStatus.set({ name: this.#name }, v);
  }
}
