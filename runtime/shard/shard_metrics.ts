/**
 * The shard ring's metrics, registered on a {@link Metrics} registry on first use (once per registry):
 * `kubeop_shard_members{ring}` (live members this replica sees, itself included), `kubeop_shard_buckets_held{ring}`
 * (bucket Leases this replica holds) and `kubeop_shard_handoffs_total{ring,kind}` (bucket changes on this replica:
 * `acquired`, `released` after a drain, `expired` when the drain timed out and the Lease was left to expire, `lost`
 * when renewing failed for the renew deadline).
 * @module
 */

import { Counter, Gauge } from "../observe/prom_client.ts";
import type { CounterMetric, GaugeMetric, Metrics } from "../observe/metrics.ts";
import type { ShardRingMetrics } from "./shard_ring.ts";

/** The shard series on one registry. */
export interface ShardMetrics extends ShardRingMetrics {
  /** kubeop_shard_members{ring}. */
  readonly shardMembers: GaugeMetric<"ring">;
  /** kubeop_shard_buckets_held{ring}. */
  readonly shardBucketsHeld: GaugeMetric<"ring">;
  /** kubeop_shard_handoffs_total{ring,kind}. */
  readonly shardHandoffs: CounterMetric<"ring" | "kind">;
}

const byRegistry = new WeakMap<Metrics, ShardMetrics>();

/** Handoff kinds created at 0 for a ring, so alerts see the series before the first move. */
export const SHARD_HANDOFF_KINDS = ["acquired", "released", "expired", "lost"] as const;

/**
 * The shard metrics of `metrics`' registry (registered on the first call), with the series of `ring` created at 0.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { Metrics } from "../observe/metrics.ts";
 * import { shardMetrics } from "./shard_metrics.ts";
 * const metrics = new Metrics();
 * shardMetrics(metrics, "kubeop").shardBucketsHeld.set({ ring: "kubeop" }, 5);
 * assert.equal(await metrics.value("kubeop_shard_buckets_held", { ring: "kubeop" }), 5);
 * ```
 */
export function shardMetrics(metrics: Metrics, ring: string): ShardMetrics {
  let m = byRegistry.get(metrics);
  if (!m) {
    const registers = [metrics.registry];
    m = {
      shardMembers: new Gauge({
        name: "kubeop_shard_members",
        help: "Live members of the shard ring as this replica sees them (itself included).",
        labelNames: ["ring"],
        registers,
      }),
      shardBucketsHeld: new Gauge({
        name: "kubeop_shard_buckets_held",
        help: "Shard buckets whose Lease this replica holds.",
        labelNames: ["ring"],
        registers,
      }),
      shardHandoffs: new Counter({
        name: "kubeop_shard_handoffs_total",
        help: "Shard bucket changes on this replica: acquired, released (drained), expired (drain timed out), lost.",
        labelNames: ["ring", "kind"],
        registers,
      }),
    };
    byRegistry.set(metrics, m);
  }
  m.shardMembers.set({ ring }, 0);
  m.shardBucketsHeld.set({ ring }, 0);
  for (const kind of SHARD_HANDOFF_KINDS) m.shardHandoffs.inc({ ring, kind }, 0);
  return m;
}
