/**
 * Issue 25 item 4: how far each cache is behind — time since its last event or bookmark, and how far it lags the
 * writes its own controllers made — on /readyz (verbose detail) and /metrics, measured against the fake API server
 * with the cache's watch stalled (open, silent) while the controller writes.
 */
import assert from "node:assert/strict";
import { Controller, done } from "../runtime/controller/controller.ts";
import { Manager } from "../runtime/manager/manager.ts";
import { CoreTypes } from "../runtime/types.ts";
import { eventually } from "../testing/eventually.ts";
import { startFakeEnv } from "./support/fake_env.ts";

/** The value of `metric{resource="configmaps"}` in a Prometheus text body (undefined when absent). */
function gauge(body: string, metric: string): number | undefined {
  const line = body.split("\n").find((l) => l.startsWith(`${metric}{resource="configmaps"}`));
  return line === undefined ? undefined : Number(line.split(" ").pop());
}

Deno.test("a cache behind its controller's own write shows on /readyz?verbose and /metrics until it catches up", async () => {
  const { server, client, close } = await startFakeEnv();
  try {
    let writes = 0;
    let writeAgain = false;
    const controller = new Controller({
      name: "configmaps",
      for: CoreTypes.ConfigMap,
      forOptions: { namespace: "default" },
      reconcile: async (ctx) => {
        const data = ctx.object?.data as Record<string, string> | undefined;
        if (!ctx.object || (data?.touched && !writeAgain)) return done();
        writeAgain = false;
        await ctx.client.patch(CoreTypes.ConfigMap, ctx.name, { data: { touched: String(writes + 1) } }, {
          namespace: ctx.namespace,
          type: "merge",
        });
        writes++;
        return done();
      },
    });
    const manager = new Manager({
      client,
      namespaces: ["default"],
      healthProbeBindAddress: "127.0.0.1:0",
      metricsBindAddress: "127.0.0.1:0",
    }).add(controller);
    const stop = new AbortController();
    const running = manager.start(stop.signal);
    await eventually("the servers", () => manager.endpoints.healthProbe !== undefined && manager.isLeader());
    const readyz = async () => {
      const res = await fetch(`${manager.endpoints.healthProbe}/readyz?verbose`);
      return { status: res.status, body: await res.text() };
    };
    const metrics = async () => await (await fetch(`${manager.endpoints.metrics}/metrics`)).text();

    await client.create(CoreTypes.ConfigMap, { metadata: { name: "first", namespace: "default" } });
    await eventually("the first write, and the cache showing it", async () => {
      return writes === 1 &&
        /\[\+\]cache-staleness ok \(longest without an event: configmaps/.test((await readyz()).body);
    });
    assert.equal(gauge(await metrics(), "kubeop_cache_own_write_lag_seconds"), 0);

    // The cache's watch goes silent (open, no events, no bookmarks) while the controller writes.
    assert.ok(server.faults.stallWatches({ resource: "configmaps" }) >= 1);
    const cached = manager.informers.get(CoreTypes.ConfigMap, { namespace: "default" }).store;
    await client.create(CoreTypes.ConfigMap, { metadata: { name: "second", namespace: "default" } });
    assert.equal(cached.get("default/second"), undefined, "the stalled cache should not see the create");
    writeAgain = true;
    controller.enqueue("default/first"); // the controller writes "first" again; its cache cannot show that write
    await eventually("the second write", () => writes === 2);
    const behind = await readyz();
    assert.equal(behind.status, 200, "staleness alone does not make a replica unready");
    assert.match(behind.body, /\[\+\]cache-staleness ok \(configmaps behind own write by [1-9]\d* RVs for /);
    await eventually("the lag gauge to grow", async () => {
      return (gauge(await metrics(), "kubeop_cache_own_write_lag_seconds") ?? 0) > 0;
    }, { timeoutMs: 15_000 });

    server.faults.dropWatches({ resource: "configmaps" }); // the watch resumes from its last resourceVersion
    await eventually("the cache to catch up", () => cached.get("default/second") !== undefined);
    await eventually("the lag to clear", async () => {
      return !/behind own write/.test((await readyz()).body) &&
        gauge(await metrics(), "kubeop_cache_own_write_lag_seconds") === 0;
    });
    stop.abort();
    await running;
  } finally {
    await close();
  }
});
