import assert from "node:assert/strict";
import { Manager } from "../runtime/manager.ts";
import { Metrics } from "../runtime/metrics.ts";
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
