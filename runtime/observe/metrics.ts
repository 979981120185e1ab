/**
 * Prometheus metrics with controller-runtime's names, labels and bucket layouts, client-go's rest_client_* metrics,
 * prom-client's process and runtime collectors, plus kubeop's watch/cache metrics. One {@link Metrics} per Manager
 * owns its own prom-client `Registry` (never the global default registry), so tests create their own and assert on
 * them.
 * @module
 */

import { Counter, Gauge, Histogram, Registry } from "./prom_client.ts";
import type { InFlightProbe, QueueMetricsHooks } from "../queue/queue_metrics.ts";

export { type InFlightProbe, noopQueueMetrics, type QueueMetricsHooks } from "../queue/queue_metrics.ts";

/** Label values of one series. */
export type MetricLabels<L extends string> = Partial<Record<L, string | number>>;

/** A counter vector (prom-client's Counter, as kubeop uses it). */
export interface CounterMetric<L extends string> {
  /** Adds `value` (default 1) to the series `labels`. */
  inc(labels: MetricLabels<L>, value?: number): void;
}

/** A gauge vector (prom-client's Gauge, as kubeop uses it). */
export interface GaugeMetric<L extends string> {
  /** Sets the series `labels` to `value`. */
  set(labels: MetricLabels<L>, value: number): void;
  /** Adds `value` (default 1). */
  inc(labels: MetricLabels<L>, value?: number): void;
  /** Subtracts `value` (default 1). */
  dec(labels: MetricLabels<L>, value?: number): void;
}

/** A histogram vector (prom-client's Histogram, as kubeop uses it). */
export interface HistogramMetric<L extends string> {
  /** Records one observation in the series `labels`. */
  observe(labels: MetricLabels<L>, value: number): void;
  /** Creates the series `labels` with every bucket at 0. */
  zero(labels: MetricLabels<L>): void;
}

/** Results of one reconcile, as controller-runtime labels them. */
export type ReconcileResult = "success" | "error" | "requeue" | "requeue_after";

/** Every {@link ReconcileResult}, in controller-runtime's order; each series starts at 0 per controller. */
export const RECONCILE_RESULTS: readonly ReconcileResult[] = ["error", "requeue_after", "requeue", "success"];

const RECONCILE_BUCKETS = [
  0.005,
  0.01,
  0.025,
  0.05,
  0.1,
  0.15,
  0.2,
  0.25,
  0.3,
  0.35,
  0.4,
  0.45,
  0.5,
  0.6,
  0.7,
  0.8,
  0.9,
  1,
  1.25,
  1.5,
  1.75,
  2,
  2.5,
  3,
  3.5,
  4,
  4.5,
  5,
  6,
  7,
  8,
  9,
  10,
  15,
  20,
  25,
  30,
  40,
  50,
  60,
];
/** controller-runtime's workqueue buckets, prometheus.ExponentialBuckets(10e-9, 10, 12): 1e-8 s × 10^i. */
const QUEUE_BUCKETS = Array.from({ length: 12 }, (_, i) => Number((1e-8 * 10 ** i).toPrecision(12)));
const REST_BUCKETS = [0.005, 0.025, 0.1, 0.25, 0.5, 1, 2, 4, 8, 15, 30, 60];

/**
 * Every metric kubeop exports, registered on one private registry.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { Metrics } from "./metrics.ts";
 * const metrics = new Metrics();
 * metrics.initController("machine");
 * metrics.reconcileTotal.inc({ controller: "machine", result: "success" });
 * const text = await metrics.render();
 * assert.ok(text.includes('controller_runtime_reconcile_total{controller="machine",result="success"} 1'));
 * assert.ok(text.includes('controller_runtime_reconcile_total{controller="machine",result="error"} 0'));
 * ```
 */
export class Metrics {
  /**
   * The prom-client registry behind /metrics (register more metrics on it).
   * @ignore
   */
  readonly registry: Registry = new Registry();

