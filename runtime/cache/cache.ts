/**
 * The informer: one list+watch loop ({@link WatchRunner}) feeding one indexed store, with handlers in a small
 * vocabulary (`added | modified | deleted | synced`). The store has one writer in the type system, not by
 * convention: the informer keeps the {@link StoreWriter} private and hands the loop a private sink, while everyone
 * else gets the read-only {@link Store} (kube-rs's reflector `Writer` / `Store`) and frozen objects. A transform
 * hook runs before objects are stored (default: drop `metadata.managedFields`), and read-your-own-writes waits
 * ({@link Informer.waitForResourceVersion}, {@link Informer.waitForDeletion}) let a controller hold its next
 * reconcile until the cache has seen its own write.
 *
 * This file is the home of the cache's reading side: {@link Store} (the one reader interface),
 * {@link InformerHandler}, {@link InformerLike} and {@link InformerSource}. What an informer caches is a
 * {@link WatchScope} (watch_runner.ts).
 * @module
 */

import { getLogger } from "@logtape/logtape";
import { resourceId } from "../apimachinery/names.ts";
import { formatShardSelector, type ShardSelector } from "../apimachinery/shard_selector.ts";
import type { KubeClient } from "../client/client.ts";
import { CacheWaiters, compareResourceVersions, resourceVersionReached, type WaitOptions } from "./cache_waiters.ts";
import type { Clock } from "../clock.ts";
import { type IndexFunc, type Store, type StoreChange, StoreWriter } from "./store.ts";
import type { KubeObject, ResourceType } from "../types.ts";
import { WriteLag } from "../watch/write_lag.ts";
import {
  type WatchHealth,
  type WatchLogger,
  type WatchMetrics,
  WatchRunner,
  type WatchRunnerOptions,
  type WatchScope,
  type WatchSink,
} from "../watch/watch_runner.ts";

export { compareResourceVersions, type Store, type WaitOptions };

/** Handlers for cache changes. Exceptions are caught and logged; they never stop the informer. */
export interface InformerHandler<T extends KubeObject = KubeObject> {
  /** A new object (or one seen for the first time after a relist). */
  added?(obj: T): void;
  /** An object whose resourceVersion changed. */
  modified?(old: T, obj: T): void;
  /** An object removed (by event, or synthetically by a relist diff). */
  deleted?(obj: T): void;
  /** The first full list has been stored (called once; immediately for handlers added after sync). */
  synced?(): void;
}

/** What a controller needs from an informer ({@link Informer} and the multi-namespace composite satisfy it). */
export interface InformerLike<T extends KubeObject = KubeObject> {
  /** The cached resource. */
  readonly resource: ResourceType;
  /** Read-only view of the cache, by `namespace/name` key. */
  readonly store: Store<T>;
  /** Adds a custom index to the store (names are unique per informer); optional for test doubles. */
  addIndex?(name: string, fn: IndexFunc<T>): void;
  /** Registers handlers; returns their removal. */
  addHandler(handler: InformerHandler<T>): () => void;
  /** Whether the first full list is in the store. */
  hasSynced(): boolean;
  /** Resolves once synced. */
  waitForSync(signal?: AbortSignal): Promise<void>;
  /**
   * Records that a controller's write of this resource was answered with `resourceVersion`: health() then reports how
   * far the cache is behind it (`ownWriteLag`, kubeop_cache_own_write_lag_seconds). Optional for test doubles.
   */
  noteWrite?(resourceVersion: string): void;
}

/** The shared informers (runtime/cache/informers.ts's InformerRegistry satisfies it). */
export interface InformerSource {
  /** The shared informer for `rt` within `scope` (created on first request). */
  get<T extends KubeObject = KubeObject>(rt: ResourceType, scope?: WatchScope): InformerLike<T>;
  /**
   * Re-lists the shared informer of (`rt`, `scope`) watching only `slice` (KEP-5866 `shardSelector`; `null`: the
   * whole collection) — see {@link Informer.relist}. Absent on sources that cannot slice their informers.
   */
  relist?(rt: ResourceType, scope: WatchScope | undefined, slice: ShardSelector | null): void;
}

/**
 * How a sliced informer's slice is served: `server` (the list echoed `metadata.shardInfo`), `client` (the server
 * ignored the selector: everything is received and filtered here), `pending` (not listed since the last change),
 * `off` (not sliced).
 */
export type ShardMode = "server" | "client" | "pending" | "off";

/** Metric hooks of an informer (structural subset of runtime/observe/metrics.ts `Metrics`). */
export interface InformerMetrics extends WatchMetrics {
  /** kubeop_cache_objects. */
  cacheObjects?: { set(labels: { resource: string }, value: number): void };
  /** kubeop_shard_server_side: 1 when the server filters a sliced informer, 0 when it filters client-side. */
  shardServerSide?: { set(labels: { resource: string }, value: number): void };
  /** kubeop_cache_own_write_lag_seconds: how long the cache has not shown a write its controllers made. */
  cacheOwnWriteLag?: { set(labels: { resource: string }, value: number): void };
}

