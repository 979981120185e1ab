/**
 * prom-client's registry and metric classes, loaded from their own files instead of the package
 * index. The index also requires `lib/pushgateway.js` (node:http, node:https, node:zlib), `lib/cluster.js`
 * (node:cluster) and `lib/summary.js`, none of which kubeop uses; loading those Node-compat modules was ~65 ms of
 * `kubeop run`'s startup. The types are prom-client's own declarations (a type-only import of the index, erased at run
 * time); the files' inferred JavaScript types are cast to them. The default collectors are imported by
 * runtime/observe/process_metrics.ts, which the Manager loads only after its caches synced.
 * @module
 */

import type * as PromClient from "prom-client";
import CounterImpl from "prom-client/lib/counter.js";
import GaugeImpl from "prom-client/lib/gauge.js";
import HistogramImpl from "prom-client/lib/histogram.js";
import RegistryImpl from "prom-client/lib/registry.js";

/** prom-client's `Registry` class. */
export const Registry = RegistryImpl as unknown as typeof PromClient.Registry;
/** prom-client's `Registry` instance type. */
export type Registry = PromClient.Registry;
/** prom-client's `Counter` class. */
export const Counter = CounterImpl as unknown as typeof PromClient.Counter;
/** prom-client's `Gauge` class. */
export const Gauge = GaugeImpl as unknown as typeof PromClient.Gauge;
/** prom-client's `Histogram` class. */
export const Histogram = HistogramImpl as unknown as typeof PromClient.Histogram;
