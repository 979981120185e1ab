/**
 * Slicing the primary informers by the held buckets (issue 15, the wiring between the shard ring and KEP-5866
 * slices): whenever the ring's held buckets change, every sharded controller's primary (For) informer watches
 * exactly `shardRange(object.metadata.uid, …)` of the held ranges — server-side where the server echoes
 * `shardInfo`, client-side otherwise — by re-listing them through the informer registry (`InformerSource.relist`),
 * and the ring's hook resolves only once those informers listed their new slice, so a gained bucket's keys are
 * dispatched after its range is in the cache. The relist replaces the cache like any other: objects that left the
 * slice reach the handlers as `deleted` (the controller's shard admission then refuses their keys: not ours).
 *
 * Rules:
 * - Only primaries. An informer that is also a child (Owns/Watches) of any controller, or read by a runnable that is
 *   not sharded, stays whole: its other readers need every object (a child maps to its owner's uid on the client
 *   side, which the server cannot filter). Children (Switches, pods, Secrets) are never sliced.
 * - Holding no bucket keeps the informer sliced to {@link EMPTY_SLICE_RANGE} — one hash value out of 2^64, a slice
 *   that is empty in practice — rather than `null`, which would mean the whole collection. An idle replica then
 *   caches (and, server-side, receives) nothing of its primaries; the shard gate still refuses the (2^-64 likely)
 *   object that hashes to 0, since no bucket is held.
 * - Before the ring won anything (the caches start first), the primaries start sliced to {@link EMPTY_SLICE_RANGE}
 *   too ({@link primeShardSlices}): a replica never lists the whole collection only to drop most of it a moment later.
 * - Sharding off: the ring does not exist and this never runs; informers keep selector `null` (the whole collection).
 * @module
 */
import type { ShardRange, ShardSelector } from "../apimachinery/shard_selector.ts";
import type { InformerLike, InformerSource } from "../cache/cache.ts";
import type { ResourceType } from "../types.ts";
import type { WatchScope } from "../watch/watch_runner.ts";
import type { Logger } from "../observe/log.ts";
import type { ControllerRunnable } from "../manager/runnable.ts";

/** The range an idle replica's primaries watch: the single hash 0x0, i.e. nothing in practice. */
export const EMPTY_SLICE_RANGE: ShardRange = { start: "0x0000000000000000", end: "0x0000000000000001" };

/**
 * The shard selector for a set of held ranges; holding none gives {@link EMPTY_SLICE_RANGE} (never `null`).
 *
 * @example
 * ```ts
 * import { heldSliceSelector } from "./shard_slices.ts";
 * heldSliceSelector([]).ranges; // [{ start: "0x0000000000000000", end: "0x0000000000000001" }]
 * ```
 */
export function heldSliceSelector(held: readonly ShardRange[]): ShardSelector {
  return {
    field: "object.metadata.uid",
    ranges: held.length > 0 ? held.map((r) => ({ ...r })) : [{ ...EMPTY_SLICE_RANGE }],
  };
}

/** One informer to slice: how the registry names it, and the informer (to wait for its new slice). */
export interface SlicedInformer {
  rt: ResourceType;
  opts?: WatchScope;
  informer: InformerLike;
}

/** What {@link slicedPrimaries} found: the informers to slice and the primaries left whole (with why). */
export interface PrimarySlices {
  sliced: SlicedInformer[];
  whole: { runnable: string; reason: string }[];
}

/**
 * The primary informers of the shardable runnables that may be sliced: the first watched resource of each
 * shardable runnable, minus every informer another source (a child of any runnable, or any source of a runnable
 * that is not sharded) also reads, and minus informers that cannot slice (e.g. a multi-namespace composite).
 * Informers are compared by identity, as the source hands out one shared informer per (resource, scope).
 */
export function slicedPrimaries(
  runnables: readonly ControllerRunnable[],
  informers: InformerSource,
  isShardable: (r: ControllerRunnable) => boolean,
): PrimarySlices {
  const primaries: { runnable: string; source: SlicedInformer }[] = [];
  const sharedElsewhere = new Set<unknown>();
  for (const r of runnables) {
    const sources = r.watchedResources?.() ?? [];
    sources.forEach(({ rt, opts }, i) => {
      const informer = informers.get(rt, opts);
      if (i === 0 && isShardable(r)) primaries.push({ runnable: r.name, source: { rt, opts, informer } });
      else sharedElsewhere.add(informer);
    });
  }
  const sliced = new Map<unknown, SlicedInformer>();
  const whole: PrimarySlices["whole"] = [];
  for (const { runnable, source } of primaries) {
    if (sharedElsewhere.has(source.informer)) {
      whole.push({ runnable, reason: "its primary informer is also a child or a non-sharded runnable's source" });
    } else if (!informers.relist) {
      whole.push({ runnable, reason: "its primary informer cannot watch a slice" });
    } else if (!sliced.has(source.informer)) sliced.set(source.informer, source);
  }
  return { sliced: [...sliced.values()], whole };
}

