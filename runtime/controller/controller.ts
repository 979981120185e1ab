/**
 * The reconcile loop (controller-runtime's Controller, kube-rs's `Controller::new(...).owns(...).watches(...)`):
 * informer events become keys in a {@link WorkQueue}; N workers hand each key to `reconcile`, which returns an
 * {@link Action}. A thrown error retries with per-key backoff, a {@link TerminalError} stops until the object changes,
 * an unexpected exception (a TypeError, a non-Error throw) is caught and counted as a panic. Before reconciling a key
 * the worker waits (bounded) until the cache shows that key's own last writes ({@link OwnWritesTracker}).
 *
 * This file holds the public shape (options, context, builder) and start()'s order; the parts live beside it:
 * controller_sources.ts (informer events and resync → keys), controller_workers.ts (key → reconcile) and
 * reconcile_outcome.ts (result → queue operation, metrics, Warning Event; pure).
 * @module
 */

import type { InformerLike, InformerSource } from "../cache/cache.ts";
import type { Clock } from "../clock.ts";
import type { ControllerClient } from "./controller_client.ts";
import type { EventRecorder } from "../observe/events.ts";
import { controllerOwnerKeys, ownWritesStores, type Source, startResync, wireSources } from "./controller_sources.ts";
import { reconcileKey, type ReconcileRun, runWorkers } from "./controller_workers.ts";
import { kubeopLogger, type Logger } from "../observe/log.ts";
import { Metrics } from "../observe/metrics.ts";
import { OwnWritesTracker } from "./own_writes.ts";
import { type Action, done, type Priority, requeueAfter, WorkQueue } from "../queue/queue.ts";
import { defaultControllerRateLimiter, type RateLimiter } from "../queue/rate_limiter.ts";
import { type KubeObject, objectKey, type ResourceType } from "../types.ts";
import type { WatchScope } from "../watch/watch_runner.ts";
import type { WriteFence } from "../leader/write_fence.ts";
import type { ShardAdmission } from "../shard/shard_gate.ts";

export { type Action, done, requeueAfter };

// The cache's reading side (Store, InformerHandler, InformerLike, InformerSource) is declared in cache.ts; what an
// informer caches is a WatchScope (watch_runner.ts). Re-exported so a controller needs one import.
export type { InformerHandler, InformerLike, InformerSource, Store } from "../cache/cache.ts";
export type { WatchScope } from "../watch/watch_runner.ts";

/** Everything a reconcile may use. Read from `informers`, write through `client`. */
export interface ReconcileContext<T extends KubeObject = KubeObject> {
  /** `namespace/name` or `name`. */
  key: string;
  /** Namespace part of the key (absent for cluster-scoped objects). */
  namespace?: string;
  /** Name part of the key. */
  name: string;
  /** The For object as the cache has it now (undefined: deleted or not yet seen). */
  object: T | undefined;
  /** Aborted when the controller shuts down. */
  signal: AbortSignal;
  /** Uncached reads and writes; writes through it are tracked for read-your-own-writes. */
  client: ControllerClient;
  /** The shared caches: read from here. */
  informers: InformerSource;
  /** Emits Kubernetes Events (never blocks). */
  recorder: EventRecorder;
  /** Carries `{controller, key, reconcileID}`. */
  log: Logger;
  /** The injected time source. */
  clock: Clock;
  /** Unique per reconcile (uuid). */
  reconcileID: string;
  /** Records a write made some other way (the server's answer), so the next reconcile waits for the cache to show it. */
  expectWrite(rt: ResourceType, written: KubeObject): void;
  /** Records a delete made some other way. */
  expectDelete(rt: ResourceType, obj: KubeObject): void;
}

/** The runtime services a controller runs with; the Manager provides them. */
export interface ControllerDeps {
  /** The cluster client (wrapped per reconcile in the write chain of write_path.ts: own writes, fence, uid guard). */
  client: ControllerClient;
  /** The shared informer registry. */
  informers: InformerSource;
  /** Event recorder. */
  recorder: EventRecorder;
  /** Time source for queue delays, backoff and the read-your-writes timeout. */
  clock: Clock;
  /** Metrics registry (default: a private one). */
  metrics?: Metrics;
  /** Parent logger (a `controller.<name>` child is used). */
  logger?: Logger;
  /** Workers for controllers whose options do not say (the `--max-concurrent-reconciles` flag). */
  maxConcurrentReconciles?: number;
  /**
   * The leader's write fence (runtime/leader/write_fence.ts), when leader election is on: no reconcile starts while it is
   * closed, and each reconcile's client is bound to its signal, so losing the Lease aborts in-flight calls.
   */
  fence?: WriteFence;
  /**
   * The shard ring's admission (runtime/shard/shard_gate.ts), when sharding is on: a key is reconciled only when its uid's
   * bucket is active on this replica, each reconcile's writes pass that bucket's fence and carry the uid.
   */
  shards?: ShardAdmission;
}

