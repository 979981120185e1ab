/**
 * One shared {@link Informer} per (resource, namespace, selectors, metadataOnly), however many controllers ask
 * (controller-runtime's cache / client-go's SharedInformerFactory). Informers requested after {@link
 * InformerRegistry.start} start at once.
 * @module
 */

import { resourceId } from "../apimachinery/names.ts";
import type { KubeClient } from "../client/client.ts";
import type { Clock } from "../clock.ts";
import type { ShardSelector } from "../apimachinery/shard_selector.ts";
import { Informer, type InformerMetrics, type InformerSource } from "./cache.ts";
import type { KubeObject, ResourceType } from "../types.ts";
import type { WatchHealth, WatchLogger, WatchScope } from "../watch/watch_runner.ts";

/** Raised by {@link InformerRegistry.waitForSync} when a cache did not sync in time. */
export class CacheSyncTimeoutError extends Error {
  /** Resource names (`plural.group [ns=…]`) still unsynced. */
  readonly unsynced: string[];
  /** Names the unsynced caches. */
  constructor(unsynced: string[], timeoutMs: number) {
    super(`caches not synced after ${timeoutMs} ms: ${unsynced.join(", ")}`);
    this.name = "CacheSyncTimeoutError";
    this.unsynced = unsynced;
  }
}

/** Construction options shared by every informer of the registry. */
export interface InformerRegistryOptions {
  /** The cluster client. */
  client: KubeClient;
  /** Default: the client's clock. */
  clock?: Clock;
  /** Metric hooks shared by all informers. */
  metrics?: InformerMetrics;
  /** Logger shared by all informers. */
  logger?: WatchLogger;
  /** Try WatchList first (default true). */
  watchList?: boolean;
  /** Uniform [0,1) source (tests pass a seeded one). */
  random?: () => number;
}

function describe(rt: ResourceType, scope: WatchScope): string {
  const parts = [resourceId(rt)];
  if (scope.namespace) parts.push(`ns=${scope.namespace}`);
  if (scope.labelSelector) parts.push(`labels=${scope.labelSelector}`);
  if (scope.fieldSelector) parts.push(`fields=${scope.fieldSelector}`);
  if (scope.metadataOnly) parts.push("metadata-only");
  return parts.join(" ");
}

/**
 * The shared informers of one manager.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { startFakeApiServer } from "../../testing/mod.ts";
 * import { KubeClient } from "../client/client.ts";
 * import { CoreTypes } from "../types.ts";
 * import { InformerRegistry } from "./informers.ts";
 * const cluster = await startFakeApiServer({ anonymousAdmin: true });
 * const client = new KubeClient({ config: { server: cluster.url } });
 * const informers = new InformerRegistry({ client });
 * const namespaces = informers.get(CoreTypes.Namespace); // asked twice, one informer: shared
 * assert.equal(informers.get(CoreTypes.Namespace), namespaces);
 * const ctrl = new AbortController();
 * const running = informers.start(ctrl.signal);
 * await informers.waitForSync(30_000);
 * assert.ok(namespaces.store.get("default"));
 * ctrl.abort();
 * await running;
 * client.close();
 * await cluster.stop();
 * ```
 */
export class InformerRegistry implements InformerSource {
  readonly #opts: InformerRegistryOptions;
  readonly #informers = new Map<string, Informer<KubeObject>>();
  readonly #running: Promise<void>[] = [];
  #signal?: AbortSignal;

  /** Creates an empty registry. */
  constructor(opts: InformerRegistryOptions) {
    this.#opts = opts;
  }