  /** controller_runtime_reconcile_total{controller,result}. */
  readonly reconcileTotal: CounterMetric<"controller" | "result">;
  /** controller_runtime_reconcile_errors_total{controller}. */
  readonly reconcileErrors: CounterMetric<"controller">;
  /** controller_runtime_terminal_reconcile_errors_total{controller}. */
  readonly terminalReconcileErrors: CounterMetric<"controller">;
  /** controller_runtime_reconcile_panics_total{controller}. */
  readonly reconcilePanics: CounterMetric<"controller">;
  /** controller_runtime_reconcile_time_seconds{controller}. */
  readonly reconcileTime: HistogramMetric<"controller">;
  /** controller_runtime_max_concurrent_reconciles{controller}. */
  readonly maxConcurrentReconciles: GaugeMetric<"controller">;
  /** controller_runtime_active_workers{controller}. */
  readonly activeWorkers: GaugeMetric<"controller">;

  /** workqueue_depth{name,controller}. */
  readonly workqueueDepth: GaugeMetric<"name" | "controller">;
  /** workqueue_adds_total{name,controller}. */
  readonly workqueueAdds: CounterMetric<"name" | "controller">;
  /** workqueue_retries_total{name,controller}. */
  readonly workqueueRetries: CounterMetric<"name" | "controller">;
  /** workqueue_queue_duration_seconds{name,controller}. */
  readonly workqueueQueueDuration: HistogramMetric<"name" | "controller">;
  /** workqueue_work_duration_seconds{name,controller}. */
  readonly workqueueWorkDuration: HistogramMetric<"name" | "controller">;
  /** workqueue_unfinished_work_seconds{name,controller} (read from attached probes at scrape time). */
  readonly workqueueUnfinishedWork: GaugeMetric<"name" | "controller">;
  /** workqueue_longest_running_processor_seconds{name,controller} (read at scrape time). */
  readonly workqueueLongestRunning: GaugeMetric<"name" | "controller">;

  /** leader_election_master_status{name}: 1 while this replica leads. */
  readonly leaderElectionMasterStatus: GaugeMetric<"name">;

  /** rest_client_requests_total{code,method,host}. */
  readonly restClientRequests: CounterMetric<"code" | "method" | "host">;
  /** rest_client_request_duration_seconds{verb,host}: until the response headers arrive (or the request fails). */
  readonly restClientRequestDuration: HistogramMetric<"verb" | "host">;

  /** kubeop_watch_restarts_total{resource,reason}. */
  readonly watchRestarts: CounterMetric<"resource" | "reason">;
  /** kubeop_watch_relists_total{resource,cause}. */
  readonly watchRelists: CounterMetric<"resource" | "cause">;
  /** kubeop_cache_objects{resource}. */
  readonly cacheObjects: GaugeMetric<"resource">;
  /** kubeop_watch_age_seconds{resource}: seconds since the current watch stream opened. */
  readonly watchAge: GaugeMetric<"resource">;
  /** kubeop_watch_last_event_seconds{resource}: seconds since the last event or bookmark. */
  readonly watchLastEvent: GaugeMetric<"resource">;
  /** kubeop_cache_own_write_lag_seconds{resource}: how long the cache has not shown its controllers' last write. */
  readonly cacheOwnWriteLag: GaugeMetric<"resource">;
  /** kubeop_watch_decode_errors_total{resource}: malformed frames skipped. */
  readonly watchDecodeErrors: CounterMetric<"resource">;
  /** kubeop_watch_list_failures_total{resource,code}: failed lists of the watch loops (`<error>`: no HTTP answer). */
  readonly watchListFailures: CounterMetric<"resource" | "code">;
  /** kubeop_watch_bytes_total{resource}: response bytes of the informers' lists and watch streams. */
  readonly watchBytes: CounterMetric<"resource">;
  /** kubeop_shard_server_side{resource}: a sliced informer's slice is filtered by the server (1) or here (0). */
  readonly shardServerSide: GaugeMetric<"resource">;
  /** kubeop_read_your_writes_timeouts_total{controller}. */
  readonly readYourWritesTimeouts: CounterMetric<"controller">;
  /** kubeop_events_dropped_total{reason}: Events the recorder could not send. */
  readonly eventsDropped: CounterMetric<"reason">;

