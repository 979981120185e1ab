/**
 * The webhook server's metrics, named and labelled as controller-runtime's `webhook/internal/metrics`:
 * `controller_runtime_webhook_requests_total{webhook,code}`, `controller_runtime_webhook_latency_seconds{webhook}`
 * and `controller_runtime_webhook_requests_in_flight{webhook}`, where `webhook` is the path served. They live on the
 * Manager's registry (../observe/metrics.ts), registered once per registry.
 * @module
 */
import { Counter, Gauge, Histogram, type Registry } from "../observe/prom_client.ts";
import type { CounterMetric, GaugeMetric, HistogramMetric } from "../observe/metrics.ts";

/** The three webhook series. */
export interface WebhookMetrics {
  /** controller_runtime_webhook_requests_total{webhook,code}. */
  readonly requests: CounterMetric<"webhook" | "code">;
  /** controller_runtime_webhook_latency_seconds{webhook}. */
  readonly latency: HistogramMetric<"webhook">;
  /** controller_runtime_webhook_requests_in_flight{webhook}. */
  readonly inFlight: GaugeMetric<"webhook">;
}

/** prometheus.DefBuckets, which controller-runtime's webhook latency histogram uses. */
const DEFAULT_BUCKETS = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10];

const byRegistry = new WeakMap<Registry, WebhookMetrics>();

/**
 * The webhook metrics on `registry` (created on first use).
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { Metrics } from "../observe/metrics.ts";
 * import { webhookMetrics } from "./webhook_metrics.ts";
 * const metrics = new Metrics();
 * webhookMetrics(metrics.registry).requests.inc({ webhook: "/convert", code: 200 });
 * assert.equal(await metrics.value("controller_runtime_webhook_requests_total", { webhook: "/convert" }), 1);
 * ```
 */
export function webhookMetrics(registry: Registry): WebhookMetrics {
  const existing = byRegistry.get(registry);
  if (existing) return existing;
  const registers = [registry];
  const metrics: WebhookMetrics = {
    requests: new Counter({
      name: "controller_runtime_webhook_requests_total",
      help: "Total number of admission requests by HTTP status code.",
      labelNames: ["webhook", "code"],
      registers,
    }),
    latency: new Histogram({
      name: "controller_runtime_webhook_latency_seconds",
      help: "Histogram of the latency of processing admission requests",
      labelNames: ["webhook"],
      buckets: DEFAULT_BUCKETS,
      registers,
    }),
    inFlight: new Gauge({
      name: "controller_runtime_webhook_requests_in_flight",
      help: "Current number of admission requests being served.",
      labelNames: ["webhook"],
      registers,
    }),
  };
  byRegistry.set(registry, metrics);
  return metrics;
}
