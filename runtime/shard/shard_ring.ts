/**
 * The shard ring (docs/sharding.md): the uid hash space split into B buckets, each guarded by its own Lease and won,
 * renewed and fenced by an ordinary {@link LeaderElector} — knative's bucketed leader election. Each replica
 * announces itself with a member Lease (also kept by an elector), lists the ring every retry period, computes the
 * same targets as everyone else ({@link shardTarget}: ceil/floor(B/N) of the N live members) and
 *
 * - campaigns for free or expired buckets while it holds fewer than its target (the elector's expiry wait counts from
 *   the ring's own first sight of the unchanged Lease, on this replica's monotonic clock);
 * - hands surplus buckets over: stop admitting their keys, drain their in-flight reconciles (bounded), then release
 *   the Lease — or, when work is still running at the deadline, stop renewing and let it expire, so the successor
 *   waits a full lease duration, which the bucket's fence covers;
 * - on winning a bucket, asks `onBucketsChanged(heldRanges)` (the informers restart with the new shard selector and
 *   sync) before the bucket admits work.
 *
 * A bucket's writes pass only through its elector's {@link LeaderFence}: now < last successful renew's send time +
 * renew deadline, on the monotonic clock, exactly as for the leader Lease.
 * @module
 */

import { bucketRanges, type ShardRange } from "../apimachinery/shard_selector.ts";
import { type Clock, RealClock } from "../clock.ts";
import {
  defaultIdentity,
  JITTER_FACTOR,
  type LeaderElectionDurations,
  type LeaderElectionOutcome,
  LeaderElector,
  validateLeaderElectionDurations,
} from "../leader/leader.ts";
import type { LeaseRecord } from "../leader/lease_lock.ts";
import { kubeopLogger, type Logger } from "../observe/log.ts";
import { ShardGate } from "./shard_gate.ts";
import { bucketLeaseName, type LeaseDirectory, memberLeaseName } from "./shard_leases.ts";
import { planShards, preferredBuckets, shardTarget } from "./shard_plan.ts";

/** A member Lease unchanged for this many lease durations belongs to a crashed replica and is deleted. */
export const DEAD_MEMBER_LEASES = 10;

/** Default number of buckets (`--shard-buckets`). */
export const DEFAULT_SHARD_BUCKETS = 16;

/** The subset of runtime/shard/shard_metrics.ts the ring updates. */
export interface ShardRingMetrics {
  /** kubeop_shard_members{ring}. */
  shardMembers: { set(labels: { ring: string }, value: number): void };
  /** kubeop_shard_buckets_held{ring}. */
  shardBucketsHeld: { set(labels: { ring: string }, value: number): void };
  /** kubeop_shard_handoffs_total{ring,kind}: acquired, released, expired (drain timed out), lost (renew failed). */
  shardHandoffs: { inc(labels: { ring: string; kind: string }): void };
}

/** Construction options of {@link ShardRing}. */
export interface ShardRingOptions extends LeaderElectionDurations {
  /** Where the ring's Leases live. */
  directory: LeaseDirectory;
  /** The ring's name: Lease name prefix and label value. */
  ring: string;
  /** Number of buckets (default {@link DEFAULT_SHARD_BUCKETS}); every replica must agree. */
  buckets?: number;
  /** This replica's identity (default {@link defaultIdentity}). */
  identity?: string;
  /** Time source. */
  clock?: Clock;
  /** Random source in [0, 1) for jitter. */
  random?: () => number;
  /** Longest wait for a bucket's in-flight reconciles when handing it over (default half the renew deadline). */
  drainTimeoutMs?: number;
  /** Where the shard gauges go. */
  metrics?: ShardRingMetrics;
  /** Parent logger (default `kubeop.shard`). */
  logger?: Logger;
  /**
   * Called with the ranges of every held bucket whenever that set changes; a gained bucket admits work only after
   * a call that includes it resolved (the informers restart with the new selector and sync). A rejection is logged
   * and retried on the next ring tick.
   */
  onBucketsChanged?(held: ShardRange[], signal: AbortSignal): Promise<void>;
}

interface BucketEntry {
  elector: LeaderElector;
  stop: AbortController;
  leading: boolean;
  releasing: boolean;
  /** In-flight tickets when leadership of the bucket ended: the Lease is released only when 0. */
  inflightAtEnd: number;
  /** Settles once the elector returned and the entry was removed. */
  done: Promise<void>;
}

