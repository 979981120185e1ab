/**
 * What the work queue reports (client-go's workqueue.MetricsProvider, flattened): the hooks it calls on adds, depth,
 * retries and latencies, the probe a scrape reads in-flight work through, and hooks that do nothing (the default).
 * runtime/observe/metrics.ts implements them with Prometheus series.
 * @module
 */

/** Hooks the work queue calls (client-go's workqueue.MetricsProvider, flattened). */
export interface QueueMetricsHooks {
  /** A key was added (counts every add, deduplicated or not, like client-go). */
  add(): void;
  /** The number of keys waiting to be handed out. */
  depth(n: number): void;
  /** A rate-limited re-add. */
  retry(): void;
  /** Seconds a key waited between being queued and being handed out. */
  queueLatency(seconds: number): void;
  /** Seconds between being handed out and `done()`. */
  workDuration(seconds: number): void;
  /** Gives the metrics a way to read in-flight work at scrape time. */
  attach(probe: InFlightProbe): void;
}

/** Read at scrape time: how long the current in-flight work has been running. */
export interface InFlightProbe {
  /** Sum over in-flight keys of seconds since they were handed out. */
  unfinishedWorkSeconds(): number;
  /** Seconds the oldest in-flight key has been running (0 when none). */
  longestRunningSeconds(): number;
}

/** Hooks that do nothing: the default when no metrics are injected. */
export const noopQueueMetrics: QueueMetricsHooks = {
  add() {},
  depth() {},
  retry() {},
  queueLatency() {},
  workDuration() {},
  attach() {},
};