/**
 * Slices the sliceable primaries to {@link EMPTY_SLICE_RANGE} before their informers start (the Manager calls it when
 * sharding is on), so their first list is empty rather than the whole collection; the ring's first
 * {@link primarySlicer} call then points them at the buckets it won.
 */
export function primeShardSlices(
  runnables: readonly ControllerRunnable[],
  informers: InformerSource,
  isShardable: (r: ControllerRunnable) => boolean,
): void {
  const selector = heldSliceSelector([]);
  for (const { rt, opts } of slicedPrimaries(runnables, informers, isShardable).sliced) {
    informers.relist?.(rt, opts, selector);
  }
}

/**
 * The ring's `onBucketsChanged` hook for a Manager: points the sliceable primaries at `held` (see
 * {@link heldSliceSelector}) and resolves once each listed its new slice (strict `waitForSync`), so gained keys are
 * dispatched after their range is listed. The set of primaries is computed on the first call (after every runnable
 * was added) and logged once.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { startFakeApiServer } from "../../testing/mod.ts";
 * import { shardHash } from "../apimachinery/shard_selector.ts";
 * import { InformerRegistry } from "../cache/informers.ts";
 * import { KubeClient } from "../client/client.ts";
 * import { Controller } from "../controller/controller.ts";
 * import { done } from "../controller/reconcile.ts";
 * import { CoreTypes, type KubeObject } from "../types.ts";
 * import { primarySlicer } from "./shard_slices.ts";
 * const cluster = await startFakeApiServer({ anonymousAdmin: true });
 * const client = new KubeClient({ config: { server: cluster.url } });
 * const uids: string[] = [];
 * for (const name of ["a", "b", "c", "d"]) {
 *   const cm = await client.create<KubeObject>(CoreTypes.ConfigMap, { metadata: { name, namespace: "default" } });
 *   uids.push(cm.metadata.uid!);
 * }
 * const informers = new InformerRegistry({ client });
 * const ctl = new Controller({ name: "cms", for: CoreTypes.ConfigMap, reconcile: () => Promise.resolve(done()) });
 * // A ShardRing calls this with the ranges of the buckets it holds (`onBucketsChanged`).
 * const onBucketsChanged = primarySlicer({ informers, runnables: () => [ctl], isShardable: () => true });
 * const ctrl = new AbortController();
 * const running = informers.start(ctrl.signal);
 * const lowerHalf = { start: "0x0000000000000000", end: "0x8000000000000000" };
 * await onBucketsChanged([lowerHalf], ctrl.signal); // resolves once the slice is listed
 * const cached = informers.get(CoreTypes.ConfigMap).store.list()
 *   .filter((cm) => cm.metadata.namespace === "default").map((cm) => cm.metadata.uid).sort();
 * assert.deepEqual(cached, uids.filter((uid) => BigInt(shardHash(uid)) < 0x8000000000000000n).sort());
 * ctrl.abort();
 * await running;
 * client.close();
 * await cluster.stop();
 * ```
 */
export function primarySlicer(o: {
  informers: InformerSource;
  runnables: () => readonly ControllerRunnable[];
  isShardable: (r: ControllerRunnable) => boolean;
  logger?: Logger;
}): (held: ShardRange[], signal: AbortSignal) => Promise<void> {
  let plan: PrimarySlices | undefined;
  return async (held, signal) => {
    if (!plan) {
      plan = slicedPrimaries(o.runnables(), o.informers, o.isShardable);
      for (const w of plan.whole) {
        o.logger?.info("sharded controller {runnable} reads its whole primary collection: {reason}", w);
      }
    }
    const selector = heldSliceSelector(held);
    for (const { rt, opts } of plan.sliced) o.informers.relist?.(rt, opts, selector);
    await Promise.all(plan.sliced.map(({ informer }) => informer.waitForSync(signal)));
  };
}
