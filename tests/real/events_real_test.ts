// The events.k8s.io/v1 recorder against a REAL kube-apiserver (scripts/k8s-bin.sh).
import assert from "node:assert/strict";
import { RealClock } from "../../runtime/clock.ts";
import { KubeEventRecorder } from "../../runtime/observe/events.ts";
import { Metrics } from "../../runtime/observe/metrics.ts";
import { CoreTypes, type KubeObject } from "../../runtime/types.ts";
import { realClusterBinDir } from "../support/real_cluster.ts";
import { configMap, createNamespace, withRealCluster } from "./support_real.ts";

const binDir = await realClusterBinDir();

Deno.test({
  name: "real cluster: Event recorder against kube-apiserver",
  ignore: !binDir,
  sanitizeResources: false,
  sanitizeOps: false,
  async fn(t) {
    await withRealCluster({ binDir: binDir!, namespaces: ["events"] }, async ({ client }) => {
      await t.step("KubeEventRecorder: events.k8s.io/v1 Events accepted, series patches accepted", async () => {
        const ns = "events";
        await createNamespace(client, ns);
        const regarding = await client.create<KubeObject>(CoreTypes.ConfigMap, configMap(ns, "subject", "1"));
        const metrics = new Metrics();
        const recorder = new KubeEventRecorder({
          sink: client,
          clock: new RealClock(),
          reportingController: "kubeop.dev/real-test",
          reportingInstance: "real-test-0",
          metrics,
        });
        const input = { type: "Normal" as const, reason: "Tested", action: "Test", note: "first event" };
        recorder.event(regarding, input);
        await recorder.flush();
        // A cluster-scoped object: the Event goes to "default".
        const namespaceObj = await client.get<KubeObject>(CoreTypes.Namespace, ns);
        recorder.event(namespaceObj, { type: "Warning", reason: "Checked", action: "Check", note: "cluster scoped" });
        await recorder.flush();
        assert.equal(await metrics.value("kubeop_events_dropped_total", { reason: "error" }), 0);
        type Ev = KubeObject & Record<string, unknown> & { series?: { count: number; lastObservedTime: string } };
        const events = await client.list<Ev>(CoreTypes.Event, { namespace: ns });
        assert.equal(events.items.length, 1);
        const ev = events.items[0];
        assert.equal(ev.reason, "Tested");
        assert.equal(ev.action, "Test");
        assert.equal(ev.type, "Normal");
        assert.equal(ev.note, "first event");
        assert.equal(ev.reportingController, "kubeop.dev/real-test");
        assert.equal(ev.reportingInstance, "real-test-0");
        assert.match(String(ev.eventTime), /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{6}Z$/);
        assert.deepEqual((ev.regarding as Record<string, unknown>).uid, regarding.metadata.uid);
        const defaults = await client.list<Ev>(CoreTypes.Event, { namespace: "default" });
        assert.ok(
          defaults.items.some((e) => e.reason === "Checked" && (e.regarding as { kind: string }).kind === "Namespace"),
        );

        recorder.event(regarding, input);
        recorder.event(regarding, input);
        await recorder.close();
        assert.equal(await metrics.value("kubeop_events_dropped_total", { reason: "error" }), 0);
        const updated = await client.get<Ev>(CoreTypes.Event, ev.metadata.name!, { namespace: ns });
        assert.ok(updated.series, JSON.stringify(updated));
        assert.equal(updated.series.count, 3);
        assert.match(updated.series.lastObservedTime, /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{6}Z$/);
        assert.equal((await client.list(CoreTypes.Event, { namespace: ns })).items.length, 1, "one Event per series");
      });
    });
  },
});
