/**
 * The keyed work queue behind every controller, client-go's three layers composed in one place:
 * {@link KeySet} (dedup while queued, single-flight per key, two priorities with aging), {@link DelayHeap}
 * (`addAfter`, earliest wins) and a {@link RateLimiter} (`addRateLimited`, per-key exponential backoff).
 * {@link WorkQueue} adds async `get`, shutdown with drain, and metrics hooks.
 * @module
 */

import type { Clock } from "../clock.ts";
import { DelayHeap } from "./delay_heap.ts";
import { type InFlightProbe, noopQueueMetrics, type QueueMetricsHooks } from "./queue_metrics.ts";
import { ExponentialBackoffRateLimiter, type RateLimiter } from "./rate_limiter.ts";

/**
 * "high": live changes. "low": keys from an initial list or a resync; they yield to high, but once aged they take
 * turns with it (see {@link KeySetOptions.lowPriorityAgingMs}).
 */
export type Priority = "high" | "low";

/** Options for {@link KeySet}. */
export interface KeySetOptions {
  /**
   * A low-priority key is served as if it had been queued this much later than it was: once the oldest one has waited
   * longer than this beyond the oldest live change, the two take turns (one aged low key, one live change), so an
   * initial list or a resync is never starved and a live change never waits behind more than one low key per live
   * change ahead of it, however long the backlog. Default 1000 ms.
   */
  lowPriorityAgingMs?: number;
}

/** A FIFO of keys with lazy deletion (entries whose sequence number no longer matches are skipped). */
class Fifo {
  keys: string[] = [];
  seqs: number[] = [];
  head = 0;

  push(key: string, seq: number): void {
    this.keys.push(key);
    this.seqs.push(seq);
  }

  compact(): void {
    if (this.head > 1024 && this.head * 2 > this.keys.length) {
      this.keys = this.keys.slice(this.head);
      this.seqs = this.seqs.slice(this.head);
      this.head = 0;
    }
  }
}

interface Queued {
  priority: Priority;
  seq: number;
  /** When this key was queued (for aging and queue-latency metrics). */
  sinceMs: number;
}

/**
 * Deduplicating, single-flight key queue with two priorities: a key appears at most once; a key handed out by
 * {@link KeySet.pop} is not handed out again until {@link KeySet.done}; adds meanwhile are remembered and queued at
 * `done`. Synchronous and timer-free: the caller passes `nowMs`.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { KeySet } from "./queue.ts";
 * const set = new KeySet();
 * set.add("ns/a", "low", 0);
 * set.add("ns/b", "high", 0);
 * set.add("ns/b", "high", 0); // dedup
 * assert.ok(set.pop(0)?.key === "ns/b"); // live change first
 * set.add("ns/b", "high", 0); // while processing: deferred
 * assert.ok(set.pop(0)?.key === "ns/a" && set.pop(0) === undefined);
 * set.done("ns/b", 0); // now queued again
 * assert.ok(set.pop(0)?.key === "ns/b");
 * ```
 */
export class KeySet {
  /** How much later than queued a low-priority key is served (see {@link KeySetOptions}). */
  readonly lowPriorityAgingMs: number;
  #high = new Fifo();
  #low = new Fifo();
  #queued = new Map<string, Queued>();
  /** Keys handed out and not yet done → when they were handed out. */
  #processing = new Map<string, number>();
  /** Keys re-added while processing → the strongest priority asked for. */
  #dirty = new Map<string, Priority>();
  #seq = 0;
  /** The last pop handed out an aged low key while a live change waited: the next contested pop goes to the live one. */
  #lowTookTurn = false;

  /** An empty set. */
  constructor(opts: KeySetOptions = {}) {
    this.lowPriorityAgingMs = opts.lowPriorityAgingMs ?? 1000;
  }

  /** Keys waiting to be handed out. */
  get length(): number {
    return this.#queued.size;
  }

