/**
 * The runtime's controller pieces against the fake API server over real HTTP: Owns() re-creates a deleted child,
 * Events reach events.k8s.io/v1 with the fields a server validates, and no reconcile waits out the
 * read-your-own-writes timeout.
 */
import { eventually } from "../testing/eventually.ts";
import assert from "node:assert/strict";
import { setControllerReference } from "../runtime/client/apply.ts";
import { KubeClient } from "../runtime/client/client.ts";
import { RealClock } from "../runtime/clock.ts";
import { Controller, done } from "../runtime/controller/controller.ts";
import { isNotFound } from "../runtime/client/errors.ts";
import { KubeEventRecorder } from "../runtime/observe/events.ts";
import { InformerRegistry } from "../runtime/cache/informers.ts";
import { loadKubeconfigFile } from "../runtime/client/kubeconfig.ts";
import { Metrics } from "../runtime/observe/metrics.ts";
import type { ConfigMap, Event } from "../runtime/builtin_types.ts";
import { CoreTypes, type KubeObject } from "../runtime/types.ts";
import { startFakeApiServer } from "../testing/mod.ts";

Deno.test("a ConfigMap→Secret controller on the fake API server: owns, events, read-your-writes", async () => {
  const server = await startFakeApiServer();
  const dir = await Deno.makeTempDir({ prefix: "kubeop-rt-" });
  await server.writeKubeconfig(`${dir}/kubeconfig`);
  const clock = new RealClock();
  const client = new KubeClient({ config: await loadKubeconfigFile(`${dir}/kubeconfig`), clock });
  const metrics = new Metrics();
  const informers = new InformerRegistry({ client, clock, metrics });
  const recorder = new KubeEventRecorder({
    sink: client,
    clock,
    reportingController: "kubeop.dev/copy",
    reportingInstance: "t",
    metrics,
  });
  const controller = new Controller<ConfigMap>({
    name: "copy",
    for: CoreTypes.ConfigMap,
    reconcile: async (ctx) => {
      const cm = ctx.object;
      if (!cm || cm.metadata.labels?.copy !== "yes") return done();
      const secrets = ctx.informers.get(CoreTypes.Secret);
      if (secrets.store.get(`${ctx.namespace}/${ctx.name}-copy`)) return done();
      const child = setControllerReference(cm, {
        metadata: { name: `${ctx.name}-copy`, namespace: ctx.namespace },
        stringData: { ...cm.data },
      } as KubeObject);
      await ctx.client.create(CoreTypes.Secret, child);
      ctx.recorder.event(cm, {
        type: "Normal",
        reason: "Copied",
        action: "CreateSecret",
        note: `created ${ctx.name}-copy`,
      });
      return done();
    },
    deps: { client, informers, recorder, clock, metrics },
  }).owns(CoreTypes.Secret);
  const ac = new AbortController();
  const running = Promise.all([informers.start(ac.signal), controller.start(ac.signal)]);
  try {
    await client.create(CoreTypes.Namespace, { metadata: { name: "work" } });
    await client.create(CoreTypes.ConfigMap, {
      metadata: { name: "settings", namespace: "work", labels: { copy: "yes" } },
      data: { mode: "fast" },
    });
    const secret = await eventually(
      "the copy",
      () => client.get(CoreTypes.Secret, "settings-copy", { namespace: "work" }),
      { retryErrors: true },
    );
    const ref = secret.metadata.ownerReferences?.[0];
    assert.equal(ref?.kind, "ConfigMap");
    assert.equal(ref?.controller, true);

    // Owns(): deleting the child reconciles the owner, which re-creates it.
    await client.delete(CoreTypes.Secret, "settings-copy", { namespace: "work" });
    const again = await eventually("the re-created copy", async () => {
      const s = await client.get(CoreTypes.Secret, "settings-copy", { namespace: "work" }).catch((e) => {
        if (isNotFound(e)) return undefined;
        throw e;
      });
      return s && s.metadata.uid !== secret.metadata.uid ? s : undefined;
    }, { retryErrors: true });
    assert.ok(again.metadata.uid);

    await recorder.flush();
    const events = await client.list<Event>(CoreTypes.Event, { namespace: "work" });
    const copied = events.items.filter((e) => e.reason === "Copied");
    assert.ok(copied.length >= 1, "the Event was accepted by the server");
    assert.equal(copied[0].regarding?.name, "settings");
    assert.equal(copied[0].regarding?.kind, "ConfigMap");
    assert.equal(copied[0].reportingController, "kubeop.dev/copy");
    assert.match(copied[0].eventTime, /\.\d{6}Z$/);
    assert.equal(await metrics.value("kubeop_events_dropped_total"), 0);
    assert.equal(await metrics.value("kubeop_read_your_writes_timeouts_total"), 0);
    assert.ok(
      await metrics.value("controller_runtime_reconcile_total", { controller: "copy", result: "success" }) >= 2,
    );
  } finally {
    ac.abort();
    await running;
    await recorder.close();
    client.close();
    await server.stop();
    await Deno.remove(dir, { recursive: true });
  }
});