/** Options for {@link Controller}. */
export interface ControllerOptions<T extends KubeObject> {
  /** Names the controller in logs, metrics and the queue. */
  name: string;
  /** The reconciled resource. */
  for: ResourceType;
  /** Informer options for the For resource (namespace, selectors). */
  forOptions?: WatchScope;
  /** Brings the world in line with one object; throw to retry with backoff, TerminalError to stop. */
  reconcile(ctx: ReconcileContext<T>): Promise<Action>;
  /** Workers. Default: {@link ControllerDeps.maxConcurrentReconciles}, else 1. */
  maxConcurrentReconciles?: number;
  /** Retry delays. Default: exponential 5 ms … 1000 s, combined with an overall 10/s burst 100 bucket. */
  rateLimiter?: RateLimiter;
  /** How long a reconcile waits for its key's own writes to reach the cache. Default 5000 ms. */
  readYourWritesTimeoutMs?: number;
  /** A low-priority (initial list) key waiting longer than this goes ahead of newer live changes. Default 1000 ms. */
  lowPriorityAgingMs?: number;
  /**
   * Re-queue every cached For object this often, at low priority (controller-runtime's SyncPeriod), to repair drift
   * no event announces. Default: off.
   */
  resyncPeriodMs?: number;
  /** Services; may instead be given later with {@link Controller.bind}. */
  deps?: ControllerDeps;
}

/** Maps a watched object to the keys of the For objects to reconcile. */
export type MapFn<O extends KubeObject = KubeObject> = (obj: O) => string[];

/**
 * A controller for one resource type.
 *
 * @example
 * ```ts ignore
 * const ctl = new Controller<Machine>({
 *   name: "machine",
 *   for: MachineType,
 *   reconcile: async (ctx) => ctx.object ? requeueAfter(5_000) : done(),
 * }).owns(SwitchType).watches(CoreTypes.Namespace, (ns) => machinesIn(ns));
 * manager.add(ctl);
 * ```
 */
export class Controller<T extends KubeObject = KubeObject> {
  /** Names the controller in logs, metrics and the queue. */
  readonly name: string;
  /** The reconciled resource. */
  readonly forType: ResourceType;
  readonly #opts: ControllerOptions<T>;
  #sources: Source[] = [];
  #deps: ControllerDeps | undefined;
  #queue: WorkQueue | undefined;
  #started = false;
  /** With sharding on, a controller runs on every replica and reconciles only its buckets' keys. */
  readonly shardable = true;