/**
 * One replica's membership in a shard ring.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { VirtualClock } from "../clock.ts";
 * import { MemoryLeaseDirectory } from "./shard_leases.ts";
 * import { ShardRing } from "./shard_ring.ts";
 * const clock = new VirtualClock();
 * const leases = new MemoryLeaseDirectory();
 * const ring = new ShardRing({ directory: leases.directory(), ring: "kubeop", buckets: 4, identity: "a", clock });
 * const stop = new AbortController();
 * const done = ring.run(stop.signal);
 * await clock.advance(5_000);
 * assert.deepEqual(ring.gate.active(), [0, 1, 2, 3]); // alone: every bucket
 * stop.abort();
 * await done;
 * assert.equal(leases.current("kubeop-bucket-0")?.spec.holderIdentity, ""); // released
 * ```
 */
export class ShardRing {
  /** This replica's identity in the ring's Leases. */
  readonly identity: string;
  /** Number of buckets. */
  readonly buckets: number;
  /** The ring's name. */
  readonly ring: string;
  /** Admission and in-flight accounting for the controllers. */
  readonly gate: ShardGate;
  readonly #opts: ShardRingOptions;
  readonly #clock: Clock;
  readonly #random: () => number;
  readonly #log: Logger;
  readonly #durations: Required<LeaderElectionDurations>;
  readonly #entries = new Map<number, BucketEntry>();
  readonly #observed = new Map<string, { record: LeaseRecord; at: number }>();
  #members: string[] = [];
  #signal: AbortSignal = new AbortController().signal;
  #syncing = false;
  #resyncWanted = false;
  #listFailures = 0;

