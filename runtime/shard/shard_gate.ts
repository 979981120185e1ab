/**
 * The shard gate: the only door between a controller's queue and its reconcile when sharding is on. A key is
 * dispatched only when the uid it names lies in a bucket this replica holds, has synced, and is not handing over;
 * the dispatch takes a {@link ShardTicket} that counts the reconcile as in flight for its bucket and carries that
 * bucket's write fence. Handing a bucket over first stops admissions, then waits for the in-flight tickets to end
 * ({@link ShardGate.drain}); only then does the ring release the bucket's Lease.
 *
 * Bucket states: absent (not held) → `syncing` (Lease held, caches for its range not yet synced) → `active`
 * (admitting) → `draining` (handing over) → absent.
 * @module
 */

import { bucketOf, shardHash } from "../apimachinery/shard_selector.ts";
import type { Clock } from "../clock.ts";
import type { WriteFence } from "../leader/write_fence.ts";

/** The right to reconcile one uid now, on this replica. */
export interface ShardTicket {
  /** The uid's bucket. */
  readonly bucket: number;
  /** The uid the reconcile was dispatched for (writes to the For object are made conditional on it). */
  readonly uid: string;
  /** The bucket's fence: writes leave only while this replica provably holds the bucket. */
  readonly fence: WriteFence;
  /** Ends the reconcile's claim (idempotent); a draining bucket is released once every ticket ended. */
  done(): void;
}

/** What a controller asks of the ring. */
export interface ShardAdmission {
  /** Number of buckets in the ring. */
  readonly buckets: number;
  /** A ticket when `uid`'s bucket is active here and its fence open; undefined means "not ours: drop the key". */
  admit(uid: string): ShardTicket | undefined;
  /** Calls `fn` with buckets that became active (their cached keys must be queued); returns the unsubscribe. */
  onActivated(fn: (buckets: number[]) => void): () => void;
  /** The bucket of a uid (FNV-1a 64 of the uid, as kube-apiserver hashes `object.metadata.uid`). */
  bucketOfUid(uid: string): number;
}

type BucketState = { phase: "syncing" | "active" | "draining"; fence: WriteFence };

/**
 * Per-bucket admission and in-flight accounting, shared by every controller of a replica.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { VirtualClock } from "../clock.ts";
 * import { ShardGate } from "./shard_gate.ts";
 * const gate = new ShardGate({ buckets: 1, clock: new VirtualClock() });
 * const fence = { check() {}, signal: new AbortController().signal };
 * gate.hold(0, fence);
 * assert.equal(gate.admit("uid-1"), undefined); // held but not synced yet
 * gate.activate(0);
 * const ticket = gate.admit("uid-1")!;
 * const drained = gate.drain(0, 1_000);
 * assert.equal(gate.admit("uid-2"), undefined); // handing over: no new work
 * ticket.done();
 * assert.equal(await drained, true);
 * ```
 */
export class ShardGate implements ShardAdmission {
  /** Number of buckets in the ring. */
  readonly buckets: number;
  readonly #clock: Clock;
  readonly #states = new Map<number, BucketState>();
  readonly #activated = new Set<(buckets: number[]) => void>();
  /**
   * In-flight tickets per bucket, across terms: a bucket lost with work in flight and won again keeps counting the
   * old term's tickets, so its next handover still waits for them (their writes may still be on the wire).
   */
  readonly #inflight = new Map<number, number>();
  /** Who waits for a bucket's in-flight count to reach 0. */
  readonly #drainWaiters = new Map<number, Set<() => void>>();
  readonly #hashes = new Map<string, number>();

  /** A gate over `buckets` buckets, none held. */
  constructor(opts: { buckets: number; clock: Clock }) {
    this.buckets = opts.buckets;
    this.#clock = opts.clock;
  }

  bucketOfUid(uid: string): number {
    let b = this.#hashes.get(uid);
    if (b === undefined) {
      b = bucketOf(shardHash(uid), this.buckets);
      if (this.#hashes.size > 100_000) this.#hashes.clear();
      this.#hashes.set(uid, b);
    }
    return b;
  }

  /** Buckets whose Lease this replica holds (any phase). */
  held(): number[] {
    return [...this.#states.keys()].sort((a, b) => a - b);
  }

  /** Buckets admitting work. */
  active(): number[] {
    return [...this.#states].filter(([, s]) => s.phase === "active").map(([b]) => b).sort((a, b) => a - b);
  }

  /** Buckets held but not yet admitting (their range is syncing). */
  syncing(): number[] {
    return [...this.#states].filter(([, s]) => s.phase === "syncing").map(([b]) => b).sort((a, b) => a - b);
  }

  /** In-flight reconciles of bucket `b` (of this and earlier terms). */
  inflight(b: number): number {
    return this.#inflight.get(b) ?? 0;
  }

  /** The Lease of bucket `b` was acquired: its fence guards writes, but nothing is admitted until {@link activate}. */
  hold(b: number, fence: WriteFence): void {
    this.#states.set(b, { phase: "syncing", fence });
  }

  /** Bucket `b`'s range has synced: admit its keys and tell the controllers to queue them. */
  activate(b: number): void {
    const s = this.#states.get(b);
    if (!s || s.phase !== "syncing") return;
    s.phase = "active";
    for (const fn of this.#activated) fn([b]);
  }

  /**
   * Stops admitting bucket `b`'s keys and waits until its in-flight reconciles ended, or `timeoutMs` passed. True
   * when drained; false when work was still running at the deadline (the ring then lets the Lease expire instead of
   * releasing it, so the successor waits a full lease duration, which the fence covers).
   */
  drain(b: number, timeoutMs: number): Promise<boolean> {
    const s = this.#states.get(b);
    if (s) s.phase = "draining";
    if (this.inflight(b) === 0) return Promise.resolve(true);
    return new Promise((resolve) => {
      let waiters = this.#drainWaiters.get(b);
      if (!waiters) this.#drainWaiters.set(b, waiters = new Set());
      const drained = () => {
        cancel();
        resolve(true);
      };
      const cancel = this.#clock.setTimer(timeoutMs, () => {
        waiters.delete(drained);
        resolve(false);
      });
      waiters.add(drained);
    });
  }

  /** Bucket `b` is no longer held (released or lost). Its in-flight tickets keep counting; their fence is shut. */
  drop(b: number): void {
    this.#states.delete(b);
  }

  admit(uid: string): ShardTicket | undefined {
    const bucket = this.bucketOfUid(uid);
    const s = this.#states.get(bucket);
    if (!s || s.phase !== "active") return undefined;
    try {
      s.fence.check({ verb: "reconcile", resource: "shard", name: uid });
    } catch {
      return undefined;
    }
    this.#inflight.set(bucket, this.inflight(bucket) + 1);
    let ended = false;
    return {
      bucket,
      uid,
      fence: s.fence,
      done: () => {
        if (ended) return;
        ended = true;
        const left = this.inflight(bucket) - 1;
        if (left > 0) return void this.#inflight.set(bucket, left);
        this.#inflight.delete(bucket);
        const waiters = this.#drainWaiters.get(bucket);
        this.#drainWaiters.delete(bucket);
        for (const fn of waiters ?? []) fn();
      },
    };
  }

  onActivated(fn: (buckets: number[]) => void): () => void {
    this.#activated.add(fn);
    return () => this.#activated.delete(fn);
  }
}
