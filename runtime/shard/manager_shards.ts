/**
 * Sharding as a Manager plug-in (docs/sharding.md, runtime/manager/manager_plugin.ts): the ring built from
 * {@link ManagerSharding} runs as a Runnable on every replica, the hook points the sharded controllers' primary (For)
 * informers at the held buckets, controllers get the shard admission, and /readyz gets the `shards` line.
 *
 * What runs where when sharding is on: every runnable that is `shardable` (every {@link Controller}) runs on every
 * replica, after the caches synced, and reconciles only the keys of the buckets this replica holds — each bucket is
 * its own election, so these need no leader Lease, and their writes go through the unfenced client plus the
 * per-reconcile bucket fence. Runnables that are not shardable keep their `needLeaderElection` meaning: with leader
 * election configured, only the leader runs them (behind the leader fence), as before.
 * @module
 */

import type { ShardRange } from "../apimachinery/shard_selector.ts";
import type { InformerSource } from "../cache/cache.ts";
import type { Clock } from "../clock.ts";
import type { KubeClient } from "../client/client.ts";
import type { Logger } from "../observe/log.ts";
import type { Metrics } from "../observe/metrics.ts";
import { shardMetrics } from "./shard_metrics.ts";
import type { CheckResult } from "../manager/probes.ts";
import type { ControllerRunnable, Runnable } from "../manager/runnable.ts";
import type { ManagerPlugin } from "../manager/manager_plugin.ts";
import type { ControllerClient } from "../controller/controller_client.ts";
import { shardAdmission } from "./shard_admission.ts";
import { kubeLeaseDirectory, type LeaseDirectory } from "./shard_leases.ts";
import { ShardRing } from "./shard_ring.ts";
import { primarySlicer, primeShardSlices } from "./shard_slices.ts";

/** Sharding settings (`kubeop run --shards auto`). */
export interface ManagerSharding {
  /** Ring name: prefix of the bucket and member Leases and value of their label (default `kubeop`). */
  id?: string;
  /** Namespace of the ring's Leases. */
  namespace: string;
  /** This replica's identity in the ring (default: the leader election identity, else `hostname_uuid`). */
  identity?: string;
  /** Number of buckets (`--shard-buckets`, default 16); every replica must use the same. */
  buckets?: number;
  /** Bucket Lease duration in seconds (default 15). */
  leaseSeconds?: number;
  /** Bucket renew deadline in seconds (default 10). */
  renewDeadlineSeconds?: number;
  /** Interval of the ring's list and of renewals, in seconds (default 2). */
  retryPeriodSeconds?: number;
  /** Longest wait for a bucket's in-flight reconciles on handover (default half the renew deadline). */
  drainTimeoutMs?: number;
  /** Replaces the Leases on the API server (tests). */
  directory?: LeaseDirectory;
  /** Random source for jitter (tests). */
  random?: () => number;
  /**
   * Called with the held ranges whenever they change, before gained buckets admit work, in addition to pointing the
   * primary informers at them (tests, custom caches).
   */
  onBucketsChanged?(held: ShardRange[], signal: AbortSignal): Promise<void>;
}

/** A controller that partitions its work by the shard ring when the manager shards (Controller sets it). */
export function isShardable(r: ControllerRunnable): boolean {
  return r.shardable === true;
}

/**
 * Builds the ring for `opts`: Leases in `namespace`, metrics on the manager's registry, and a bucket hook that sets
 * the held ranges as the shard selector of the shardable runnables' primary informers (runtime/shard/shard_slices.ts) and
 * waits for their sync.
 */
