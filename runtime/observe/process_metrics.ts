/**
 * The process panels of the usual controller dashboards under Deno: prom-client's default collectors
 * (process_cpu_seconds_total, process_resident_memory_bytes, process_start_time_seconds, process_open_fds,
 * process_max_fds, nodejs_* heap, event-loop and version series), with the /proc-based series replaced where Deno
 * cannot read /proc. Loaded on demand (runtime/observe/metrics.ts `registerDefaultCollectors`): evaluating prom-client's
 * collector modules (perf_hooks, @opentelemetry/api for exemplars) is ~20 ms that stays off the start path.
 * @module
 */

import type * as PromClient from "prom-client";
import collectDefaultMetricsImpl from "prom-client/lib/defaultMetrics.js";
import { Gauge, type Registry } from "./prom_client.ts";

/** prom-client's process and runtime collectors (`process_*`, `nodejs_*`) registered on `config.register`. */
const collectDefaultMetrics = collectDefaultMetricsImpl as unknown as typeof PromClient.collectDefaultMetrics;

/**
 * Registers prom-client's default collectors on `registry`. All of them work under Deno with --allow-all (the memory
 * and fd series read /proc/self on Linux). Deno lets nothing short of --allow-all read /proc, so under a narrow
 * permission set (the container's) the memory series fall back to Deno.memoryUsage() and process_open_fds /
 * process_max_fds are left out rather than reported as 0. Call once per registry.
 *
 * @example
 * ```ts
 * import { Registry } from "./prom_client.ts";
 * import { registerProcessCollectors } from "./process_metrics.ts";
 * const registry = new Registry();
 * registerProcessCollectors(registry);
 * // (await registry.metrics()) includes process_resident_memory_bytes
 * ```
 */
export function registerProcessCollectors(registry: Registry): void {
  collectDefaultMetrics({ register: registry });
  if (Deno.build.os !== "linux" || procReadable()) return;
  for (
    const name of [
      "process_resident_memory_bytes",
      "process_virtual_memory_bytes",
      "process_heap_bytes",
      "process_open_fds",
      "process_max_fds",
    ]
  ) registry.removeSingleMetric(name);
  new Gauge({
    name: "process_resident_memory_bytes",
    help: "Resident memory size in bytes.",
    registers: [registry],
    collect() {
      this.set(Deno.memoryUsage().rss);
    },
  });
  new Gauge({
    name: "process_heap_bytes",
    help: "Process heap size in bytes.",
    registers: [registry],
    collect() {
      this.set(Deno.memoryUsage().heapTotal);
    },
  });
}

/** Whether /proc/self can be read (Deno requires --allow-all for it). */
function procReadable(): boolean {
  try {
    Deno.readTextFileSync("/proc/self/status");
    return true;
  } catch {
    return false;
  }
}