  /** Keys handed out and not yet done. */
  get processingCount(): number {
    return this.#processing.size;
  }

  /** Whether `key` is waiting. */
  isQueued(key: string): boolean {
    return this.#queued.has(key);
  }

  /** Whether `key` is handed out and not yet done. */
  isProcessing(key: string): boolean {
    return this.#processing.has(key);
  }

  /** Queues `key` (or raises its priority). Returns true when it became newly queued. */
  add(key: string, priority: Priority, nowMs: number): boolean {
    if (this.#processing.has(key)) {
      if (this.#dirty.get(key) !== "high") this.#dirty.set(key, priority);
      return false;
    }
    const existing = this.#queued.get(key);
    if (existing) {
      if (existing.priority === "low" && priority === "high") {
        existing.priority = "high";
        existing.seq = ++this.#seq;
        existing.sinceMs = nowMs;
        this.#high.push(key, existing.seq);
      }
      return false;
    }
    const seq = ++this.#seq;
    this.#queued.set(key, { priority, seq, sinceMs: nowMs });
    (priority === "high" ? this.#high : this.#low).push(key, seq);
    return true;
  }

  /** Hands out the next key (live changes first, aged low-priority keys in turn) and marks it processing. */
  pop(nowMs: number): { key: string; queuedMs: number } | undefined {
    const high = this.#peek(this.#high);
    const low = this.#peek(this.#low);
    let fifo: Fifo;
    if (high === undefined && low === undefined) return undefined;
    if (low === undefined) fifo = this.#high;
    else if (high === undefined) fifo = this.#low;
    else {
      const highSince = this.#queued.get(high)!.sinceMs;
      const lowSince = this.#queued.get(low)!.sinceMs;
      const aged = lowSince + this.lowPriorityAgingMs < highSince;
      fifo = aged && !this.#lowTookTurn ? this.#low : this.#high;
      this.#lowTookTurn = fifo === this.#low;
    }
    const key = fifo.keys[fifo.head];
    fifo.head++;
    fifo.compact();
    const entry = this.#queued.get(key)!;
    this.#queued.delete(key);
    this.#processing.set(key, nowMs);
    return { key, queuedMs: nowMs - entry.sinceMs };
  }

  /**
   * Marks `key` finished. If it was re-added meanwhile it is queued now (returns true). Returns the time it was
   * handed out via `startedMs` for work-duration metrics, or undefined when `key` was not processing.
   */
  done(key: string, nowMs: number): { requeued: boolean; startedMs: number } | undefined {
    const startedMs = this.#processing.get(key);
    if (startedMs === undefined) return undefined;
    this.#processing.delete(key);
    const again = this.#dirty.get(key);
    if (again === undefined) return { requeued: false, startedMs };
    this.#dirty.delete(key);
    this.add(key, again, nowMs);
    return { requeued: true, startedMs };
  }

  /** Drops every queued (not processing) key and every deferred re-add. */
  clearQueued(): void {
    this.#queued.clear();
    this.#dirty.clear();
    this.#high = new Fifo();
    this.#low = new Fifo();
  }

  /** Start times of keys in flight. */
  processingStarts(): IterableIterator<number> {
    return this.#processing.values();
  }

  #peek(fifo: Fifo): string | undefined {
    while (fifo.head < fifo.keys.length) {
      const key = fifo.keys[fifo.head];
      if (this.#queued.get(key)?.seq === fifo.seqs[fifo.head]) return key;
      fifo.head++;
    }
    if (fifo.head > 0) {
      fifo.keys = [];
      fifo.seqs = [];
      fifo.head = 0;
    }
    return undefined;
  }
}

/** Options for {@link WorkQueue}. */
export interface WorkQueueOptions extends KeySetOptions {
  /** Time source for delays, backoff and metrics. */
  clock: Clock;
  /** Used by `addRateLimited`. Default per-key exponential 5 ms · 2^n capped at `maxDelayMs`. */
  rateLimiter?: RateLimiter;
  /** Cap for the default rate limiter. Default 1 000 000 ms. */
  maxDelayMs?: number;
  /** Base delay for the default rate limiter. Default 5 ms. */
  baseDelayMs?: number;
  /** Metrics hooks (see {@link Metrics.queueHooks}). */
  metrics?: QueueMetricsHooks;
}

/**
 * A keyed work queue: dedup, single-flight per key, delayed and rate-limited adds, fair priorities, drain on shutdown.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { WorkQueue } from "./queue.ts";
 * import { VirtualClock } from "../clock.ts";
 * const clock = new VirtualClock(0);
 * const queue = new WorkQueue({ clock });
 * queue.addRateLimited("ns/a"); // due in 5 ms
 * const next = queue.get();
 * await clock.advance(5);
 * assert.ok((await next) === "ns/a");
 * queue.forget("ns/a");
 * queue.done("ns/a");
 * await queue.shutdown({ drain: true });
 * ```
 */
export class WorkQueue implements InFlightProbe {
  readonly #clock: Clock;
  readonly #set: KeySet;
  readonly #delayed = new DelayHeap<Priority>();
  readonly #limiter: RateLimiter;
  readonly #metrics: QueueMetricsHooks;
  #waiters: ((key: string | undefined) => void)[] = [];
  #timerDueMs = Infinity;
  #cancelTimer: (() => void) | undefined;
  #closed = false;
  #drained: (() => void) | undefined;

  /** An empty queue; attaches itself to the metrics hooks for in-flight gauges. */
  constructor(opts: WorkQueueOptions) {
    this.#clock = opts.clock;
    this.#set = new KeySet(opts);
    this.#limiter = opts.rateLimiter ??
      new ExponentialBackoffRateLimiter({ baseDelayMs: opts.baseDelayMs, maxDelayMs: opts.maxDelayMs });
    this.#metrics = opts.metrics ?? noopQueueMetrics;
    this.#metrics.attach(this);
  }

  /** Keys waiting to be handed out (not counting delayed ones). */
  get length(): number {
    return this.#set.length;
  }

  /** Keys waiting for their delay to pass. */
  get delayedCount(): number {
    return this.#delayed.size;
  }

  /** Keys handed out and not yet done. */
  get processingCount(): number {
    return this.#set.processingCount;
  }

  /** True once {@link WorkQueue.shutdown} was called. */
  get shuttingDown(): boolean {
    return this.#closed;
  }

  /** Queues `key` now. Ignored after shutdown. */
  add(key: string, priority: Priority = "high"): void {
    if (this.#closed) return;
    this.#metrics.add();
    if (this.#set.add(key, priority, this.#clock.now())) {
      this.#metrics.depth(this.#set.length);
      this.#dispatch();
    }
  }

  /** Queues `key` after `delayMs`; when already waiting, the earlier time wins. */
  addAfter(key: string, delayMs: number, priority: Priority = "high"): void {
    if (this.#closed) return;
    if (!(delayMs > 0)) return this.add(key, priority);
    const dueMs = this.#clock.now() + delayMs;
    if (this.#delayed.push(key, dueMs, priority)) this.#armTimer();
  }

  /** Queues `key` after the rate limiter's delay (one more failure for it). */
  addRateLimited(key: string, priority: Priority = "high"): void {
    if (this.#closed) return;
    this.#metrics.retry();
    this.addAfter(key, this.#limiter.when(key), priority);
  }

  /** Resets `key`'s backoff (call after it succeeded). */
  forget(key: string): void {
    this.#limiter.forget(key);
  }

  /** How many rate-limited re-adds `key` has had since it was last forgotten. */
  numRequeues(key: string): number {
    return this.#limiter.numRequeues(key);
  }

  /** The next key if one is ready now, else undefined. The caller must call {@link WorkQueue.done} with it. */
  tryGet(): string | undefined {
    if (this.#closed) return undefined;
    return this.#take();
  }

  /** Waits for the next key; resolves undefined once shut down or when `signal` aborts. */
  get(signal?: AbortSignal): Promise<string | undefined> {
    if (this.#closed || signal?.aborted) return Promise.resolve(undefined);
    const key = this.#take();
    if (key !== undefined) return Promise.resolve(key);
    return new Promise((resolve) => {
      if (!signal) return void this.#waiters.push(resolve);
      const onAbort = () => {
        const i = this.#waiters.indexOf(waiter);
        if (i >= 0) this.#waiters.splice(i, 1);
        resolve(undefined);
      };
      const waiter = (key: string | undefined) => {
        signal.removeEventListener("abort", onAbort);
        resolve(key);
      };
      signal.addEventListener("abort", onAbort, { once: true });
      this.#waiters.push(waiter);
    });
  }

  /** Marks `key` finished; a re-add that arrived while it was processing is queued now. */
  done(key: string): void {
    const now = this.#clock.now();
    const result = this.#set.done(key, now);
    if (!result) return;
    this.#metrics.workDuration((now - result.startedMs) / 1000);
    if (this.#closed) {
      if (this.#set.processingCount === 0) this.#drained?.();
      return;
    }
    if (result.requeued) {
      this.#metrics.depth(this.#set.length);
      this.#dispatch();
    }
  }

  /**
   * Stops intake: adds are ignored, waiting and future `get`s resolve undefined, queued and delayed keys are dropped.
   * With `drain`, resolves once every key handed out has been marked done.
   */
  shutdown(opts: { drain?: boolean } = {}): Promise<void> {
    if (!this.#closed) {
      this.#closed = true;
      this.#cancelTimer?.();
      this.#cancelTimer = undefined;
      this.#delayed.clear();
      this.#set.clearQueued();
      this.#metrics.depth(0);
      for (const waiter of this.#waiters.splice(0)) waiter(undefined);
    }
    if (!opts.drain || this.#set.processingCount === 0) return Promise.resolve();
    return new Promise((resolve) => {
      const previous = this.#drained;
      this.#drained = () => {
        previous?.();
        resolve();
      };
    });
  }

  /** Seconds of work in flight, summed over keys (workqueue_unfinished_work_seconds). */
  unfinishedWorkSeconds(): number {
    const now = this.#clock.now();
    let total = 0;
    for (const started of this.#set.processingStarts()) total += now - started;
    return total / 1000;
  }

  /** Seconds the oldest in-flight key has been running (workqueue_longest_running_processor_seconds). */
  longestRunningSeconds(): number {
    const now = this.#clock.now();
    let oldest = now;
    for (const started of this.#set.processingStarts()) oldest = Math.min(oldest, started);
    return (now - oldest) / 1000;
  }

  #take(): string | undefined {
    const next = this.#set.pop(this.#clock.now());
    if (!next) return undefined;
    this.#metrics.depth(this.#set.length);
    this.#metrics.queueLatency(next.queuedMs / 1000);
    return next.key;
  }

  #dispatch(): void {
    while (this.#waiters.length > 0) {
      const key = this.#take();
      if (key === undefined) return;
      this.#waiters.shift()!(key);
    }
  }

  #armTimer(): void {
    const due = this.#delayed.peekDueMs();
    if (due === undefined || due >= this.#timerDueMs) return;
    this.#cancelTimer?.();
    this.#timerDueMs = due;
    this.#cancelTimer = this.#clock.setTimer(Math.max(0, due - this.#clock.now()), () => this.#onTimer());
  }

  #onTimer(): void {
    this.#cancelTimer = undefined;
    this.#timerDueMs = Infinity;
    if (this.#closed) return;
    const now = this.#clock.now();
    for (let next = this.#delayed.popDue(now); next; next = this.#delayed.popDue(now)) {
      this.add(next.key, next.payload);
    }
    this.#armTimer();
  }
}