  #defaultCollectorsWanted = false;
  #defaultCollectors: Promise<void> | undefined;
  #probes = new Map<string, { labels: { name: string; controller: string }; probe: InFlightProbe }>();
  readonly #scrapeRefreshers = new Set<() => void>();

  constructor() {
    const registers = [this.registry];
    this.reconcileTotal = new Counter({
      name: "controller_runtime_reconcile_total",
      help: "Total number of reconciliations per controller",
      labelNames: ["controller", "result"],
      registers,
    });
    this.reconcileErrors = new Counter({
      name: "controller_runtime_reconcile_errors_total",
      help: "Total number of reconciliation errors per controller",
      labelNames: ["controller"],
      registers,
    });
    this.terminalReconcileErrors = new Counter({
      name: "controller_runtime_terminal_reconcile_errors_total",
      help: "Total number of terminal reconciliation errors per controller",
      labelNames: ["controller"],
      registers,
    });
    this.reconcilePanics = new Counter({
      name: "controller_runtime_reconcile_panics_total",
      help: "Total number of reconciliation panics per controller",
      labelNames: ["controller"],
      registers,
    });
    this.reconcileTime = new Histogram({
      name: "controller_runtime_reconcile_time_seconds",
      help: "Length of time per reconciliation per controller",
      labelNames: ["controller"],
      buckets: RECONCILE_BUCKETS,
      registers,
    });
    this.maxConcurrentReconciles = new Gauge({
      name: "controller_runtime_max_concurrent_reconciles",
      help: "Maximum number of concurrent reconciles per controller",
      labelNames: ["controller"],
      registers,
    });
    this.activeWorkers = new Gauge({
      name: "controller_runtime_active_workers",
      help: "Number of currently used workers per controller",
      labelNames: ["controller"],
      registers,
    });
    const q = ["name", "controller"] as const;
    this.workqueueDepth = new Gauge({
      name: "workqueue_depth",
      help: "Current depth of workqueue",
      labelNames: q,
      registers,
    });
    this.workqueueAdds = new Counter({
      name: "workqueue_adds_total",
      help: "Total number of adds handled by workqueue",
      labelNames: q,
      registers,
    });
    this.workqueueRetries = new Counter({
      name: "workqueue_retries_total",
      help: "Total number of retries handled by workqueue",
      labelNames: q,
      registers,
    });
    this.workqueueQueueDuration = new Histogram({
      name: "workqueue_queue_duration_seconds",
      help: "How long in seconds an item stays in workqueue before being requested",
      labelNames: q,
      buckets: QUEUE_BUCKETS,
      registers,
    });
    this.workqueueWorkDuration = new Histogram({
      name: "workqueue_work_duration_seconds",
      help: "How long in seconds processing an item from workqueue takes",
      labelNames: q,
      buckets: QUEUE_BUCKETS,
      registers,
    });
    const probes = this.#probes;
    const refreshers = this.#scrapeRefreshers;
    // The watch/cache gauges are set by their sources' health(); refresh them at scrape time so /metrics is fresh
    // even when nothing else asked for health since the last change.
    const refreshOnCollect = () => {
      for (const refresh of refreshers) {
        try {
          refresh();
        } catch { /* a failing source must not break the scrape */ }
      }
    };
    this.workqueueUnfinishedWork = new Gauge({
      name: "workqueue_unfinished_work_seconds",
      help: "How many seconds of work has been done that is in progress and hasn't been observed by " +
        "work_duration. Large values indicate stuck threads.",
      labelNames: q,
      registers,
      collect() {
        for (const { labels, probe } of probes.values()) this.set(labels, probe.unfinishedWorkSeconds());
      },
    });
    this.workqueueLongestRunning = new Gauge({
      name: "workqueue_longest_running_processor_seconds",
      help: "How many seconds has the longest running processor for workqueue been running.",
      labelNames: q,
      registers,
      collect() {
        for (const { labels, probe } of probes.values()) this.set(labels, probe.longestRunningSeconds());
      },
    });
    this.leaderElectionMasterStatus = new Gauge({
      name: "leader_election_master_status",
      help: "Gauge of if the reporting system is master of the relevant lease, 0 indicates backup, 1 indicates master.",
      labelNames: ["name"],
      registers,
    });
    this.restClientRequests = new Counter({
      name: "rest_client_requests_total",
      help: "Number of HTTP requests, partitioned by status code, method, and host.",
      labelNames: ["code", "method", "host"],
      registers,
    });
    this.restClientRequestDuration = new Histogram({
      name: "rest_client_request_duration_seconds",
      help: "Request latency in seconds. Broken down by verb and host.",
      labelNames: ["verb", "host"],
      buckets: REST_BUCKETS,
      registers,
    });
    this.watchRestarts = new Counter({
      name: "kubeop_watch_restarts_total",
      help: "Watch streams re-opened, by resource and reason.",
      labelNames: ["resource", "reason"],
      registers,
    });
    this.watchRelists = new Counter({
      name: "kubeop_watch_relists_total",
      help: "Full relists, by resource and cause.",
      labelNames: ["resource", "cause"],
      registers,
    });
    this.cacheObjects = new Gauge({
      name: "kubeop_cache_objects",
      help: "Objects held in the informer cache, by resource.",
      labelNames: ["resource"],
      registers,
      collect: refreshOnCollect,
    });
    this.watchAge = new Gauge({
      name: "kubeop_watch_age_seconds",
      help: "Seconds since the current watch stream was opened, by resource.",
      labelNames: ["resource"],
      registers,
      collect: refreshOnCollect,
    });
    this.watchLastEvent = new Gauge({
      name: "kubeop_watch_last_event_seconds",
      help: "Seconds since the last watch event or bookmark, by resource.",
      labelNames: ["resource"],
      registers,
      collect: refreshOnCollect,
    });
    this.cacheOwnWriteLag = new Gauge({
      name: "kubeop_cache_own_write_lag_seconds",
      help: "Seconds the cache has not shown the newest write its controllers made (0: caught up), by resource.",
      labelNames: ["resource"],
      registers,
      collect: refreshOnCollect,
    });
    this.watchDecodeErrors = new Counter({
      name: "kubeop_watch_decode_errors_total",
      help: "Malformed or unknown watch frames skipped, by resource.",
      labelNames: ["resource"],
      registers,
    });
    this.watchListFailures = new Counter({
      name: "kubeop_watch_list_failures_total",
      help: "Failed lists of the watch loops, by resource and HTTP code (<error> for transport failures).",
      labelNames: ["resource", "code"],
      registers,
    });
    this.watchBytes = new Counter({
      name: "kubeop_watch_bytes_total",
      help: "Response bytes received by the informers' lists and watch streams, by resource.",
      labelNames: ["resource"],
      registers,
    });
    this.shardServerSide = new Gauge({
      name: "kubeop_shard_server_side",
      help:
        "1 when a sliced informer's shard selector is honoured by the API server (KEP-5866), 0 when it filters client-side, by resource.",
      labelNames: ["resource"],
      registers,
    });
    this.readYourWritesTimeouts = new Counter({
      name: "kubeop_read_your_writes_timeouts_total",
      help: "Reconciles started before the cache showed the controller's own last write (bounded wait expired).",
      labelNames: ["controller"],
      registers,
    });
    this.eventsDropped = new Counter({
      name: "kubeop_events_dropped_total",
      help: "Kubernetes Events the recorder dropped, by reason (buffer_full, error).",
      labelNames: ["reason"],
      registers,
    });
  }

