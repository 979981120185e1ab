import assert from "node:assert/strict";
import { Controller, done } from "../runtime/controller/controller.ts";
import type { LeaseObject } from "../runtime/leader/lease_lock.ts";
import { Manager } from "../runtime/manager/manager.ts";
import { Metrics } from "../runtime/observe/metrics.ts";
import { CoreTypes, type KubeObject } from "../runtime/types.ts";
import { startFakeEnv } from "./support/fake_env.ts";
import { eventually } from "../testing/eventually.ts";

async function get(url: string): Promise<{ status: number; body: string }> {
  const res = await fetch(url);
  return { status: res.status, body: await res.text() };
}

Deno.test("manager on the fake API server: leads, reconciles, serves probes and metrics, drains then releases", async () => {
  const metrics = new Metrics(); // shared by client and manager, as `kubeop run` does
  const { server, client, close } = await startFakeEnv({ metrics });
  try {
    const cm = (name: string): KubeObject => ({ metadata: { name, namespace: "default" }, data: { k: "v" } });
    await client.create(CoreTypes.ConfigMap, cm("first"));

    const reconciled: string[] = [];
    let slowEntered = false;
    let openGate: () => void = () => {};
    const gate = new Promise<void>((resolve) => openGate = resolve);
    const controller = new Controller({
      name: "configmaps",
      for: CoreTypes.ConfigMap,
      reconcile: async (ctx) => {
        if (ctx.name === "slow") {
          slowEntered = true;
          await gate; // in flight when shutdown begins
          await ctx.client.patch(CoreTypes.ConfigMap, ctx.name, { metadata: { annotations: { finished: "yes" } } }, {
            namespace: ctx.namespace,
            type: "merge",
          });
        }
        reconciled.push(ctx.key);
        return done();
      },
    });
    const manager = new Manager({
      client,
      metrics,
      namespaces: ["default"],
      leaderElection: { id: "kubeop", namespace: "default", identity: "replica-1" },
      healthProbeBindAddress: "127.0.0.1:0",
      metricsBindAddress: "127.0.0.1:0",
    }).add(controller);
    const stop = new AbortController();
    const running = manager.start(stop.signal);

    await eventually("the first reconcile", () => reconciled.includes("default/first"));
    const probes = manager.endpoints.healthProbe!;
    await eventually("readiness", async () => (await get(`${probes}/readyz`)).status === 200);
    const lease = () => server.store.get(CoreTypes.Lease, "kubeop", { namespace: "default" }) as LeaseObject;
    assert.equal(lease().spec?.holderIdentity, "replica-1");
    const scraped = await get(`${manager.endpoints.metrics}/metrics`);
    assert.match(scraped.body, /^leader_election_master_status\{name="kubeop"\} 1$/m);
    assert.match(
      scraped.body,
      /^controller_runtime_reconcile_total\{controller="configmaps",result="success"\} [1-9]/m,
    );
    assert.match(scraped.body, /^rest_client_requests_total\{/m);

    await client.create(CoreTypes.ConfigMap, cm("slow"));
    await eventually("the slow reconcile to start", () => slowEntered);
    stop.abort(); // what SIGTERM does in `kubeop run`
    await eventually("readiness to drop on shutdown", async () => (await get(`${probes}/readyz`)).status === 500);
    assert.equal(lease().spec?.holderIdentity, "replica-1", "the lease is kept while a reconcile is in flight");

    openGate();
    await running;
    assert.ok(reconciled.includes("default/slow"), "the in-flight reconcile finished");
    const slow = server.store.get(CoreTypes.ConfigMap, "slow", { namespace: "default" });
    assert.equal(slow.metadata.annotations?.finished, "yes");
    assert.equal(lease().spec?.holderIdentity, "", "the lease is released after the drain");
    assert.equal(lease().spec?.leaseDurationSeconds, 1);
    await assert.rejects(() => fetch(`${probes}/healthz`), "the probe server is closed");
  } finally {
    await close();
  }
});

Deno.test("manager on the fake API server: /readyz names the cache that cannot sync, and recovers", async () => {
  const { server, client, close } = await startFakeEnv();
  try {
    server.faults.inject({ resource: "configmaps", code: 500 });
    const controller = new Controller({
      name: "configmaps",
      for: CoreTypes.ConfigMap,
      reconcile: () => Promise.resolve(done()),
    });
    const manager = new Manager({ client, healthProbeBindAddress: "127.0.0.1:0" }).add(controller);
    const stop = new AbortController();
    const running = manager.start(stop.signal);
    await eventually("the probe server", () => manager.endpoints.healthProbe !== undefined);
    const probes = manager.endpoints.healthProbe!;

    const notReady = await get(`${probes}/readyz`);
    assert.equal(notReady.status, 500);
    assert.match(notReady.body, /\[-\]informer-sync failed: not synced: configmaps/);
    assert.equal((await get(`${probes}/healthz`)).status, 200, "alive while not ready");

    server.faults.clear();
    await eventually("readiness after the fault clears", async () => (await get(`${probes}/readyz`)).status === 200);
    stop.abort();
    await running;
  } finally {
    await close();
  }
});
