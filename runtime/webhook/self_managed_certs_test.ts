import assert from "node:assert/strict";
import { X509Certificate } from "node:crypto";
import { startFakeApiServer } from "../../testing/mod.ts";
import { eventually } from "../../testing/eventually.ts";
import { KubeClient } from "../client/client.ts";
import { VirtualClock } from "../clock.ts";
import { startRunnable } from "../manager/runnable.ts";
import { CoreTypes, type KubeObject } from "../types.ts";
import { injectCaBundle, VALIDATING_WEBHOOK_CONFIGURATIONS } from "./ca_bundle_injector.ts";
import { SelfManagedCerts, type SelfManagedCertsOptions, splitPEM } from "./self_managed_certs.ts";
import { WebhookServer } from "./server.ts";
import { Webhook, webhookRoutes } from "./webhook.ts";

const DAY = 86_400_000;
const NS = "kubeop-system";

async function rig() {
  const server = await startFakeApiServer({ anonymousAdmin: true });
  const client = new KubeClient({ config: { server: server.url } });
  await client.create(CoreTypes.Namespace, { metadata: { name: NS } });
  await client.create(VALIDATING_WEBHOOK_CONFIGURATIONS, {
    metadata: { name: "kubeop-validating" },
    webhooks: [{
      name: "vwidget.example.com",
      admissionReviewVersions: ["v1"],
      sideEffects: "None",
      clientConfig: { service: { name: "kubeop-webhook", namespace: NS, path: "/validate-example-com-v1-widget" } },
      rules: [{ apiGroups: ["example.com"], apiVersions: ["v1"], operations: ["CREATE"], resources: ["widgets"] }],
    }],
  });
  const clock = new VirtualClock(Date.now());
  const certs = (extra: Partial<SelfManagedCertsOptions> = {}) =>
    new SelfManagedCerts({
      client,
      namespace: NS,
      serviceName: "kubeop-webhook",
      clock,
      caValidityMs: 10 * DAY,
      certValidityMs: 4 * DAY,
      renewBeforeMs: 2 * DAY,
      checkIntervalMs: DAY,
      injectCaBundle: async (pem, signal) =>
        void await injectCaBundle(client, { validating: ["kubeop-validating"], crds: ["absent.example.com"] }, pem, {
          signal,
        }),
      ...extra,
    });
  const secretBundle = async () => {
    const secret = await client.get(CoreTypes.Secret, "kubeop-webhook-ca", { namespace: NS });
    return splitPEM(atob((secret.data as Record<string, string>)["ca-bundle.crt"]));
  };
  const injected = async () => {
    const vwc = await client.get<KubeObject & { webhooks: { clientConfig: { caBundle?: string } }[] }>(
      VALIDATING_WEBHOOK_CONFIGURATIONS,
      "kubeop-validating",
    );
    return splitPEM(atob(vwc.webhooks[0].clientConfig.caBundle ?? ""));
  };
  return { server, client, clock, certs, secretBundle, injected };
}

/** The issuer certificate (last in the served chain) and the leaf. */
function chain(certPEM: string) {
  const [leaf, ca] = splitPEM(certPEM);
  return { leaf: new X509Certificate(leaf), caPEM: ca };
}

Deno.test("self-managed certs: replicas share one CA from the Secret; the leaf names the Service; caBundle injected", async () => {
  const { server, certs, secretBundle, injected } = await rig();
  try {
    const stop = new AbortController();
    // Two replicas race to create the Secret: both end up serving certificates of the one CA stored.
    const [a, b] = await Promise.all([certs().initial(stop.signal), certs().initial(stop.signal)]);
    const stored = await secretBundle();
    assert.equal(stored.length, 1);
    assert.equal(chain(a.certPEM).caPEM, stored[0]);
    assert.equal(chain(b.certPEM).caPEM, stored[0]);
    assert.deepEqual(await injected(), stored);
    const leaf = chain(a.certPEM).leaf;
    assert.ok(leaf.verify(new X509Certificate(stored[0]).publicKey));
    for (const name of ["kubeop-webhook.kubeop-system.svc", "kubeop-webhook.kubeop-system.svc.cluster.local"]) {
      assert.ok(leaf.subjectAltName?.includes(`DNS:${name}`), `${name} in ${leaf.subjectAltName}`);
    }
  } finally {
    await server.stop();
  }
});

