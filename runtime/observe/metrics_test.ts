import assert from "node:assert/strict";
import { Metrics } from "./metrics.ts";

Deno.test("each Metrics has its own registry with controller-runtime names", async () => {
  const a = new Metrics();
  const b = new Metrics();
  a.reconcileTotal.inc({ controller: "machine", result: "success" });
  a.reconcileTotal.inc({ controller: "machine", result: "error" });
  assert.equal(await a.value("controller_runtime_reconcile_total", { controller: "machine" }), 2);
  assert.equal(await b.value("controller_runtime_reconcile_total", { controller: "machine" }), 0);
  const text = await a.render();
  for (
    const name of [
      "controller_runtime_reconcile_errors_total",
      "controller_runtime_terminal_reconcile_errors_total",
      "controller_runtime_reconcile_time_seconds",
      "workqueue_depth",
      "workqueue_longest_running_processor_seconds",
      "leader_election_master_status",
      "rest_client_requests_total",
      "kubeop_watch_restarts_total",
      "kubeop_read_your_writes_timeouts_total",
    ]
  ) assert.ok(text.includes(`# TYPE ${name}`), name);
});

Deno.test("queue hooks feed workqueue metrics and read in-flight probes at scrape time", async () => {
  const m = new Metrics();
  const hooks = m.queueHooks("machine");
  hooks.add();
  hooks.add();
  hooks.depth(7);
  hooks.retry();
  hooks.workDuration(0.5);
  hooks.attach({ unfinishedWorkSeconds: () => 3, longestRunningSeconds: () => 2 });
  const labels = { name: "machine", controller: "machine" };
  assert.equal(await m.value("workqueue_adds_total", labels), 2);
  assert.equal(await m.value("workqueue_depth", labels), 7);
  assert.equal(await m.value("workqueue_retries_total", labels), 1);
  assert.equal(await m.value("workqueue_work_duration_seconds", labels), 1);
  const text = await m.render();
  assert.match(text, /workqueue_unfinished_work_seconds\{name="machine",controller="machine"\} 3/);
  assert.match(text, /workqueue_longest_running_processor_seconds\{name="machine",controller="machine"\} 2/);
});

Deno.test("default process collectors are registered on demand: by registerDefaultCollectors or the first render", async () => {
  const lazy = new Metrics();
  lazy.enableDefaultCollectors();
  assert.equal(lazy.registry.getSingleMetric("process_cpu_seconds_total"), undefined, "not registered at enable");
  assert.ok((await lazy.render()).includes("# TYPE process_cpu_seconds_total"), "the first scrape registers them");
  const early = new Metrics();
  early.enableDefaultCollectors();
  await early.registerDefaultCollectors();
  await early.registerDefaultCollectors(); // once
  assert.ok(early.registry.getSingleMetric("process_start_time_seconds"));
  const bare = new Metrics();
  await bare.registerDefaultCollectors();
  assert.ok(!(await bare.render()).includes("process_cpu_seconds_total"), "not enabled: never registered");
});
