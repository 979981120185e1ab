import assert from "node:assert/strict";
import { KubeClient } from "../runtime/client/client.ts";
import { Controller, done } from "../runtime/controller/controller.ts";
import { Manager } from "../runtime/manager/manager.ts";
import { Metrics } from "../runtime/observe/metrics.ts";
import { CoreTypes, type KubeObject } from "../runtime/types.ts";
import { startFakeEnv } from "./support/fake_env.ts";
import { eventually } from "../testing/eventually.ts";

async function scrape(url: string): Promise<string> {
  const res = await fetch(`${url}/metrics`);
  assert.equal(res.status, 200);
  return await res.text();
}

function gauge(text: string, name: string, resource: string): number | undefined {
  const m = new RegExp(`^${name}\\{resource="${resource}"\\} (\\S+)$`, "m").exec(text);
  return m ? Number(m[1]) : undefined;
}

Deno.test("a /metrics scrape shows fresh kubeop_cache_objects and watch gauges without anyone calling health()", async () => {
  const metrics = new Metrics();
  const { client, close } = await startFakeEnv({ metrics });
  const stop = new AbortController();
  let running: Promise<void> | undefined;
  try {
    const cm = (name: string): KubeObject => ({ metadata: { name, namespace: "default" }, data: { k: "v" } });
    await client.create(CoreTypes.ConfigMap, cm("a"));
    await client.create(CoreTypes.ConfigMap, cm("b"));
    const manager = new Manager({ client, metrics, metricsBindAddress: "127.0.0.1:0" });
    const informer = manager.informers.get(CoreTypes.ConfigMap, { namespace: "default" });
    running = manager.start(stop.signal);
    await informer.waitForSync();
    await eventually("the metrics endpoint", () => manager.endpoints.metrics !== undefined);
    const url = manager.endpoints.metrics!;

    assert.equal(gauge(await scrape(url), "kubeop_cache_objects", "configmaps"), 2);

    // A change after sync: only the watch sees it; the scrape must still report it (nothing calls health()).
    await client.create(CoreTypes.ConfigMap, cm("c"));
    await eventually("the watch to deliver the third ConfigMap", () => informer.store.list().length === 3);
    const text = await scrape(url);
    assert.equal(gauge(text, "kubeop_cache_objects", "configmaps"), 3);
    const age = gauge(text, "kubeop_watch_age_seconds", "configmaps");
    assert.ok(age !== undefined && age >= 0, `kubeop_watch_age_seconds present: ${age}`);
    assert.ok(gauge(text, "kubeop_watch_last_event_seconds", "configmaps") !== undefined);
  } finally {
    stop.abort();
    await running;
    await close();
  }
});

/** Whether `text` has the sample `series` (name and exact label set as written), and its value. */
function sample(text: string, series: string): number | undefined {
  const line = text.split("\n").find((l) => l.startsWith(`${series} `));
  return line === undefined ? undefined : Number(line.slice(series.length + 1));
}

Deno.test("a fresh manager's /metrics carries process_*, zeroed controller and workqueue series, rest_client_*", async () => {
  const { client, close } = await startFakeEnv();
  const stop = new AbortController();
  let running: Promise<void> | undefined;
  try {
    const manager = new Manager({ client, metricsBindAddress: "127.0.0.1:0" });
    const clientMetrics = new KubeClient({ config: client.config, metrics: manager.metrics });
    manager.add(new Controller({ name: "quiet", for: CoreTypes.Service, reconcile: () => Promise.resolve(done()) }));
    running = manager.start(stop.signal);
    await eventually("the metrics endpoint", () => manager.endpoints.metrics !== undefined);
    await clientMetrics.list(CoreTypes.Namespace);
    clientMetrics.close();
    const text = await scrape(manager.endpoints.metrics!);
    for (
      const name of [
        "process_cpu_seconds_total",
        "process_resident_memory_bytes",
        "process_start_time_seconds",
        "process_open_fds",
      ]
    ) {
      const v = sample(text, name);
      assert.ok(v !== undefined && v > 0, `${name} present and positive: ${v}`);
    }
    const c = 'controller="quiet"';
    for (const result of ["success", "error", "requeue", "requeue_after"]) {
      assert.equal(sample(text, `controller_runtime_reconcile_total{${c},result="${result}"}`), 0, result);
    }
    for (
      const series of [
        `controller_runtime_reconcile_errors_total{${c}}`,
        `controller_runtime_terminal_reconcile_errors_total{${c}}`,
        `controller_runtime_reconcile_panics_total{${c}}`,
        `controller_runtime_active_workers{${c}}`,
        `controller_runtime_reconcile_time_seconds_count{${c}}`,
        `workqueue_retries_total{name="quiet",${c}}`,
        `workqueue_unfinished_work_seconds{name="quiet",${c}}`,
        `workqueue_longest_running_processor_seconds{name="quiet",${c}}`,
        `workqueue_work_duration_seconds_count{name="quiet",${c}}`,
      ]
    ) assert.equal(sample(text, series), 0, series);
    for (
      const series of [
        `workqueue_depth{name="quiet",${c}}`,
        `workqueue_adds_total{name="quiet",${c}}`,
        `workqueue_queue_duration_seconds_count{name="quiet",${c}}`,
        `controller_runtime_max_concurrent_reconciles{${c}}`,
      ]
    ) assert.ok(sample(text, series) !== undefined, series);
    // controller-runtime's bucket layouts.
    assert.ok(sample(text, `workqueue_queue_duration_seconds_bucket{le="1e-8",name="quiet",${c}}`) !== undefined);
    assert.ok(sample(text, `workqueue_queue_duration_seconds_bucket{le="1000",name="quiet",${c}}`) !== undefined);
    assert.ok(sample(text, `controller_runtime_reconcile_time_seconds_bucket{le="60",${c}}`) !== undefined);
    assert.match(text, /^rest_client_request_duration_seconds_count\{verb="GET",host="[^"]+"\} [1-9]/m);
    assert.match(text, /^rest_client_requests_total\{code="200",method="GET",host="[^"]+"\} [1-9]/m);
  } finally {
    stop.abort();
    await running;
    await close();
  }
});