  /** A controller; wire sources with {@link Controller.owns} / {@link Controller.watches}. */
  constructor(opts: ControllerOptions<T>) {
    if (!opts.name) throw new Error("controller needs a name");
    this.name = opts.name;
    this.forType = opts.for;
    this.#opts = opts;
    this.#deps = opts.deps;
    this.#sources.push({
      rt: opts.for,
      opts: opts.forOptions,
      map: (obj) => [objectKey(obj)],
    });
  }

  /** Reconciles the controlling owner (a For object) whenever an `rt` object with a controller ownerRef changes. */
  owns(rt: ResourceType, opts?: WatchScope): this {
    return this.watches(rt, controllerOwnerKeys(this.forType), opts);
  }

  /** Reconciles the keys `map` returns for every changed `rt` object (old and new, on a modification). */
  watches<O extends KubeObject = KubeObject>(rt: ResourceType, map: MapFn<O>, opts?: WatchScope): this {
    if (this.#started) throw new Error(`controller ${this.name}: watches() after start()`);
    this.#sources.push({ rt, opts, map: map as MapFn });
    return this;
  }

  /** {@link Controller.watches} with the informer options first (CONTRACTS spelling). */
  watchesOpts<O extends KubeObject = KubeObject>(rt: ResourceType, opts: WatchScope, map: MapFn<O>): this {
    return this.watches(rt, map, opts);
  }

  /** Workers this controller runs (options, else deps, else 1). */
  get maxConcurrentReconciles(): number {
    const n = this.#opts.maxConcurrentReconciles ?? this.#deps?.maxConcurrentReconciles ?? 1;
    return Math.max(1, Math.floor(n));
  }

  /**
   * The informers this controller reads (For first, then Owns/Watches), so a Manager can start and sync them on
   * every replica before leadership (warm standby).
   */
  watchedResources(): { rt: ResourceType; opts?: WatchScope }[] {
    return this.#sources.map(({ rt, opts }) => (opts ? { rt, opts } : { rt }));
  }

  /** Provides the runtime services (the Manager calls this before {@link Controller.start}). */
  bind(deps: ControllerDeps): this {
    this.#deps = deps;
    // controller-runtime creates a controller's reconcile and workqueue series at 0 (alerts rely on them existing).
    deps.metrics?.initController(this.name);
    return this;
  }

  /** Queues `key` for reconciliation (tests, external triggers). No-op before start. */
  enqueue(key: string, priority: Priority = "high"): void {
    this.#queue?.add(key, priority);
  }

  /**
   * Registers handlers, waits for the caches to sync, then runs workers until `signal` aborts; then stops intake,
   * lets in-flight reconciles finish (their context signal is aborted) and resolves.
   */
  async start(signal: AbortSignal): Promise<void> {
    const deps = this.#deps;
    if (!deps) throw new Error(`controller ${this.name}: start() before bind(deps)`);
    if (this.#started) throw new Error(`controller ${this.name}: already started`);
    this.#started = true;
    const metrics = deps.metrics ?? new Metrics();
    const baseLog = deps.logger?.getChild(["controller", this.name]) ?? kubeopLogger("controller", this.name);
    const clock = deps.clock;
    const queue = new WorkQueue({
      clock,
      rateLimiter: this.#opts.rateLimiter ?? defaultControllerRateLimiter(clock),
      metrics: metrics.queueHooks(this.name, this.name),
      lowPriorityAgingMs: this.#opts.lowPriorityAgingMs,
    });
    this.#queue = queue;

    const informers = this.#sources.map((s) => deps.informers.get<KubeObject>(s.rt, s.opts));
    const forInformer = informers[0] as unknown as InformerLike<T>;
    const stores = ownWritesStores(this.#sources, informers);
    const ownWrites = new OwnWritesTracker({
      clock,
      timeoutMs: this.#opts.readYourWritesTimeoutMs,
      storeFor: (id) => stores.get(id),
      onTimeout: () => metrics.readYourWritesTimeouts.inc({ controller: this.name }),
    });

    const unregister = wireSources({ sources: this.#sources, informers, queue, ownWrites, log: baseLog });
    const goneUids = deps.shards ? new Map<string, string>() : undefined;
    const unshard = deps.shards && goneUids ? followShards(deps.shards, forInformer, queue, goneUids) : () => {};
    let cancelResync = () => {};
    const stop = () => {
      cancelResync();
      unregister();
      unshard();
      ownWrites.clear();
    };
    try {
      await Promise.all(informers.map((inf) => inf.waitForSync(signal)));
    } catch (err) {
      stop();
      await queue.shutdown();
      if (signal.aborted) return;
      throw new Error(`controller ${this.name}: waiting for caches to sync failed`, { cause: err });
    }
    if (signal.aborted) {
      stop();
      await queue.shutdown();
      return;
    }

    metrics.maxConcurrentReconciles.set({ controller: this.name }, this.maxConcurrentReconciles);
    metrics.activeWorkers.set({ controller: this.name }, 0);
    cancelResync = startResync({ clock, periodMs: this.#opts.resyncPeriodMs, forStore: forInformer.store, queue });
    const onAbort = () => void queue.shutdown();
    signal.addEventListener("abort", onAbort, { once: true });
    const run: ReconcileRun<T> = {
      controller: this.name,
      forType: this.forType,
      reconcile: (ctx) => this.#opts.reconcile(ctx),
      deps,
      metrics,
      baseLog,
      queue,
      ownWrites,
      forInformer,
      signal,
      goneUids,
    };
    try {
      await runWorkers({ queue, count: this.maxConcurrentReconciles, signal, handle: (key) => reconcileKey(key, run) });
      await queue.shutdown({ drain: true });
    } finally {
      signal.removeEventListener("abort", onAbort);
      stop();
    }
  }
}

/** Most deleted keys whose uid a sharded controller remembers (oldest forgotten first). */
const MAX_GONE_UIDS = 10_000;

/**
 * Sharded controllers: remember the uid of deleted For objects (the delete is reconciled by that uid's bucket), and
 * queue every cached key of a bucket once it becomes active here (its keys were dropped while it was elsewhere).
 */
function followShards<T extends KubeObject>(
  shards: ShardAdmission,
  forInformer: InformerLike<T>,
  queue: WorkQueue,
  goneUids: Map<string, string>,
): () => void {
  const offHandler = forInformer.addHandler({
    added: (obj) => void goneUids.delete(objectKey(obj)),
    deleted: (obj) => {
      if (!obj.metadata.uid) return;
      const key = objectKey(obj);
      goneUids.delete(key);
      goneUids.set(key, obj.metadata.uid);
      if (goneUids.size > MAX_GONE_UIDS) goneUids.delete(goneUids.keys().next().value!);
    },
  });
  const offActivated = shards.onActivated((buckets) => {
    const gained = new Set(buckets);
    for (const obj of forInformer.store.list()) {
      if (obj.metadata.uid && gained.has(shards.bucketOfUid(obj.metadata.uid))) queue.add(objectKey(obj), "low");
    }
    for (const [key, uid] of goneUids) if (gained.has(shards.bucketOfUid(uid))) queue.add(key, "low");
  });
  return () => {
    offHandler();
    offActivated();
  };
}
