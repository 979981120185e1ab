/**
 * A failing reconcile's log line, as a user reads it in either format: it names the object (namespace, name), the
 * controller and its kind, and the error text — in the message and as a field, never `{}`.
 */
import assert from "node:assert/strict";
import { reset } from "@logtape/logtape";
import { KubeClient } from "../runtime/client/client.ts";
import { RealClock } from "../runtime/clock.ts";
import { Controller } from "../runtime/controller/controller.ts";
import { KubeEventRecorder } from "../runtime/observe/events.ts";
import { InformerRegistry } from "../runtime/cache/informers.ts";
import { loadKubeconfigFile } from "../runtime/client/kubeconfig.ts";
import { configureLogging } from "../runtime/observe/log.ts";
import { Metrics } from "../runtime/observe/metrics.ts";
import { CoreTypes } from "../runtime/types.ts";
import { eventually, startFakeApiServer } from "../testing/mod.ts";

async function failingReconcileLine(format: "json" | "text", level: "info" | "debug" = "info"): Promise<string> {
  const lines: string[] = [];
  await configureLogging({ format, level, write: (l) => lines.push(l) });
  const server = await startFakeApiServer();
  const dir = await Deno.makeTempDir({ prefix: "kubeop-log-" });
  const ac = new AbortController();
  let running: Promise<unknown> = Promise.resolve();
  try {
    await server.writeKubeconfig(`${dir}/kubeconfig`);
    const clock = new RealClock();
    const client = new KubeClient({ config: await loadKubeconfigFile(`${dir}/kubeconfig`), clock });
    const metrics = new Metrics();
    const informers = new InformerRegistry({ client, clock, metrics });
    const recorder = new KubeEventRecorder({ sink: client, clock, reportingController: "t", reportingInstance: "t" });
    const controller = new Controller({
      name: "configmaps",
      for: CoreTypes.ConfigMap,
      reconcile: (ctx) => {
        throw new Error(`backend unreachable for ${ctx.name}`);
      },
      deps: { client, informers, recorder, clock, metrics },
    });
    await client.create(CoreTypes.Namespace, { metadata: { name: "work" } });
    await client.create(CoreTypes.ConfigMap, { metadata: { name: "cfg", namespace: "work" }, data: {} });
    running = Promise.all([informers.start(ac.signal), controller.start(ac.signal)]);
    return await eventually(
      "a failing reconcile line",
      () => lines.find((l) => l.includes("reconcile failed") && l.includes("cfg")),
    ).catch((err) => assert.fail(`${err.message}; lines:\n${lines.join("")}`));
  } finally {
    ac.abort();
    await running.catch(() => {});
    await server.stop();
    await Deno.remove(dir, { recursive: true });
    await reset();
  }
}

Deno.test("json: a failing reconcile's line is a flat zap object naming the object and the error", async () => {
  const rec = JSON.parse(await failingReconcileLine("json"));
  assert.match(rec.ts, /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
  assert.equal(rec.level, "error");
  assert.equal(rec.logger, "kubeop.controller.configmaps");
  assert.match(rec.msg, /reconcile failed, retrying in backoff \(attempt \d+\): backend unreachable for cfg$/);
  assert.equal(rec.error, "backend unreachable for cfg");
  assert.equal(rec.namespace, "work");
  assert.equal(rec.name, "cfg");
  assert.equal(rec.controller, "configmaps");
  assert.equal(rec.controllerGroup, "");
  assert.equal(rec.controllerKind, "ConfigMap");
  assert.match(rec.reconcileID, /^[0-9a-f-]{36}$/);
  assert.equal(rec.properties, undefined, "fields are flat, not nested under properties");
  assert.equal(rec.stacktrace, undefined, "no stack at info level");
});

Deno.test("json at debug level: the error's stack is added as stacktrace", async () => {
  const rec = JSON.parse(await failingReconcileLine("json", "debug"));
  assert.match(rec.stacktrace, /^Error: backend unreachable for cfg\n\s+at /);
});

Deno.test("text: a failing reconcile's line shows the same fields as key=value after the message", async () => {
  const line = await failingReconcileLine("text");
  assert.match(line, /^\S+Z ERROR kubeop\.controller\.configmaps reconcile failed, retrying in backoff/);
  assert.match(line, /\(attempt \d+\): backend unreachable for cfg /);
  assert.match(line, / namespace=work /);
  assert.match(line, / name=cfg[ \n]/);
  assert.match(line, / controller=configmaps /);
  assert.match(line, / controllerKind=ConfigMap /);
  assert.match(line, / error="backend unreachable for cfg"/);
  assert.ok(!line.includes("{}"), line);
});
