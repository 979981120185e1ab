/**
 * The reconcile loop (controller-runtime's Controller, kube-rs's `Controller::new(...).owns(...).watches(...)`):
 * informer events become keys in a {@link WorkQueue}; N workers hand each key to `reconcile`, which returns an
 * {@link Action}. A thrown error retries with per-key backoff, a {@link TerminalError} stops until the object changes,
 * an unexpected exception (a TypeError, a non-Error throw) is caught and counted as a panic. Before reconciling a key
 * the worker waits (bounded) until the cache shows that key's own last writes ({@link OwnWritesTracker}).
 * @module
 */

import type { InformerLike, InformerSource } from "./cache.ts";
import type { Clock } from "./clock.ts";
import type { ControllerClient } from "./controller_client.ts";
import { NotLeaderError, TerminalError } from "./errors.ts";
import type { EventRecorder } from "./events.ts";
import { kubeopLogger, type Logger, reconcileLogger } from "./log.ts";
import { Metrics, type ReconcileResult } from "./metrics.ts";
import { OwnWritesTracker, resourceId } from "./own_writes.ts";
import { OwnWritesClient } from "./own_writes_client.ts";
import { type Action, done, type Priority, requeueAfter, WorkQueue } from "./queue.ts";
import { defaultControllerRateLimiter, type RateLimiter } from "./rate_limiter.ts";
import { apiVersionOf, type KubeObject, objectKey, type ResourceType, splitKey } from "./types.ts";
import type { WatchScope } from "./watch_runner.ts";
import type { WriteFence } from "./write_fence.ts";

export { type Action, done, requeueAfter };

// The cache's reading side (Store, InformerHandler, InformerLike, InformerSource) is declared in cache.ts; what an
// informer caches is a WatchScope (watch_runner.ts). Re-exported so a controller needs one import.
export type { InformerHandler, InformerLike, InformerSource, Store } from "./cache.ts";
export type { WatchScope } from "./watch_runner.ts";

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
  /** The cluster client (wrapped per reconcile in an {@link OwnWritesClient} to track writes). */
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
   * The leader's write fence (runtime/write_fence.ts), when leader election is on: no reconcile starts while it is
   * closed, and each reconcile's client is bound to its signal, so losing the Lease aborts in-flight calls.
   */
  fence?: WriteFence;
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

interface Source {
  rt: ResourceType;
  opts?: WatchScope;
  map: MapFn;
}

const GROUP_OF = (apiVersion: string) => (apiVersion.includes("/") ? apiVersion.slice(0, apiVersion.indexOf("/")) : "");

/**
 * List items from kube-apiserver carry no apiVersion/kind; fill them from the resource type (a shallow copy: cached
 * objects are frozen) so owner references and Events built from the object are complete.
 */
function withTypeMeta<T extends KubeObject>(obj: T | undefined, rt: ResourceType): T | undefined {
  if (!obj || (obj.apiVersion && obj.kind)) return obj;
  return { ...obj, apiVersion: obj.apiVersion ?? apiVersionOf(rt), kind: obj.kind ?? rt.kind };
}

