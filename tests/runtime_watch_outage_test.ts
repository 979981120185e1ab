/**
 * The watch loop through apiserver outages and a CRD deleted under a running informer, against testing/'s fake API
 * server with virtual time: /readyz fails once a watch has been disconnected past a short grace (and /livez does
 * not), the backoff resets once the server answers again, and a resource the server stopped serving is logged,
 * counted, named in /readyz and picked up again when its CRD returns.
 */
import assert from "node:assert/strict";
import { KubeClient } from "../runtime/client/client.ts";
import { VirtualClock } from "../runtime/clock.ts";
import { InformerRegistry } from "../runtime/cache/informers.ts";
import { Manager } from "../runtime/manager/manager.ts";
import { Metrics } from "../runtime/observe/metrics.ts";
import { CoreTypes, type KubeObject, type ResourceType } from "../runtime/types.ts";
import { eventually, type FakeApiServer, startFakeApiServer } from "../testing/mod.ts";

/**
 * Advances virtual time in 250 ms steps (letting real I/O run between them) until `cond` holds; fails past
 * `maxVirtualMs` of virtual time (or testing/eventually.ts's 20 s of real time).
 */
async function until(cond: () => boolean | Promise<boolean>, clock: VirtualClock, what: string, maxVirtualMs: number) {
  const limit = clock.now() + maxVirtualMs;
  await eventually(`${what} (${maxVirtualMs} ms virtual)`, async () => {
    if (await cond()) return true;
    if (clock.now() >= limit) throw new Error(`timed out waiting for ${what} (${maxVirtualMs} ms virtual)`);
    return false;
  }, { timeoutMs: 20_000, intervalMs: 3, step: () => clock.advance(250) });
}

/** Runs `cond` while advancing virtual time by `ms`, in 250 ms steps, and asserts it held at every step. */
async function during(ms: number, clock: VirtualClock, cond: () => boolean | Promise<boolean>, what: string) {
  const end = clock.now() + ms;
  while (clock.now() < end) {
    assert.ok(await cond(), `${what} (at +${ms - (end - clock.now())} ms)`);
    await clock.advance(250);
    await new Promise((r) => setTimeout(r, 3));
  }
}

interface Rig {
  server: FakeApiServer;
  admin: KubeClient;
  clock: VirtualClock;
  manager: Manager;
  metrics: Metrics;
  registry: InformerRegistry;
  warnings: string[];
  stop(): Promise<void>;
}

async function rig(resource: ResourceType, setup: (admin: KubeClient) => Promise<void>): Promise<Rig> {
  const server = await startFakeApiServer({ anonymousAdmin: true, bookmarkIntervalMs: 50 });
  const admin = new KubeClient({ config: { server: server.url } });
  await setup(admin);
  const clock = new VirtualClock(0);
  const client = new KubeClient({ config: { server: server.url }, clock });
  const metrics = new Metrics();
  const warnings: string[] = [];
  const format = (message: string, props?: Record<string, unknown>) =>
    message.replace(/\{(\w+)\}/g, (_, k) => String(props?.[k])) + ` ${JSON.stringify(props ?? {})}`;
  const logger = {
    debug() {},
    info() {},
    warn: (message: string, props?: Record<string, unknown>) => void warnings.push(format(message, props)),
    error: (message: string, props?: Record<string, unknown>) => void warnings.push(format(message, props)),
  };
  const registry = new InformerRegistry({ client, clock, metrics, logger, random: () => 0 });
  registry.get(resource, { namespace: "ns" });
  const manager = new Manager({ client, clock, metrics, informers: registry, healthProbeBindAddress: "127.0.0.1:0" });
  const ctrl = new AbortController();
  const running = manager.start(ctrl.signal);
  return {
    server,
    admin,
    clock,
    manager,
    metrics,
    registry,
    warnings,
    async stop() {
      ctrl.abort();
      await running.catch(() => {});
      client.close();
      admin.close();
      await server.stop();
    },
  };
}

function watchesCheck(manager: Manager): { ok: boolean; reason?: string } {
  const check = manager.readiness().checks.find((c) => c.name === "watches");
  return { ok: check?.ok ?? false, reason: check?.reason };
}

async function probe(manager: Manager, path: string): Promise<number> {
  const res = await fetch(`${manager.endpoints.healthProbe}${path}`);
  await res.body?.cancel();
  return res.status;
}

const ns = (admin: KubeClient) => admin.create(CoreTypes.Namespace, { metadata: { name: "ns" } }).then(() => {});