  /**
   * Creates every per-controller series at 0 (reconcile totals for each result, errors, terminal errors, panics,
   * active workers, reconcile time, and the workqueue series named after the controller), as controller-runtime
   * does when a controller is created, so dashboards and alerts see the series before the first event. Idempotent.
   */
  initController(controller: string): void {
    const labels = { controller };
    for (const result of RECONCILE_RESULTS) this.reconcileTotal.inc({ controller, result }, 0);
    this.reconcileErrors.inc(labels, 0);
    this.terminalReconcileErrors.inc(labels, 0);
    this.reconcilePanics.inc(labels, 0);
    this.activeWorkers.inc(labels, 0);
    this.reconcileTime.zero(labels);
    const q = { name: controller, controller };
    this.workqueueDepth.inc(q, 0);
    this.workqueueAdds.inc(q, 0);
    this.workqueueRetries.inc(q, 0);
    this.workqueueQueueDuration.zero(q);
    this.workqueueWorkDuration.zero(q);
    this.workqueueUnfinishedWork.inc(q, 0);
    this.workqueueLongestRunning.inc(q, 0);
  }

  /**
   * Turns on prom-client's default process and runtime collectors for this registry (see ./process_metrics.ts for
   * what they are under Deno's permissions). They are loaded and registered by {@link Metrics.registerDefaultCollectors}
   * or at the first {@link Metrics.render}, whichever comes first: their modules cost ~20 ms to evaluate, which the
   * Manager keeps off its start path (it registers them a second after the caches synced). A bare Metrics (tests)
   * stays without them.
   */
  enableDefaultCollectors(): void {
    this.#defaultCollectorsWanted = true;
  }

