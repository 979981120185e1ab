/**
 * The webhook server inside a Manager, against the fake API server: it starts with the other servers and is ready
 * (certificate obtained, caBundle injected, listening) before the caches start, so the manager is never ready while
 * kube-apiserver could not call it; kube-apiserver's view — the injected caBundle and the Service DNS name — is enough
 * to reach it and get Netperf's verdict.
 */
import assert from "node:assert/strict";
import https from "node:https";
import { netperfWebhook } from "../controllers/netperf/webhook.ts";
import { KubeClient } from "../runtime/client/client.ts";
import { Manager } from "../runtime/manager/manager.ts";
import { Metrics } from "../runtime/observe/metrics.ts";
import { CoreTypes, type KubeObject } from "../runtime/types.ts";
import { VALIDATING_WEBHOOK_CONFIGURATIONS } from "../runtime/webhook/ca_bundle_injector.ts";
import { webhookConfigurations } from "../runtime/webhook/manifests.ts";
import type { AdmissionReview } from "../runtime/webhook/review_types.ts";
import { createWebhookServer } from "../runtime/webhook/setup.ts";
import { eventually, startFakeApiServer } from "../testing/mod.ts";

/** POSTs `body` to the webhook as kube-apiserver would: trusting only `caBundle`, checking the Service DNS name. */
function postAsApiServer(port: number, path: string, caBundle: string, body: unknown): Promise<[number, string]> {
  return new Promise((resolve, reject) => {
    const req = https.request({
      host: "127.0.0.1",
      port,
      path: `${path}?timeout=10s`,
      method: "POST",
      servername: "kubeop-webhook.kubeop-system.svc",
      ca: atob(caBundle),
      headers: { "content-type": "application/json" },
    }, (res) => {
      let text = "";
      res.setEncoding("utf8");
      res.on("data", (chunk) => text += chunk);
      res.on("end", () => resolve([res.statusCode ?? 0, text]));
    });
    req.on("error", reject);
    req.end(JSON.stringify(body));
  });
}

Deno.test("the manager's webhook server injects its caBundle and answers kube-apiserver before the caches start", async () => {
  const server = await startFakeApiServer({ anonymousAdmin: true });
  const client = new KubeClient({ config: { server: server.url } });
  const stop = new AbortController();
  try {
    await client.create(CoreTypes.Namespace, { metadata: { name: "kubeop-system" } });
    await client.create(CoreTypes.Node, { metadata: { name: "node-a" } });
    const webhooks = [netperfWebhook({ client })];
    for (const config of webhookConfigurations(webhooks)) {
      await client.create(VALIDATING_WEBHOOK_CONFIGURATIONS, config);
    }
    const metrics = new Metrics();
    const manager = new Manager({ client, metrics, healthProbeBindAddress: "127.0.0.1:0" });
    const webhook = createWebhookServer({ webhooks, bindAddress: "127.0.0.1:0", client, metrics });
    let cachesStartedWith: string | undefined;
    manager.add({
      name: "cache-probe",
      group: "caches",
      start: () => {
        cachesStartedWith = webhook.url;
        return Promise.resolve();
      },
    });
    manager.add(webhook);
    const running = manager.start(stop.signal);
    const ready = await eventually("the manager to be ready", async () => {
      const url = manager.endpoints.healthProbe;
      if (!url) return false;
      const res = await fetch(`${url}/readyz`);
      await res.body?.cancel();
      return res.status === 200;
    });
    assert.ok(ready);
    assert.ok(cachesStartedWith?.startsWith("https://127.0.0.1:"), "the webhook listened before the caches started");

    const vwc = await client.get<KubeObject & { webhooks: { clientConfig: { caBundle?: string } }[] }>(
      VALIDATING_WEBHOOK_CONFIGURATIONS,
      "kubeop-validating-webhook-configuration",
    );
    const caBundle = vwc.webhooks[0].clientConfig.caBundle;
    assert.ok(caBundle, "caBundle injected");
    const review = (serverNode: string): AdmissionReview => ({
      apiVersion: "admission.k8s.io/v1",
      kind: "AdmissionReview",
      request: {
        uid: `uid-${serverNode}`,
        kind: { group: "app.example.com", version: "v1alpha1", kind: "Netperf" },
        resource: { group: "app.example.com", version: "v1alpha1", resource: "netperfs" },
        operation: "CREATE",
        userInfo: { username: "kubernetes-admin" },
        object: {
          apiVersion: "app.example.com/v1alpha1",
          kind: "Netperf",
          metadata: { name: "np" },
          spec: { serverNode },
        },
      },
    });
    const port = Number(new URL(webhook.url!).port);
    const path = "/validate-app-example-com-v1alpha1-netperf";
    const [okStatus, okBody] = await postAsApiServer(port, path, caBundle, review("node-a"));
    assert.equal(okStatus, 200);
    assert.equal((JSON.parse(okBody) as AdmissionReview).response?.allowed, true);
    const [, refusedBody] = await postAsApiServer(port, path, caBundle, review("node-x"));
    const refused = (JSON.parse(refusedBody) as AdmissionReview).response!;
    assert.deepEqual([refused.uid, refused.allowed, refused.status?.message], [
      "uid-node-x",
      false,
      'spec.serverNode: Node "node-x" not found',
    ]);
    const scraped = await metrics.render();
    assert.match(scraped, new RegExp(`controller_runtime_webhook_requests_total\\{webhook="${path}",code="200"\\} 2`));
    stop.abort();
    await running;
  } finally {
    stop.abort();
    client.close();
    await server.stop();
  }
});
