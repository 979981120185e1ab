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

import type { InformerLike } from "../cache/cache.ts";
import { controllerOwnerKeys, ownWritesStores, type Source, startResync, wireSources } from "./controller_sources.ts";
import { reconcileKey, type ReconcileRun, runWorkers } from "./controller_workers.ts";
import { kubeopLogger } from "../observe/log.ts";
import { Metrics } from "../observe/metrics.ts";
import { OwnWritesTracker } from "./own_writes.ts";
import { type Priority, WorkQueue } from "../queue/queue.ts";
import {
  type Action,
  type ControllerDeps,
  done,
  type MapFn,
  type ReconcileContext,
  requeueAfter,
} from "./reconcile.ts";
import { defaultControllerRateLimiter, type RateLimiter } from "../queue/rate_limiter.ts";
import { type KubeObject, objectKey, type ResourceType } from "../types.ts";
import type { WatchScope } from "../watch/watch_runner.ts";

export { type Action, type ControllerDeps, done, type MapFn, type ReconcileContext, requeueAfter };

// The cache's reading side (Store, InformerHandler, InformerLike, InformerSource) is declared in cache.ts; what an
// informer caches is a WatchScope (watch_runner.ts). Re-exported so a controller needs one import.
export type { InformerHandler, InformerLike, InformerSource, Store } from "../cache/cache.ts";
export type { WatchScope } from "../watch/watch_runner.ts";

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
  /** Services; absent, {@link Manager.add} provides them (see {@link Controller.bind}). */
  deps?: ControllerDeps;
}

/**
 * A controller for one resource type.
 *
 * @example
 * ```ts
 * import { eventually, startFakeApiServer } from "../../testing/mod.ts";
 * import { KubeClient } from "../client/client.ts";
 * import { Manager } from "../manager/manager.ts";
 * import { CoreTypes, type KubeObject } from "../types.ts";
 * import { Controller } from "./controller.ts";
 * import { done, requeueAfter } from "./reconcile.ts";
 * const cluster = await startFakeApiServer({ anonymousAdmin: true });
 * const client = new KubeClient({ config: { server: cluster.url } });
 * const reconciled = new Set<string>();
 * const ctl = new Controller<KubeObject>({
 *   name: "configmaps",
 *   for: CoreTypes.ConfigMap,
 *   reconcile: (ctx) => {
 *     reconciled.add(ctx.key); // "namespace/name"; ctx.object is the cached object, undefined once deleted
 *     return Promise.resolve(ctx.object ? requeueAfter(60_000) : done());
 *   },
 * }).owns(CoreTypes.Secret) // a Secret whose controller owner is a ConfigMap enqueues that ConfigMap
 *   .watches(CoreTypes.Namespace, (ns) => [`${ns.metadata.name}/settings`]); // any mapping to keys
 * const manager = new Manager({ client });
 * manager.add(ctl);
 * const stop = new AbortController();
 * const running = manager.start(stop.signal);
 * await client.create(CoreTypes.ConfigMap, { metadata: { name: "settings", namespace: "default" } });
 * await eventually("the ConfigMap is reconciled", () => reconciled.has("default/settings"));
 * stop.abort();
 * await running;
 * client.close();
 * await cluster.stop();
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
  /** Set by the first start; sources are fixed from then on. */
  #started = false;
  /** True while a start() runs: a controller may be started again once the previous run resolved (a new term). */
  #running = false;
  /** With sharding on, a controller runs on every replica and reconciles only its buckets' keys (ControllerRunnable). */
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

  /**
   * Provides the runtime services: `Manager.add` calls it when the controller is added (runtime/manager/runnable.ts
   * `ControllerRunnable`); a controller run without a Manager gets them at construction (`deps`).
   */
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
   * lets in-flight reconciles finish (their context signal is aborted) and resolves. It may be started again once that
   * run resolved (the Manager does, when this replica leads again after losing the Lease): with a fresh queue that
   * the informers' current contents fill.
   */
  async start(signal: AbortSignal): Promise<void> {
    const deps = this.#deps;
    if (!deps) {
      throw new Error(
        `controller ${this.name}: start() without services (construct it with deps, or add it to a Manager)`,
      );
    }
    if (this.#running) throw new Error(`controller ${this.name}: already started`);
    this.#started = true;
    this.#running = true;
    try {
      await this.#run(deps, signal);
    } finally {
      this.#running = false;
    }
  }

  /** One run: a fresh queue and read-your-own-writes tracker, handlers on the shared informers, workers. */
  async #run(deps: ControllerDeps, signal: AbortSignal): Promise<void> {
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
      storeFor: (id) => stores.get(id)?.store,
      onTimeout: () => metrics.readYourWritesTimeouts.inc({ controller: this.name }),
      onWrite: (exp) => stores.get(exp.resource)?.noteWrite?.(String(exp.resourceVersion)),
    });

    const unregister = wireSources({ sources: this.#sources, informers, queue, ownWrites, log: baseLog });
    const admission = deps.admission?.attach({
      controller: this.name,
      forType: this.forType,
      forInformer,
      requeue: (key) => queue.add(key, "low"),
      log: baseLog,
    });
    let cancelResync = () => {};
    const stop = () => {
      cancelResync();
      unregister();
      admission?.close();
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
      admission,
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