  /** Loads and registers the default collectors now, once, if {@link Metrics.enableDefaultCollectors} was called. */
  registerDefaultCollectors(): Promise<void> {
    if (!this.#defaultCollectorsWanted) return Promise.resolve();
    this.#defaultCollectors ??= import("./process_metrics.ts").then((m) => m.registerProcessCollectors(this.registry));
    return this.#defaultCollectors;
  }

  /** Queue hooks that feed the workqueue_* metrics labelled `{name, controller}`. */
  queueHooks(name: string, controller = name): QueueMetricsHooks {
    const labels = { name, controller };
    const probes = this.#probes;
    return {
      add: () => this.workqueueAdds.inc(labels),
      depth: (n) => this.workqueueDepth.set(labels, n),
      retry: () => this.workqueueRetries.inc(labels),
      queueLatency: (s) => this.workqueueQueueDuration.observe(labels, s),
      workDuration: (s) => this.workqueueWorkDuration.observe(labels, s),
      attach: (probe) => void probes.set(`${name}\u0000${controller}`, { labels, probe }),
    };
  }

  /**
   * Registers `refresh`, run at every scrape before kubeop_cache_objects, kubeop_watch_age_seconds and
   * kubeop_watch_last_event_seconds are read (it should set them, e.g. `() => informers.health()`). Returns a
   * function that unregisters it.
   */
  refreshOnScrape(refresh: () => void): () => void {
    this.#scrapeRefreshers.add(refresh);
    return () => void this.#scrapeRefreshers.delete(refresh);
  }

  /** The Prometheus text exposition of every metric. */
  async render(): Promise<string> {
    await this.registerDefaultCollectors();
    return this.registry.metrics();
  }

  /** Content-Type header for {@link Metrics.render}'s output. */
  get contentType(): string {
    return this.registry.contentType;
  }

  /** Current value of a counter or gauge series (tests and /readyz); 0 when absent. */
  async value(metricName: string, labels: Record<string, string> = {}): Promise<number> {
    const metric = this.registry.getSingleMetric(metricName);
    if (!metric) return 0;
    const data = await metric.get();
    let sum = 0;
    for (const v of data.values) {
      const l = v.labels as Record<string, string | number>;
      if (Object.entries(labels).every(([k, want]) => String(l[k]) === want)) {
        // Histograms report buckets/sum/count; only count the `_count` series for them.
        const name = (v as { metricName?: string }).metricName;
        if (name && name !== metricName && !name.endsWith("_count")) continue;
        sum += v.value;
      }
    }
    return sum;
  }
}
