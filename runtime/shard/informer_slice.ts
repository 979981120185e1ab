/**
 * Sliced informers (the server-side half of sharding, issue 15): the interface the sharding core drives
 * ({@link ShardedInformer}, implemented by cache.ts's Informer) and the one rule of a selector change — which cached
 * objects left the slice. How a slice is watched: the informer's WatchRunner sends KEP-5866 `shardSelector` on list
 * and watch; a list that echoes `metadata.shardInfo` means the server filters, one without it (gate off, older
 * server) means everything arrives and the runner filters with `matchesShardSelector`. See docs/CONTRACTS.md.
 * @module
 */
import { matchesShardSelector, type ShardSelector } from "../apimachinery/shard_selector.ts";
import { type KubeObject, objectKey } from "../types.ts";

/** How a sliced informer's slice is served. */
export type ShardMode = "server" | "client" | "pending" | "off";

/**
 * An informer that can watch one slice of its collection (KEP-5866 server-side, else filtered client-side). The
 * sharding core slices its controllers' primary informers (never children) with it. See docs/CONTRACTS.md.
 */
export interface ShardedInformer {
  /**
   * Watches only the objects in `selector`'s hash ranges (`null`: the whole collection). A change restarts the
   * list+watch with the new selector: `hasSynced()` is false (and `waitForSync()` waits) until the new slice is
   * listed; objects that left the slice are dropped with the handlers' `leftSlice` (never `deleted`), gained ones
   * arrive as `added`. A no-op when the selector is unchanged. Before `start`, it only sets the first selector.
   */
  setShardSelector(selector: ShardSelector | null): void;
  /** The slice asked for (`null`: all). */
  shardSelector(): ShardSelector | null;
  /**
   * How the slice is served: `server` (the list echoed `metadata.shardInfo`), `client` (the server ignored the
   * selector: everything is received and filtered here), `pending` (not listed since the last change), `off`.
   */
  shardMode(): ShardMode;
  /** Whether the current slice is listed into the cache (false from a selector change until its first list). */
  hasSynced(): boolean;
  /** Resolves once the current slice is listed; rejects when `signal` aborts first. */
  waitForSync(signal?: AbortSignal): Promise<void>;
}

/**
 * Whether an informer (from an `InformerSource`) can be sliced.
 *
 * @example
 * ```ts ignore
 * const primary = informers.get(WidgetType);
 * if (isShardedInformer(primary)) primary.setShardSelector(selectorForHeldBuckets);
 * ```
 */
export function isShardedInformer<T>(informer: T): informer is T & ShardedInformer {
  const i = informer as Partial<ShardedInformer> | undefined;
  return typeof i?.setShardSelector === "function" && typeof i.shardSelector === "function" &&
    typeof i.shardMode === "function";
}

/**
 * The cached objects that left the slice on a selector change: outside `shard` and absent from the new slice's first
 * list. (Absent objects still inside the slice were deleted meanwhile: the relist's diff reports those as `deleted`.)
 *
 * @example
 * ```ts
 * import { sliceLeavers } from "./informer_slice.ts";
 * const none = { field: "object.metadata.uid" as const, ranges: [] };
 * sliceLeavers([{ metadata: { name: "a", uid: "u" } }], [], none).length; // 1: no range holds it any more
 * ```
 */
export function sliceLeavers<T extends KubeObject>(
  cached: Iterable<T>,
  listed: readonly T[],
  shard: ShardSelector,
): T[] {
  const present = new Set(listed.map((o) => objectKey(o)));
  const out: T[] = [];
  for (const obj of cached) {
    if (!present.has(objectKey(obj)) && !matchesShardSelector(shard, obj)) out.push(obj);
  }
  return out;
}