/** Construction options of {@link Informer} (what it caches is the {@link WatchScope} part). */
export interface InformerOptions<T extends KubeObject> extends WatchScope {
  /** The cluster client. */
  client: KubeClient;
  /** What to cache. */
  resource: ResourceType;
  /** Default: the client's clock. */
  clock?: Clock;
  /** Uniform [0,1) source for jitter and timeouts (default Math.random). */
  random?: () => number;
  /** Metric hooks. */
  metrics?: InformerMetrics;
  /** Default: @logtape loggers kubeop.watch / kubeop.cache. */
  logger?: WatchLogger;
  /**
   * Runs on every object before it is stored; default drops `metadata.managedFields` ({@link dropManagedFields}), and
   * then lists and watches also ask the server to leave them out (KEP-5958, where served).
   */
  transform?: (obj: T) => T;
  /** Try WatchList first (default true). */
  watchList?: boolean;
  /**
   * Deep-freeze stored objects (default true). `false` is an escape for benchmarks and test doubles only: readers then
   * get the store's live objects, and one that mutates them corrupts the cache for every other reader.
   */
  freeze?: boolean;
}

/**
 * Drops managedFields: the largest and least useful part of most objects. The metadata object is rebuilt rather than
 * `delete`d from, which would move it into V8's slower dictionary mode.
 */
export function dropManagedFields<T extends KubeObject>(obj: T): T {
  if (!obj.metadata?.managedFields) return obj;
  const { managedFields: _dropped, ...metadata } = obj.metadata;
  obj.metadata = metadata;
  return obj;
}

/**
 * A shared cache of one resource collection.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { eventually, startFakeApiServer } from "../../testing/mod.ts";
 * import { KubeClient } from "../client/client.ts";
 * import { CoreTypes } from "../types.ts";
 * import { Informer } from "./cache.ts";
 * const cluster = await startFakeApiServer({ anonymousAdmin: true });
 * const client = new KubeClient({ config: { server: cluster.url } });
 * const configMaps = new Informer({ client, resource: CoreTypes.ConfigMap, namespace: "default" });
 * const added: string[] = [];
 * configMaps.addHandler({ added: (cm) => added.push(cm.metadata.name!) });
 * const ctrl = new AbortController();
 * const running = configMaps.start(ctrl.signal);
 * await configMaps.waitForSync(); // listed: the store holds what the server had
 * await client.create(CoreTypes.ConfigMap, { metadata: { name: "late", namespace: "default" } });
 * await eventually("the watch delivers the new ConfigMap", () => configMaps.store.get("default/late"));
 * assert.ok(added.includes("late"));
 * ctrl.abort();
 * await running;
 * client.close();
 * await cluster.stop();
 * ```
 */
export class Informer<T extends KubeObject = KubeObject> implements InformerLike<T> {
  /** What this informer caches. */
  readonly resource: ResourceType;
  /** The only writer of the store; never handed out. */
  readonly #store: StoreWriter<T>;
  readonly #runnerOptions: Omit<WatchRunnerOptions, "sink">;
  readonly #sink: WatchSink;
  #runner: WatchRunner;
  /** Aborts the current runner only (a selector change); the informer's own signal stops everything. */
  #runnerStop?: AbortController;
  #shard: ShardSelector | null = null;
  #shardMode: ShardMode = "off";
  #receivedBytes = 0;
  readonly #handlers = new Set<InformerHandler<T>>();
  readonly #transform: (obj: T) => T;
  readonly #metrics?: InformerMetrics;
  readonly #log: WatchLogger;
  readonly #resourceName: string;
  readonly #waiters: CacheWaiters;
  #syncWaiters: Array<() => void> = [];
  #synced = false;
  /** The first list ever was stored (the once-only `synced` handler call). */
  #everSynced = false;
  #started = false;
  readonly #writeLag = new WriteLag();
  readonly #clock: Clock;