  /** Validates the durations and bucket count; nothing happens until {@link ShardRing.run}. */
  constructor(opts: ShardRingOptions) {
    this.#opts = opts;
    this.#durations = validateLeaderElectionDurations(opts);
    this.buckets = opts.buckets ?? DEFAULT_SHARD_BUCKETS;
    bucketRanges(this.buckets); // validates
    this.ring = opts.ring;
    this.identity = opts.identity ?? defaultIdentity();
    this.#clock = opts.clock ?? new RealClock();
    this.#random = opts.random ?? Math.random;
    this.#log = opts.logger ?? kubeopLogger("shard");
    this.gate = new ShardGate({ buckets: this.buckets, clock: this.#clock });
    this.#members = [this.identity];
  }

  /** Live members as last listed (this replica included). */
  get members(): readonly string[] {
    return this.#members;
  }

  /** The ranges of the buckets this replica holds. */
  heldRanges(): ShardRange[] {
    const ranges = bucketRanges(this.buckets);
    return this.gate.held().map((b) => ranges[b]);
  }

  /**
   * Takes part in the ring until `signal` aborts, then hands every bucket over (drain, release) and withdraws its
   * member Lease. Never rejects.
   */
  async run(signal: AbortSignal): Promise<void> {
    this.#signal = signal;
    const retryMs = this.#durations.retryPeriodSeconds * 1000;
    const memberStop = new AbortController();
    const member = this.#memberLoop(memberStop.signal);
    this.#log.info("joining shard ring {ring} ({buckets} buckets) as {identity}", {
      ring: this.ring,
      buckets: this.buckets,
      identity: this.identity,
    });
    while (!signal.aborted) {
      await this.#tick(signal);
      try {
        await this.#clock.sleep(retryMs * (1 + this.#random() * JITTER_FACTOR * 0.5), signal);
      } catch {
        break;
      }
    }
    await Promise.all([...this.#entries].map(([b, e]) => e.leading ? this.#handOver(b, e) : this.#abandon(e)));
    memberStop.abort();
    await member;
    try {
      await this.#opts.directory.remove(memberLeaseName(this.ring, this.identity));
    } catch (err) {
      this.#log.debug("could not remove member lease: {error}", { error: String(err) });
    }
    this.#setGauges();
    this.#log.info("left shard ring {ring}", { ring: this.ring });
  }

  /** Keeps the member Lease renewed (re-campaigning after a lost renew) until `signal` aborts. */
  async #memberLoop(signal: AbortSignal): Promise<void> {
    const elector = new LeaderElector({
      ...this.#durations,
      lock: this.#opts.directory.lock(memberLeaseName(this.ring, this.identity)),
      identity: this.identity,
      clock: this.#clock,
      random: this.#random,
      logger: this.#log.getChild("member"),
    });
    while (!signal.aborted) await elector.run(signal);
  }

  async #tick(signal: AbortSignal): Promise<void> {
    let leases;
    try {
      leases = await this.#opts.directory.list(signal);
    } catch (err) {
      const log = this.#listFailures++ % 10 === 0 ? this.#log.warn : this.#log.debug;
      log.call(this.#log, "listing shard ring {ring} failed: {error}", { ring: this.ring, error: String(err) });
      return;
    }
    if (signal.aborted) return;
    this.#listFailures = 0;
    const now = this.#clock.nowMonotonic();
    const listed = new Set<string>();
    for (const { name, record } of leases) {
      listed.add(name);
      const prev = this.#observed.get(name);
      const changed = !prev || prev.record.rv !== record.rv ||
        prev.record.spec.holderIdentity !== record.spec.holderIdentity ||
        prev.record.spec.renewTime !== record.spec.renewTime;
      if (changed) this.#observed.set(name, { record, at: now });
    }
    for (const name of [...this.#observed.keys()]) if (!listed.has(name)) this.#observed.delete(name);

    const memberPrefix = `${this.ring}-member-`;
    const members = new Set([this.identity]);
    for (const [name, o] of this.#observed) {
      const holder = o.record.spec.holderIdentity ?? "";
      if (name.startsWith(memberPrefix) && holder !== "" && !this.#expired(o, now)) members.add(holder);
    }
    this.#members = [...members].sort();
    if (this.#members[0] === this.identity) this.#collectDeadMembers(memberPrefix, now);

    const free = new Set<number>();
    for (let b = 0; b < this.buckets; b++) {
      // A bucket with an elector here (leading, campaigning, or still handing over) is never campaigned for again
      // until that elector returned: a second elector would renew the Lease we are draining and release it under us.
      const mine = this.#entries.get(b);
      if (mine && (mine.leading || mine.releasing)) continue;
      const o = this.#observed.get(bucketLeaseName(this.ring, b));
      const holder = o?.record.spec.holderIdentity ?? "";
      if (!o || holder === "" || holder === this.identity || this.#expired(o, now)) free.add(b);
    }
    const live = [...this.#entries].filter(([, e]) => !e.releasing);
    const plan = planShards({
      target: shardTarget(this.identity, this.#members, this.buckets),
      held: live.filter(([, e]) => e.leading).map(([b]) => b),
      campaigning: live.filter(([, e]) => !e.leading).map(([b]) => b),
      free,
      preference: preferredBuckets(this.identity, this.#members, this.buckets),
    });
    for (const b of plan.release) void this.#handOver(b, this.#entries.get(b)!);
    for (const b of plan.abandon) void this.#abandon(this.#entries.get(b)!);
    for (const b of plan.acquire) this.#campaign(b);
    if (this.gate.syncing().length > 0) void this.#syncHeld();
    this.#setGauges();
  }

  /**
   * The first live member deletes member Leases of crashed replicas (unchanged for {@link DEAD_MEMBER_LEASES} lease
   * durations), so restarts do not pile them up; best effort, retried next tick.
   */
  #collectDeadMembers(memberPrefix: string, now: number): void {
    for (const [name, o] of this.#observed) {
      if (!name.startsWith(memberPrefix) || o.record.spec.holderIdentity === this.identity) continue;
      const leaseMs = (o.record.spec.leaseDurationSeconds ?? this.#durations.leaseSeconds) * 1000;
      if (o.at + DEAD_MEMBER_LEASES * leaseMs > now) continue;
      this.#observed.delete(name);
      this.#opts.directory.remove(name, this.#signal).catch((err) => {
        this.#log.debug("could not delete dead member lease {name}: {error}", { name, error: String(err) });
      });
    }
  }

  #expired(o: { record: LeaseRecord; at: number }, now: number): boolean {
    const leaseMs = (o.record.spec.leaseDurationSeconds ?? this.#durations.leaseSeconds) * 1000;
    return o.at + leaseMs <= now;
  }

  /** Starts an elector for bucket `b`, seeded with the ring's own observation of its Lease. */
  #campaign(b: number): void {
    if (this.#entries.has(b)) return;
    const name = bucketLeaseName(this.ring, b);
    const seen = this.#observed.get(name);
    const entry: BucketEntry = {
      stop: new AbortController(),
      leading: false,
      releasing: false,
      inflightAtEnd: 0,
      elector: undefined as unknown as LeaderElector,
      done: Promise.resolve(),
    };
    entry.elector = new LeaderElector({
      ...this.#durations,
      lock: this.#opts.directory.lock(name),
      identity: this.identity,
      name,
      clock: this.#clock,
      random: this.#random,
      logger: this.#log.getChild("bucket"),
      initialObservation: seen && { record: seen.record, atMonotonic: seen.at },
      releaseOnCancel: () => entry.inflightAtEnd === 0,
      onStartedLeading: (leading) => this.#gained(b, entry, leading),
    });
    this.#entries.set(b, entry);
    entry.done = entry.elector.run(entry.stop.signal).then((outcome) => this.#ended(b, entry, outcome));
  }

  #gained(b: number, entry: BucketEntry, leading: AbortSignal): void {
    entry.leading = true;
    this.gate.hold(b, entry.elector.fence);
    this.#opts.metrics?.shardHandoffs.inc({ ring: this.ring, kind: "acquired" });
    this.#log.info("acquired shard bucket {bucket} of ring {ring}", { bucket: b, ring: this.ring });
    leading.addEventListener("abort", () => {
      entry.leading = false;
      entry.inflightAtEnd = this.gate.inflight(b);
      this.gate.drop(b);
      this.#setGauges();
    }, { once: true });
    this.#setGauges();
    void this.#syncHeld();
  }

  #ended(b: number, entry: BucketEntry, outcome: LeaderElectionOutcome): void {
    if (this.#entries.get(b) === entry) this.#entries.delete(b);
    if (outcome === "lost") {
      this.#opts.metrics?.shardHandoffs.inc({ ring: this.ring, kind: "lost" });
      this.#log.warn("lost shard bucket {bucket} of ring {ring}: no renewal within the renew deadline", {
        bucket: b,
        ring: this.ring,
      });
    }
    if (outcome !== "stopped") void this.#syncHeld();
    this.#setGauges();
  }

  /** Drain, then release (or, when the drain timed out, let the Lease expire). */
  async #handOver(b: number, entry: BucketEntry): Promise<void> {
    if (entry.releasing) return;
    entry.releasing = true;
    const timeoutMs = this.#opts.drainTimeoutMs ?? this.#durations.renewDeadlineSeconds * 500;
    const drained = await this.gate.drain(b, timeoutMs);
    if (!drained) {
      this.#log.warn("shard bucket {bucket}: reconciles still running after {timeoutMs} ms; letting its lease expire", {
        bucket: b,
        timeoutMs,
      });
    }
    entry.stop.abort();
    await entry.done;
    this.#opts.metrics?.shardHandoffs.inc({ ring: this.ring, kind: drained ? "released" : "expired" });
    this.#log.info("handed over shard bucket {bucket} of ring {ring}", { bucket: b, ring: this.ring });
  }

  async #abandon(entry: BucketEntry): Promise<void> {
    entry.releasing = true;
    entry.stop.abort();
    await entry.done;
  }

  /** Tells the informers the held ranges; activates the buckets that were syncing once that call resolved. */
  async #syncHeld(): Promise<void> {
    if (this.#signal.aborted) return; // leaving: nothing is admitted again, the caches are about to stop
    if (this.#syncing) {
      this.#resyncWanted = true;
      return;
    }
    this.#syncing = true;
    try {
      do {
        this.#resyncWanted = false;
        const pending = this.gate.syncing();
        try {
          await this.#opts.onBucketsChanged?.(this.heldRanges(), this.#signal);
        } catch (err) {
          if (this.#signal.aborted) return; // shutting down: the informers' waits were aborted, nothing to retry
          this.#log.warn("shard ring {ring}: syncing the held ranges failed (retrying next tick): {error}", {
            ring: this.ring,
            error: String(err),
          });
          return;
        }
        for (const b of pending) this.gate.activate(b);
      } while (this.#resyncWanted);
    } finally {
      this.#syncing = false;
      this.#setGauges();
    }
  }

  #setGauges(): void {
    const m = this.#opts.metrics;
    if (!m) return;
    m.shardMembers.set({ ring: this.ring }, this.#members.length);
    m.shardBucketsHeld.set({ ring: this.ring }, this.gate.held().length);
  }
}