Deno.test("outage: /readyz fails once a watch is disconnected past the grace, /livez stays green, and the backoff resets once the server answers", async () => {
  const r = await rig(CoreTypes.ConfigMap, ns);
  const health = () => r.registry.health()[0];
  const outage = () => {
    r.server.faults.inject({ code: 503, message: "apiserver down" });
    r.server.faults.dropWatches();
  };
  try {
    await until(() => r.manager.readiness().ok && health().watchAgeMs !== undefined, r.clock, "ready", 10_000);

    // A long outage drives the backoff to its 30 s cap.
    outage();
    await until(() => health().consecutiveFailures >= 7, r.clock, "backoff at its cap", 120_000);
    r.server.faults.clear();
    await until(() => health().watchAgeMs !== undefined, r.clock, "reconnect after the long outage", 31_000);
    await until(() => r.manager.readiness().ok, r.clock, "ready again", 1_000);

    // A short outage later: not ready once disconnected past the 5 s grace, alive throughout.
    outage();
    await during(4_000, r.clock, () => watchesCheck(r.manager).ok, "ready within the grace");
    await until(() => !watchesCheck(r.manager).ok, r.clock, "not ready past the grace", 2_000);
    assert.match(watchesCheck(r.manager).reason ?? "", /configmaps: disconnected for \d+ s/);
    assert.equal(await probe(r.manager, "/readyz"), 500);
    assert.equal(await probe(r.manager, "/livez"), 200);
    assert.equal(await probe(r.manager, "/healthz"), 200);

    // The server answers again: the loop retries on a reset backoff (seconds, not the earlier 30 s cap).
    r.server.faults.clear();
    await until(() => health().watchAgeMs !== undefined, r.clock, "reconnect after the short outage", 8_000);
    await until(() => r.manager.readiness().ok, r.clock, "ready after the short outage", 1_000);
  } finally {
    await r.stop();
  }
});

const WidgetType: ResourceType = {
  group: "example.com",
  version: "v1",
  plural: "widgets",
  kind: "Widget",
  namespaced: true,
};

const WIDGET_CRD: KubeObject = {
  apiVersion: "apiextensions.k8s.io/v1",
  kind: "CustomResourceDefinition",
  metadata: { name: "widgets.example.com" },
  spec: {
    group: "example.com",
    scope: "Namespaced",
    names: { plural: "widgets", singular: "widget", kind: "Widget" },
    versions: [{
      name: "v1",
      served: true,
      storage: true,
      schema: { openAPIV3Schema: { type: "object", "x-kubernetes-preserve-unknown-fields": true } },
    }],
  },
};

const CrdType: ResourceType = {
  group: "apiextensions.k8s.io",
  version: "v1",
  plural: "customresourcedefinitions",
  kind: "CustomResourceDefinition",
  namespaced: false,
};

const widget = (name: string): KubeObject => ({
  apiVersion: "example.com/v1",
  kind: "Widget",
  metadata: { name, namespace: "ns" },
});

Deno.test("CRD deleted under a running informer: logged, counted and named in /readyz; the informer syncs again when it returns", async () => {
  const r = await rig(WidgetType, async (admin) => {
    await ns(admin);
    await admin.create(CrdType, WIDGET_CRD);
    await admin.create(WidgetType, widget("before"));
  });
  const informer = r.registry.get(WidgetType, { namespace: "ns" });
  try {
    await until(() => r.manager.readiness().ok && informer.store.size === 1, r.clock, "synced", 10_000);

    await r.admin.delete(CrdType, "widgets.example.com");
    await until(() => !r.manager.readiness().ok, r.clock, "readiness to fail", 10_000);
    const reason = watchesCheck(r.manager).reason ?? "";
    assert.match(reason, /widgets\.example\.com: .*404/, reason);
    assert.ok(
      r.warnings.some((w) => w.includes("widgets.example.com") && /404|not found/i.test(w)),
      r.warnings.join("\n"),
    );
    const scraped = await r.metrics.registry.metrics();
    assert.match(scraped, /^kubeop_watch_list_failures_total\{resource="widgets.example.com",code="404"\} [1-9]/m);
    assert.equal(informer.store.size, 0, "the CRD's objects were deleted with it");

    await r.admin.create(CrdType, { ...WIDGET_CRD, metadata: { name: "widgets.example.com" } });
    await r.admin.create(WidgetType, widget("after"));
    await until(
      () => r.manager.readiness().ok && informer.store.get("ns/after") !== undefined,
      r.clock,
      "the informer to sync again",
      40_000,
    );
    assert.deepEqual(informer.store.keys(), ["ns/after"]);
  } finally {
    await r.stop();
  }
});
