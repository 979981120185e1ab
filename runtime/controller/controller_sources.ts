/**
 * Where a controller's keys come from: informer events on its For, Owns and Watches resources (each mapped to For
 * keys, replayed initial state at low priority), and the optional periodic resync of every cached For object. The
 * {@link Controller} wires these in start(); they only enqueue keys and wake the read-your-own-writes waits.
 * @module
 */

import type { Clock } from "../clock.ts";
import type { InformerLike } from "../cache/cache.ts";
import type { MapFn } from "./reconcile.ts";
import type { Logger } from "../observe/log.ts";
import { type OwnWritesTracker, resourceId } from "./own_writes.ts";
import type { Priority, WorkQueue } from "../queue/queue.ts";
import { type KubeObject, objectKey, type ResourceType } from "../types.ts";
import type { WatchScope } from "../watch/watch_runner.ts";

/** One watched resource and how its objects map to For keys (For itself maps to its own key). */
export interface Source {
  /** The watched resource. */
  rt: ResourceType;
  /** Its informer options. */
  opts?: WatchScope;
  /** Its objects → For keys. */
  map: MapFn;
}

const GROUP_OF = (apiVersion: string) => (apiVersion.includes("/") ? apiVersion.slice(0, apiVersion.indexOf("/")) : "");

/**
 * The {@link MapFn} of `owns()`: an object's controller ownerRef of the For kind names the For key to reconcile.
 *
 * @example
 * ```ts
 * import { controllerOwnerKeys } from "./controller_sources.ts";
 * import { CoreTypes } from "../types.ts";
 * const map = controllerOwnerKeys(CoreTypes.Secret);
 * const ref = { apiVersion: "v1", kind: "Secret", name: "s", uid: "u", controller: true };
 * console.assert(map({ metadata: { name: "p", namespace: "ns", ownerReferences: [ref] } })[0] === "ns/s");
 * ```
 */
export function controllerOwnerKeys(forType: ResourceType): MapFn {
  const { group, kind } = forType;
  const clusterScoped = !forType.namespaced;
  return (obj) => {
    const ref = obj.metadata.ownerReferences?.find((r) => r.controller === true);
    if (!ref || ref.kind !== kind || GROUP_OF(ref.apiVersion) !== group) return [];
    return [clusterScoped || !obj.metadata.namespace ? ref.name : `${obj.metadata.namespace}/${ref.name}`];
  };
}

/**
 * The informers whose stores the read-your-own-writes waits may consult (and whose write lag the writes feed), by resource id (the first unscoped informer of each
 * resource). A selector-scoped cache may never show an object we wrote (it stopped matching): do not wait on it.
 */
export function ownWritesStores(
  sources: readonly Source[],
  informers: readonly InformerLike[],
): Map<string, InformerLike> {
  const stores = new Map<string, InformerLike>();
  informers.forEach((inf, i) => {
    const { rt, opts } = sources[i];
    if (opts?.labelSelector || opts?.fieldSelector) return;
    if (!stores.has(resourceId(rt))) stores.set(resourceId(rt), inf);
  });
  return stores;
}

/** What {@link wireSources} feeds. */
export interface WireSourcesOptions {
  /** The sources, For first (index-aligned with `informers`). */
  sources: readonly Source[];
  /** Their informers. */
  informers: readonly InformerLike[];
  /** Receives the keys. */
  queue: WorkQueue;
  /** Woken on every cache change (and told of deleted uids). */
  ownWrites: OwnWritesTracker;
  /** Where a failing map function is reported. */
  log: Logger;
}

/**
 * Registers a handler on every informer: each added/modified/deleted object's keys go to the queue — low priority
 * while the informer replays or has not synced yet, high afterwards; on a modification of an Owns/Watches object the
 * old object's keys too (a relabel or re-parent: the previous owner must hear of it). Returns the removal of all
 * handlers.
 */
export function wireSources(o: WireSourcesOptions): () => void {
  const unregister: (() => void)[] = [];
  o.informers.forEach((inf, i) => {
    const map = o.sources[i].map;
    let replaying = true; // objects replayed by addHandler are initial state: low priority
    const priority = (): Priority => (replaying || !inf.hasSynced() ? "low" : "high");
    const enqueue = (obj: KubeObject, p: Priority) => {
      let keys: string[];
      try {
        keys = map(obj);
      } catch (err) {
        o.log.error("map function for {resource} failed: {error}", { resource: inf.resource.plural, error: err });
        return;
      }
      for (const key of keys) o.queue.add(key, p);
    };
    unregister.push(inf.addHandler({
      added: (obj) => {
        o.ownWrites.notify();
        enqueue(obj, priority());
      },
      modified: (old, obj) => {
        o.ownWrites.notify();
        const p = priority();
        enqueue(obj, p);
        if (i > 0) enqueue(old, p); // a relabel or re-parent: the previous owner must hear of it too
      },
      deleted: (obj) => {
        o.ownWrites.notify(obj.metadata?.uid);
        enqueue(obj, priority());
      },
    }));
    replaying = false;
  });
  return () => unregister.forEach((u) => u());
}

/**
 * Re-queues every object in `forStore` at low priority every `periodMs` (controller-runtime's SyncPeriod); returns
 * its cancellation. `periodMs` undefined or ≤ 0: off.
 */
export function startResync(
  o: { clock: Clock; periodMs: number | undefined; forStore: InformerLike["store"]; queue: WorkQueue },
): () => void {
  const periodMs = o.periodMs;
  if (periodMs === undefined || periodMs <= 0) return () => {};
  let cancel: () => void;
  const resync = () => {
    for (const obj of o.forStore.list()) o.queue.add(objectKey(obj), "low");
    cancel = o.clock.setTimer(periodMs, resync);
  };
  cancel = o.clock.setTimer(periodMs, resync);
  return () => cancel();
}
