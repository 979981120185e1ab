import assert from "node:assert/strict";
import { Manager } from "../runtime/manager.ts";
import { createCA } from "../runtime/pki.ts";
import { eventually } from "../testing/eventually.ts";
import { insecureFetch } from "../testing/insecure_fetch.ts";
import type { KubeObject } from "../runtime/types.ts";
import { startFakeEnv } from "./support/fake_env.ts";

function deniesMetrics(review: KubeObject): boolean {
  const attrs = review.spec?.nonResourceAttributes as { path?: string; verb?: string } | undefined;
  return attrs?.path === "/metrics" && attrs.verb === "get";
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

    const anonymous = await scrape();
    assert.equal(anonymous.status, 401);
    assert.doesNotMatch(anonymous.body, /process_cpu_seconds_total/);

    env.server.faults.denySubjectAccess(deniesMetrics);
    const denied = await scrape("reader-token");
    assert.equal(denied.status, 403);
    assert.match(denied.body, /Forbidden \(user=kubeop-dev, verb=get/);

    // A denial is cached 30 s, an allowed answer 5 min; a different user's token is a fresh review.
    env.server.faults.clear();
    env.server.faults.denySubjectAccess((review) => review.spec?.user !== "kubeop-dev");
    assert.equal((await scrape("reader-token")).status, 403, "the denial is still cached");

    const manager2 = new Manager({ client: env.client, metricsBindAddress: "127.0.0.1:0", metricsSecure: true });
    const stop2 = new AbortController();
    const running2 = manager2.start(stop2.signal);
    try {
      await eventually("the second metrics endpoint", () => manager2.endpoints.metrics !== undefined);
      // Self-signed: only an unverifying client can read it.
      const res = await insecureFetch(new URL(`${manager2.endpoints.metrics}/metrics`), {
        method: "GET",
        headers: new Headers({ authorization: "Bearer reader-token" }),
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