Deno.test("self-managed certs rotate: leaf before expiry, CA with old and new in the bundle during the overlap", async () => {
  const { server, clock, certs, secretBundle, injected } = await rig();
  try {
    const signal = new AbortController().signal;
    const replica = certs();
    const first = await replica.initial(signal);
    const ca1 = chain(first.certPEM).caPEM;
    await clock.advance(1 * DAY);
    assert.equal(await replica.check(signal), undefined, "nothing due after a day");
    await clock.advance(2 * DAY); // leaf: 1 day left < 2 days
    const second = await replica.check(signal);
    assert.ok(second && second.certPEM !== first.certPEM);
    assert.equal(chain(second.certPEM).caPEM, ca1, "same CA");
    await clock.advance(5 * DAY + DAY / 2); // CA: 1.5 days left < 2 days
    const third = await replica.check(signal);
    const ca2 = chain(third!.certPEM).caPEM;
    assert.notEqual(ca2, ca1);
    assert.deepEqual(await secretBundle(), [ca2, ca1]);
    assert.deepEqual(await injected(), [ca2, ca1], "kube-apiserver trusts both during the overlap");
    // Another replica still on CA1 moves to CA2 at its next check.
    const other = certs();
    assert.equal(chain((await other.initial(signal)).certPEM).caPEM, ca2);
    await clock.advance(2 * DAY); // CA1 expired: the overlap ends
    await replica.check(signal);
    assert.deepEqual(await secretBundle(), [ca2]);
    assert.deepEqual(await injected(), [ca2]);
  } finally {
    await server.stop();
  }
});

Deno.test("the webhook server is reachable with the injected bundle and swaps in a renewed certificate", async () => {
  const { server, clock, certs, secretBundle } = await rig();
  const stop = new AbortController();
  try {
    const webhook = new WebhookServer({
      bindAddress: "127.0.0.1:0",
      certificates: certs({ extraHosts: ["127.0.0.1"] }),
      routes: webhookRoutes([
        new Webhook({ group: "example.com", version: "v1", plural: "widgets", kind: "Widget", namespaced: true })
          .validate(() => {}),
      ]),
      clock,
    });
    const run = startRunnable(webhook, stop.signal);
    await run.ready;
    const served = async () => {
      const tls = await import("node:tls");
      return await new Promise<string>((resolve, reject) => {
        const socket = tls.connect({
          host: "127.0.0.1",
          port: Number(new URL(webhook.url!).port),
          rejectUnauthorized: false,
        });
        socket.once("secureConnect", () => {
          resolve(socket.getPeerX509Certificate()!.serialNumber);
          socket.destroy();
        });
        socket.once("error", reject);
      });
    };
    // Real time verification: kube-apiserver trusting the injected bundle reaches the server by its Service name
    // (here its IP SAN).
    const client = Deno.createHttpClient({ caCerts: await secretBundle() });
    const res = await fetch(`${webhook.url}/validate-example-com-v1-widget`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: "{}",
      client,
    });
    assert.equal(res.status, 400);
    await res.body?.cancel();
    client.close();
    const before = await served();
    // A check a day; the leaf (4 days, renewed 2 days before expiry) is renewed at the third. Checks run on the
    // fake API server in real time, so keep stepping the clock until the new certificate is served.
    const after = await eventually("a renewed certificate served", async () => {
      await clock.advance(DAY);
      const serial = await served();
      return serial !== before && serial;
    });
    assert.notEqual(after, before);
    stop.abort();
    await run.done;
  } finally {
    stop.abort();
    await server.stop();
  }
});