/** An unexpected exception: a bug in the reconcile rather than a failed operation. */
function isPanic(err: unknown): boolean {
  return !(err instanceof Error) || err instanceof TypeError || err instanceof ReferenceError ||
    err instanceof RangeError || err instanceof SyntaxError;
}

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
    const group = this.forType.group;
    const kind = this.forType.kind;
    const clusterScoped = !this.forType.namespaced;
    return this.watches(rt, (obj) => {
      const ref = obj.metadata.ownerReferences?.find((r) => r.controller === true);
      if (!ref || ref.kind !== kind || GROUP_OF(ref.apiVersion) !== group) return [];
      return [clusterScoped || !obj.metadata.namespace ? ref.name : `${obj.metadata.namespace}/${ref.name}`];
    }, opts);
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
    const stores = new Map<string, InformerLike["store"]>();
    informers.forEach((inf, i) => {
      const { rt, opts } = this.#sources[i];
      // A selector-scoped cache may never show an object we wrote (it stopped matching): do not wait on it.
      if (opts?.labelSelector || opts?.fieldSelector) return;
      if (!stores.has(resourceId(rt))) stores.set(resourceId(rt), inf.store);
    });
    const ownWrites = new OwnWritesTracker({
      clock,
      timeoutMs: this.#opts.readYourWritesTimeoutMs,
      storeFor: (id) => stores.get(id),
      onTimeout: () => metrics.readYourWritesTimeouts.inc({ controller: this.name }),
    });

    const unregister: (() => void)[] = [];
    informers.forEach((inf, i) => {
      const map = this.#sources[i].map;
      let replaying = true; // objects replayed by addHandler are initial state: low priority
      const priority = (): Priority => (replaying || !inf.hasSynced() ? "low" : "high");
      const enqueue = (obj: KubeObject, p: Priority) => {
        let keys: string[];
        try {
          keys = map(obj);
        } catch (err) {
          baseLog.error("map function for {resource} failed: {error}", { resource: inf.resource.plural, error: err });
          return;
        }
        for (const key of keys) queue.add(key, p);
      };
      unregister.push(inf.addHandler({
        added: (obj) => {
          ownWrites.notify();
          enqueue(obj, priority());
        },
        modified: (old, obj) => {
          ownWrites.notify();
          const p = priority();
          enqueue(obj, p);
          if (i > 0) enqueue(old, p); // a relabel or re-parent: the previous owner must hear of it too
        },
        deleted: (obj) => {
          ownWrites.notify(obj.metadata?.uid);
          enqueue(obj, priority());
        },
      }));
      replaying = false;
    });

    let cancelResync = () => {};
    const stop = () => {
      cancelResync();
      unregister.forEach((u) => u());
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
    const resyncMs = this.#opts.resyncPeriodMs;
    if (resyncMs !== undefined && resyncMs > 0) {
      const resync = () => {
        for (const obj of forInformer.store.list()) queue.add(objectKey(obj), "low");
        cancelResync = clock.setTimer(resyncMs, resync);
      };
      cancelResync = clock.setTimer(resyncMs, resync);
    }
    const onAbort = () => void queue.shutdown();
    signal.addEventListener("abort", onAbort, { once: true });
    const worker = async () => {
      for (;;) {
        const key = await queue.get(signal);
        if (key === undefined) return;
        try {
          await this.#reconcileOne(key, { deps, metrics, baseLog, queue, ownWrites, forInformer, signal });
        } finally {
          queue.done(key);
        }
      }
    };
    try {
      await Promise.all(Array.from({ length: this.maxConcurrentReconciles }, worker));
      await queue.shutdown({ drain: true });
    } finally {
      signal.removeEventListener("abort", onAbort);
      stop();
    }
  }

  async #reconcileOne(key: string, run: {
    deps: ControllerDeps;
    metrics: Metrics;
    baseLog: Logger;
    queue: WorkQueue;
    ownWrites: OwnWritesTracker;
    forInformer: InformerLike<T>;
    signal: AbortSignal;
  }): Promise<void> {
    const { deps, metrics, queue, ownWrites, signal } = run;
    const controller = this.name;
    await ownWrites.wait(key, signal);
    if (signal.aborted) return;
    const reconcileID = crypto.randomUUID();
    const { namespace, name } = splitKey(key);
    const { group: controllerGroup, kind: controllerKind } = this.forType;
    const log = reconcileLogger(run.baseLog, {
      controller,
      controllerGroup,
      controllerKind,
      namespace,
      name,
      reconcileID,
    });
    try {
      deps.fence?.check({ verb: "reconcile", resource: resourceId(this.forType), namespace, name });
    } catch (err) {
      // Not (provably) the leader any more: the manager is stopping the controllers; the next leader reconciles.
      log.info("not starting the reconcile: {error}", { error: err });
      queue.forget(key);
      return;
    }
    const ctx: ReconcileContext<T> = {
      key,
      namespace,
      name,
      object: withTypeMeta(run.forInformer.store.get(key), this.forType),
      signal,
      client: new OwnWritesClient({ client: deps.client, key, tracker: ownWrites, leadership: deps.fence?.signal }),
      informers: deps.informers,
      recorder: deps.recorder,
      log,
      clock: deps.clock,
      reconcileID,
      expectWrite: (rt, written) => ownWrites.recordWrite(key, rt, written),
      expectDelete: (rt, obj) => ownWrites.recordDelete(key, rt, objectKey(obj), obj.metadata.uid),
    };
    const labels = { controller };
    const started = deps.clock.now();
    metrics.activeWorkers.inc(labels);
    let result: ReconcileResult;
    try {
      const action = await this.#opts.reconcile(ctx);
      const after = action?.requeueAfterMs;
      if (after === 0) {
        // controller-runtime's `Requeue: true`: again soon, but through the backoff so it cannot spin.
        queue.addRateLimited(key);
        result = "requeue";
      } else {
        queue.forget(key);
        if (after !== undefined && after > 0) {
          queue.addAfter(key, after);
          result = "requeue_after";
        } else result = "success";
      }
    } catch (err) {
      result = "error";
      metrics.reconcileErrors.inc(labels);
      if (err instanceof NotLeaderError) {
        // Not retriable on this replica: its writes are refused until it leads again, and then it re-lists.
        queue.forget(key);
        log.info("reconcile stopped, this replica is not the leader: {error}", { error: err });
      } else if (err instanceof TerminalError) {
        queue.forget(key);
        metrics.terminalReconcileErrors.inc(labels);
        log.error("reconcile failed permanently, not retrying until the object changes: {error}", { error: err });
        this.#warn(deps, ctx.object, "ReconcileFailed", err);
      } else {
        queue.addRateLimited(key);
        if (isPanic(err)) {
          metrics.reconcilePanics.inc(labels);
          log.error("reconcile panicked (unexpected exception), retrying: {error}", { error: err });
        } else if (signal.aborted) {
          log.debug("reconcile interrupted by shutdown: {error}", { error: err });
        } else {
          log.error("reconcile failed, retrying in backoff (attempt {attempt}): {error}", {
            error: err,
            attempt: queue.numRequeues(key),
          });
          this.#warn(deps, ctx.object, "ReconcileError", err);
        }
      }
    } finally {
      metrics.activeWorkers.dec(labels);
      metrics.reconcileTime.observe(labels, (deps.clock.now() - started) / 1000);
    }
    metrics.reconcileTotal.inc({ controller, result });
  }

  #warn(deps: ControllerDeps, obj: KubeObject | undefined, reason: string, err: unknown): void {
    if (!obj) return;
    deps.recorder.event(obj, {
      type: "Warning",
      reason,
      action: "Reconcile",
      note: err instanceof Error ? err.message : String(err),
    });
  }
}