export function createShardRing(o: {
  sharding: ManagerSharding;
  client: KubeClient;
  clock: Clock;
  metrics: Metrics;
  logger: Logger;
  identity: string;
  informers: InformerSource;
  runnables: () => ControllerRunnable[];
}): ShardRing {
  const ring = o.sharding.id ?? "kubeop";
  const slicePrimaries = primarySlicer({
    informers: o.informers,
    runnables: o.runnables,
    isShardable,
    logger: o.logger,
  });
  return new ShardRing({
    ...o.sharding,
    directory: o.sharding.directory ?? kubeLeaseDirectory({ client: o.client, namespace: o.sharding.namespace, ring }),
    ring,
    identity: o.identity,
    clock: o.clock,
    metrics: shardMetrics(o.metrics, ring),
    logger: o.logger,
    onBucketsChanged: async (held, signal) => {
      await slicePrimaries(held, signal);
      await o.sharding.onBucketsChanged?.(held, signal);
    },
  });
}

/** The /readyz `shards` line: always ready; says when this replica holds no bucket (idle) or how many it holds. */
export function shardsCheck(ring: ShardRing): CheckResult {
  const held = ring.gate.held().length;
  return {
    name: "shards",
    ok: true,
    detail: held === 0
      ? `idle: holds no shard bucket (${ring.members.length} members)`
      : `holds ${held}/${ring.buckets} shard buckets (${ring.members.length} members)`,
  };
}

/**
 * The sharding plug-in of a Manager: shardable controllers run on every replica with the shard admission and the
 * `unfenced` client (each reconcile's writes pass its bucket's fence instead), their primaries are primed to the empty
 * slice before the caches start, the ring runs as an every-replica Runnable (stopping hands its buckets over: drain,
 * then release), and /readyz reports the held buckets.
 *
 * @example
 * ```ts
 * import { eventually, startFakeApiServer } from "../../testing/mod.ts";
 * import { KubeClient } from "../client/client.ts";
 * import { Controller } from "../controller/controller.ts";
 * import { done } from "../controller/reconcile.ts";
 * import { Manager } from "../manager/manager.ts";
 * import { CoreTypes } from "../types.ts";
 * const cluster = await startFakeApiServer({ anonymousAdmin: true });
 * const client = new KubeClient({ config: { server: cluster.url } });
 * // The Manager adds this plug-in when `sharding` is set (`kubeop run --shards auto`); every replica runs the same.
 * const manager = new Manager({ client, sharding: { namespace: "default", buckets: 4 } });
 * const reconciled = new Set<string>();
 * manager.add(
 *   new Controller({
 *     name: "cms",
 *     for: CoreTypes.ConfigMap,
 *     reconcile: (ctx) => {
 *       reconciled.add(ctx.key);
 *       return Promise.resolve(done());
 *     },
 *   }),
 * );
 * const stop = new AbortController();
 * const running = manager.start(stop.signal);
 * await client.create(CoreTypes.ConfigMap, { metadata: { name: "a", namespace: "default" } });
 * // alone in the ring, this replica takes every bucket Lease (`default/kubeop-bucket-<n>`) and reconciles every key
 * await eventually("default/a is reconciled", () => reconciled.has("default/a"), { timeoutMs: 30_000 });
 * stop.abort();
 * await running; // buckets handed over: drained, Leases released, the member Lease deleted
 * client.close();
 * await cluster.stop();
 * ```
 */
export function shardingPlugin(o: {
  sharding: ManagerSharding;
  client: KubeClient;
  unfenced: ControllerClient;
  clock: Clock;
  metrics: Metrics;
  logger: Logger;
  identity: string;
  informers: InformerSource;
}): ManagerPlugin & { ring: ShardRing } {
  const sharded: ControllerRunnable[] = [];
  const ring = createShardRing({ ...o, runnables: () => sharded });
  const admission = shardAdmission(ring.gate);
  const runner: Runnable = { name: "shard-ring", needLeaderElection: false, start: (signal) => ring.run(signal) };
  return {
    name: "sharding",
    ring,
    placeController(controller, deps) {
      if (!isShardable(controller)) return { deps };
      sharded.push(controller);
      return { deps: { ...deps, client: o.unfenced, admission }, everyReplica: true };
    },
    starting: () => primeShardSlices(sharded, o.informers, isShardable), // list no primary before a bucket
    runnables: () => [runner],
    checks: () => [shardsCheck(ring)],
  };
}