  /** Creates the informer; nothing runs before start(). */
  constructor(opts: InformerOptions<T>) {
    this.resource = opts.resource;
    this.#store = new StoreWriter<T>({ freeze: opts.freeze });
    this.#transform = opts.transform ?? dropManagedFields;
    this.#metrics = opts.metrics;
    this.#log = opts.logger ?? getLogger(["kubeop", "cache"]);
    this.#clock = opts.clock ?? opts.client.clock;
    this.#waiters = new CacheWaiters(this.#clock);
    const rt = opts.resource;
    this.#resourceName = resourceId(rt);
    // The loop writes through this private sink: the informer's only write path.
    this.#sink = {
      replace: (items) => this.#replace(items),
      apply: (type, obj) => this.#apply(type, obj),
    };
    // KEP-5958: the server may leave managedFields out when the transform would drop them anyway.
    const dropManagedFieldsOnServer = this.#transform === dropManagedFields;
    this.#runnerOptions = { ...opts, logger: opts.logger, dropManagedFields: dropManagedFieldsOnServer };
    this.#runner = this.#newRunner();
  }

  #newRunner(): WatchRunner {
    const shard = this.#shard;
    return new WatchRunner({
      ...this.#runnerOptions,
      sink: this.#sink,
      onBytes: (n) => this.#receivedBytes += n,
      shardSelector: shard ?? undefined,
      onShardMode: shard ? (serverSide) => this.#onShardMode(shard, serverSide) : undefined,
    });
  }

  /**
   * Restarts the list+watch watching only `slice`'s hash ranges (KEP-5866 server-side, else filtered client-side;
   * `null`: the whole collection). The registry calls it ({@link InformerSource.relist}); the sharding core slices
   * its controllers' primary informers (never children) with it. `hasSynced()` is false (and `waitForSync()` waits)
   * until the new slice is listed; that list replaces the cache like any relist: objects that left the slice are
   * `deleted`, gained ones `added`. A no-op when the slice is unchanged. Before `start`, it only sets the first slice.
   */
  relist(selector: ShardSelector | null): void {
    const next = selector && selector.ranges.length > 0 ? selector : null;
    const same = (next ? formatShardSelector(next) : "") === (this.#shard ? formatShardSelector(this.#shard) : "");
    if (same) return;
    this.#shard = next ? { field: next.field, ranges: next.ranges.map((r) => ({ ...r })) } : null;
    this.#shardMode = next ? "pending" : "off";
    if (!this.#started) {
      this.#runner = this.#newRunner();
      return;
    }
    this.#synced = false;
    this.#runnerStop?.abort(new Error("shard selector changed"));
  }

  /** The slice asked for (`null`: all). */
  shardSelector(): ShardSelector | null {
    return this.#shard;
  }

  /** How the slice is served (see {@link ShardMode}). */
  shardMode(): ShardMode {
    return this.#shardMode;
  }

  #onShardMode(shard: ShardSelector, serverSide: boolean): void {
    if (shard !== this.#shard) return;
    const mode = serverSide ? "server" : "client";
    this.#metrics?.shardServerSide?.set({ resource: this.#resourceName }, serverSide ? 1 : 0);
    if (mode === this.#shardMode) return;
    this.#shardMode = mode;
    this.#log.info(
      serverSide
        ? "informer for {resource} watches its shard slice server-side (KEP-5866 shardSelector echoed): {selector}"
        : "informer for {resource} filters its shard slice client-side (no shardInfo echo: ShardedListAndWatch off or an older server): {selector}",
      { resource: this.#resourceName, selector: formatShardSelector(shard) },
    );
  }

  /** The read-only, frozen view of the cache. */
  get store(): Store<T> {
    return this.#store.reader;
  }

  /** Adds a custom index; call before {@link start} or at any time (built over current contents). */
  addIndex(name: string, fn: IndexFunc<T>): void {
    this.#store.addIndex(name, fn);
  }

  /**
   * Registers handlers; returns a function that removes them. A handler added after sync is first told about
   * every cached object (`added`) and then `synced`, like client-go.
   */
  addHandler(handler: InformerHandler<T>): () => void {
    this.#handlers.add(handler);
    if (this.#everSynced) {
      for (const obj of this.#store.list()) this.#call(handler, { type: "added", obj });
      this.#safe(() => handler.synced?.());
    }
    return () => this.#handlers.delete(handler);
  }

  /** True once the first full list is in the store. */
  hasSynced(): boolean {
    return this.#synced;
  }

  /** Resolves once synced; rejects when `signal` aborts first. */
  waitForSync(signal?: AbortSignal): Promise<void> {
    if (this.#synced) return Promise.resolve();
    signal?.throwIfAborted();
    return new Promise((resolve, reject) => {
      const onAbort = () => {
        this.#syncWaiters = this.#syncWaiters.filter((w) => w !== done);
        reject(signal!.reason);
      };
      const done = () => {
        signal?.removeEventListener("abort", onAbort);
        resolve();
      };
      this.#syncWaiters.push(done);
      signal?.addEventListener("abort", onAbort, { once: true });
    });
  }

  /** Response bytes of this informer's lists and watch streams so far (kubeop_watch_bytes_total, per informer). */
  receivedBytes(): number {
    return this.#receivedBytes;
  }

  /**
   * Whether a first full list was ever stored. Unlike {@link hasSynced} it stays true while a sliced informer lists
   * its new slice: readiness (/readyz) follows this, so a shard handover does not make a replica unready.
   */
  everSynced(): boolean {
    return this.#everSynced;
  }

  /** A controller's write of this resource was answered with `resourceVersion` (see {@link InformerLike.noteWrite}). */
  noteWrite(resourceVersion: string): void {
    this.#writeLag.noteWrite(resourceVersion, this.#clock.nowMonotonic(), this.#runner.state.mem.rv);
  }

  /** Health of the watch loop (for /readyz and metrics); also refreshes kubeop_cache_objects and the write lag. */
  health(): WatchHealth {
    const labels = { resource: this.#resourceName };
    this.#metrics?.cacheObjects?.set(labels, this.#store.size);
    const health = this.#runner.health();
    const lag = this.#writeLag.measure(health.resourceVersion, this.#clock.nowMonotonic());
    if (lag) health.ownWriteLag = lag;
    this.#metrics?.cacheOwnWriteLag?.set(labels, (lag?.behindMs ?? 0) / 1000);
    // A new slice's list (a fresh loop) is not a loss of sync for readiness: see everSynced().
    return this.#everSynced && !health.synced ? { ...health, synced: true } : health;
  }

  /** Runs the list+watch loop until `signal` aborts. Never throws for transient errors. */
  async start(signal: AbortSignal): Promise<void> {
    if (this.#started) throw new Error(`informer for ${this.#resourceName} already started`);
    this.#started = true;
    try {
      // One runner per shard selector: a change aborts the current one (which writes nothing once aborted) and the
      // next starts with the new selector.
      while (!signal.aborted) {
        const stop = new AbortController();
        const onAbort = () => stop.abort(signal.reason);
        signal.addEventListener("abort", onAbort, { once: true });
        this.#runnerStop = stop;
        try {
          await this.#runner.run(stop.signal);
        } finally {
          signal.removeEventListener("abort", onAbort);
        }
        if (!signal.aborted) this.#runner = this.#newRunner();
      }
    } finally {
      this.#waiters.abandonAll();
    }
  }

  /**
   * Resolves true once the cache holds `key` at resourceVersion ≥ `rv` (or has seen it deleted at ≥ `rv`); false
   * after `timeoutMs` (default 5 000) or abort. Opaque (non-decimal) RVs must match exactly.
   */
  waitForResourceVersion(key: string, rv: string, opts: WaitOptions = {}): Promise<boolean> {
    const current = this.#store.get(key)?.metadata.resourceVersion;
    if (current !== undefined && resourceVersionReached(current, rv)) return Promise.resolve(true);
    return this.#waiters.waitForResourceVersion(key, rv, opts);
  }

  /** Resolves true once no object with `uid` is cached (immediately when none is); false on timeout or abort. */
  waitForDeletion(uid: string, opts: WaitOptions = {}): Promise<boolean> {
    if (!this.#store.getByUid(uid)) return Promise.resolve(true);
    return this.#waiters.waitForDeletion(uid, opts);
  }

  /** A full list from the loop (initial or relist). */
  #replace(items: KubeObject[]): void {
    const objs = items.map((o) => this.#transform(o as T));
    const changes = this.#store.replace(objs);
    for (const c of changes) this.#notify(c);
    this.#metrics?.cacheObjects?.set({ resource: this.#resourceName }, this.#store.size);
    if (!this.#synced) {
      this.#synced = true;
      if (!this.#everSynced) {
        this.#everSynced = true;
        for (const h of this.#handlers) this.#safe(() => h.synced?.());
      }
      const waiters = this.#syncWaiters;
      this.#syncWaiters = [];
      for (const w of waiters) w();
    }
  }

  /** One event from the loop. */
  #apply(type: "ADDED" | "MODIFIED" | "DELETED", obj: KubeObject): void {
    const o = this.#transform(obj as T);
    const change = type === "DELETED" ? this.#store.remove(o) : this.#store.upsert(o);
    if (change) {
      this.#notify(change);
    } else if (type === "DELETED") {
      this.#waiters.observe(o, true);
    }
  }

  #notify(change: StoreChange<T>): void {
    for (const h of this.#handlers) this.#call(h, change);
    this.#waiters.observe(change.obj, change.type === "deleted");
  }

  #call(h: InformerHandler<T>, change: StoreChange<T>): void {
    switch (change.type) {
      case "added":
        if (h.added) this.#safe(() => h.added!(change.obj));
        return;
      case "modified":
        if (h.modified) this.#safe(() => h.modified!(change.old, change.obj));
        return;
      case "deleted":
        if (h.deleted) this.#safe(() => h.deleted!(change.obj));
        return;
    }
  }

  #safe(fn: () => void): void {
    try {
      fn();
    } catch (err) {
      this.#log.warn("informer handler for {resource} threw: {error}", {
        resource: this.#resourceName,
        error: err instanceof Error ? err.message : String(err),
      });
    }
  }
}