  /** The informer for this collection, created on first request. */
  get<T extends KubeObject = KubeObject>(rt: ResourceType, scope: WatchScope = {}): Informer<T> {
    const id = describe(rt, scope) + ` @${rt.version}`;
    let informer = this.#informers.get(id);
    if (!informer) {
      informer = new Informer<KubeObject>({
        client: this.#opts.client,
        resource: rt,
        clock: this.#opts.clock,
        metrics: this.#opts.metrics,
        logger: this.#opts.logger,
        watchList: this.#opts.watchList,
        random: this.#opts.random,
        ...scope,
      });
      this.#informers.set(id, informer);
      if (this.#signal && !this.#signal.aborted) this.#running.push(informer.start(this.#signal));
    }
    return informer as unknown as Informer<T>;
  }

  /**
   * Re-lists the informer of (`rt`, `scope`) watching only `slice` (`null`: all); see {@link Informer.relist}.
   *
   * @example
   * ```ts
   * import assert from "node:assert/strict";
   * import { startFakeApiServer } from "../../testing/mod.ts";
   * import { KubeClient } from "../client/client.ts";
   * import type { ShardSelector } from "../apimachinery/shard_selector.ts";
   * import { CoreTypes } from "../types.ts";
   * import { InformerRegistry } from "./informers.ts";
   * const cluster = await startFakeApiServer({ anonymousAdmin: true });
   * const client = new KubeClient({ config: { server: cluster.url } });
   * await client.create(CoreTypes.ConfigMap, { metadata: { name: "a", namespace: "default" } });
   * const registry = new InformerRegistry({ client });
   * const configMaps = registry.get(CoreTypes.ConfigMap);
   * const ctrl = new AbortController();
   * const running = registry.start(ctrl.signal);
   * await registry.waitForSync(10_000);
   * assert.ok(configMaps.store.get("default/a"));
   * const none: ShardSelector = { field: "object.metadata.uid", ranges: [{ start: "0x0000000000000000", end: "0x0000000000000001" }] };
   * registry.relist(CoreTypes.ConfigMap, undefined, none);
   * await configMaps.waitForSync(); // the new slice is listed: no uid of ours hashes into [0, 1)
   * assert.equal(configMaps.store.list().length, 0);
   * ctrl.abort();
   * await running;
   * client.close();
   * await cluster.stop();
   * ```
   */
  relist(rt: ResourceType, scope: WatchScope | undefined, slice: ShardSelector | null): void {
    this.get(rt, scope).relist(slice);
  }

  /** Every informer created so far. */
  all(): Informer<KubeObject>[] {
    return [...this.#informers.values()];
  }

  /** Starts every informer (and any requested later); resolves after `signal` aborts and all have stopped. */
  async start(signal: AbortSignal): Promise<void> {
    if (this.#signal) throw new Error("InformerRegistry already started");
    this.#signal = signal;
    for (const informer of this.#informers.values()) this.#running.push(informer.start(signal));
    await new Promise<void>((resolve) => {
      if (signal.aborted) resolve();
      else signal.addEventListener("abort", () => resolve(), { once: true });
    });
    // Informers added while stopping are in #running too.
    await Promise.all(this.#running);
  }

  /**
   * True when every informer has synced its first list (readiness). A sliced informer listing a new slice still
   * counts (Informer.everSynced); the sharding core waits on that informer's own hasSynced/waitForSync instead.
   */
  hasSynced(): boolean {
    for (const i of this.#informers.values()) if (!i.everSynced()) return false;
    return true;
  }

  /** Resolves once all informers synced; throws {@link CacheSyncTimeoutError} naming the laggards after `timeoutMs`. */
  async waitForSync(timeoutMs: number, signal?: AbortSignal): Promise<void> {
    const clock = this.#opts.clock ?? this.#opts.client.clock;
    const ctrl = new AbortController();
    const onAbort = () => ctrl.abort(signal?.reason);
    signal?.addEventListener("abort", onAbort, { once: true });
    let timedOut = false;
    const cancel = clock.setTimer(timeoutMs, () => {
      timedOut = true;
      ctrl.abort(new Error("timeout"));
    });
    try {
      await Promise.all([...this.#informers.values()].map((i) => i.waitForSync(ctrl.signal)));
    } catch (err) {
      if (!timedOut) throw err;
      const unsynced = [...this.#informers.entries()].filter(([, i]) => !i.hasSynced()).map(([id]) => id);
      throw new CacheSyncTimeoutError(unsynced, timeoutMs);
    } finally {
      cancel();
      signal?.removeEventListener("abort", onAbort);
    }
  }

  /** Health of every watch loop (for /readyz). */
  health(): WatchHealth[] {
    return [...this.#informers.values()].map((i) => i.health());
  }
}
