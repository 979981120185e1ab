import assert from "node:assert/strict";
import { Manager } from "../runtime/manager/manager.ts";
import { createCA } from "../runtime/http/pki.ts";
import { eventually } from "../testing/eventually.ts";
import { nodeHttpsFetch } from "../testing/apiserver/node_https_fetch.ts";
import type { KubeObject, ResourceType } from "../runtime/types.ts";
import type { KubeClient } from "../runtime/client/client.ts";
import { nestedRecord } from "../runtime/unstructured.ts";
import { startFakeEnv } from "./support/fake_env.ts";

function deniesMetrics(review: KubeObject): boolean {
  const attrs = nestedRecord(review, "spec", "nonResourceAttributes") as { path?: string; verb?: string } | undefined;
  return attrs?.path === "/metrics" && attrs.verb === "get";
}

const ClusterRoleType: ResourceType = {
  group: "rbac.authorization.k8s.io",
  version: "v1",
  plural: "clusterroles",
  kind: "ClusterRole",
  namespaced: false,
};
const ServiceAccountType: ResourceType = {
  group: "",
  version: "v1",
  plural: "serviceaccounts",
  kind: "ServiceAccount",
  namespaced: true,
};
const ClusterRoleBindingType: ResourceType = {
  ...ClusterRoleType,
  plural: "clusterrolebindings",
  kind: "ClusterRoleBinding",
};

/** A ServiceAccount `default/reader` with a TokenRequest token (TokenReview accepts only tokens the server issued). */
async function readerToken(admin: KubeClient): Promise<string> {
  await admin.create(ServiceAccountType, { metadata: { name: "reader", namespace: "default" } }, {
    namespace: "default",
  });
  const res = await admin.request("POST", "/api/v1/namespaces/default/serviceaccounts/reader/token", {
    body: { apiVersion: "authentication.k8s.io/v1", kind: "TokenRequest", spec: { expirationSeconds: 3600 } },
    throwOnError: true,
  });
  return JSON.parse(new TextDecoder().decode(res.body)).status.token;
}

/** What deploy/rbac's metrics-reader ClusterRole grants, bound to the reader. */
async function grantMetricsReader(admin: KubeClient): Promise<void> {
  await admin.create(ClusterRoleType, {
    metadata: { name: "test-metrics-reader" },
    rules: [{ nonResourceURLs: ["/metrics"], verbs: ["get"] }],
  });
  await admin.create(ClusterRoleBindingType, {
    metadata: { name: "test-metrics-reader" },
    roleRef: { apiGroup: "rbac.authorization.k8s.io", kind: "ClusterRole", name: "test-metrics-reader" },
    subjects: [{ kind: "ServiceAccount", name: "reader", namespace: "default" }],
  });
}

Deno.test("--metrics-secure: HTTPS /metrics answers 401 without a token, 403 when SAR denies, 200 when allowed", async () => {
  const env = await startFakeEnv();
  const dir = await Deno.makeTempDir({ prefix: "kubeop-metrics-cert-" });
  const ca = await createCA({ commonName: "test-metrics-ca" });
  const leaf = await ca.issue({ commonName: "kubeop-metrics", hosts: ["127.0.0.1"], usage: "server" });
  await Deno.writeTextFile(`${dir}/tls.crt`, leaf.certPEM);
  await Deno.writeTextFile(`${dir}/tls.key`, leaf.keyPEM);
  const http = Deno.createHttpClient({ caCerts: [ca.certPEM] });
  const stop = new AbortController();
  let running: Promise<void> | undefined;
  try {
    const manager = new Manager({
      client: env.client,
      metricsBindAddress: "127.0.0.1:0",
      metricsSecure: true,
      metricsCertDir: dir,
    });
    running = manager.start(stop.signal);
    await eventually("the metrics endpoint", () => manager.endpoints.metrics !== undefined);
    const url = `${manager.endpoints.metrics}/metrics`;
    assert.match(url, /^https:\/\/127\.0\.0\.1:\d+\/metrics$/);
    const scrape = async (token?: string) => {
      const res = await fetch(url, { client: http, headers: token ? { authorization: `Bearer ${token}` } : {} });
      return { status: res.status, body: await res.text() };
    };

    const token = await readerToken(env.client);
    await grantMetricsReader(env.client);
    assert.equal((await scrape("not-a-token-the-server-issued")).status, 401, "TokenReview refuses unknown tokens");

    const anonymous = await scrape();
    assert.equal(anonymous.status, 401);
    assert.doesNotMatch(anonymous.body, /process_cpu_seconds_total/);

    env.server.faults.denySubjectAccess(deniesMetrics);
    const denied = await scrape(token);
    assert.equal(denied.status, 403);
    assert.match(denied.body, /Forbidden \(user=system:serviceaccount:default:reader, verb=get/);

    // A denial is cached 30 s, an allowed answer 5 min; a different user's token is a fresh review.
    env.server.faults.clear();
    assert.equal((await scrape(token)).status, 403, "the denial is still cached");

    const manager2 = new Manager({ client: env.client, metricsBindAddress: "127.0.0.1:0", metricsSecure: true });
    const stop2 = new AbortController();
    const running2 = manager2.start(stop2.signal);
    try {
      await eventually("the second metrics endpoint", () => manager2.endpoints.metrics !== undefined);
      // Self-signed: only an unverifying client can read it.
      const res = await nodeHttpsFetch(new URL(`${manager2.endpoints.metrics}/metrics`), {
        method: "GET",
        headers: new Headers({ authorization: `Bearer ${token}` }),
        insecureSkipVerify: true,
      });
      const body = await res.text();
      assert.equal(res.status, 200);
      assert.match(body, /^process_cpu_seconds_total /m);
    } finally {
      stop2.abort();
      await running2;
    }
  } finally {
    stop.abort();
    await running;
    http.close();
    await env.close();
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("--metrics-secure leaves the health probes unauthenticated", async () => {
  const env = await startFakeEnv();
  const stop = new AbortController();
  let running: Promise<void> | undefined;
  try {
    const manager = new Manager({
      client: env.client,
      metricsBindAddress: "127.0.0.1:0",
      healthProbeBindAddress: "127.0.0.1:0",
      metricsSecure: true,
    });
    running = manager.start(stop.signal);
    await eventually("the probe endpoint", () => manager.endpoints.healthProbe !== undefined);
    const res = await fetch(`${manager.endpoints.healthProbe}/healthz`);
    assert.equal(res.status, 200);
    assert.equal(await res.text(), "ok");
  } finally {
    stop.abort();
    await running;
    await env.close();
  }
});
