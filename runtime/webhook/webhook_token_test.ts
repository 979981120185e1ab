// `--webhook-token-audience`: webhook requests carry a bearer token that a TokenReview (here the fake API server's,
// over HTTP) finds valid for the webhook's audience; everything else is 401 before the body is read, and counted.
import assert from "node:assert/strict";
import { startFakeApiServer } from "../../testing/mod.ts";
import { KubeClient } from "../client/client.ts";
import { parseKubeconfig } from "../client/kubeconfig.ts";
import { VirtualClock } from "../clock.ts";
import { createCA } from "../http/pki.ts";
import { startRunnable } from "../manager/runnable.ts";
import { authMetrics } from "../observe/auth_metrics.ts";
import { Metrics } from "../observe/metrics.ts";
import type { ResourceType } from "../types.ts";
import { WebhookServer } from "./server.ts";
import { WebhookTokenVerifier } from "./webhook_token.ts";

const SERVICE_ACCOUNTS: ResourceType = {
  group: "",
  version: "v1",
  plural: "serviceaccounts",
  kind: "ServiceAccount",
  namespaced: true,
};
const AUDIENCE = "https://kubeop-webhook.kubeop-system.svc:443";

Deno.test("--webhook-token-audience: a token for the webhook's audience is admitted; others get kube's 401", async () => {
  const fake = await startFakeApiServer({ port: 0 });
  const client = new KubeClient({ config: await parseKubeconfig(fake.kubeconfig) });
  const ca = await createCA({ commonName: "webhook-serving-ca" });
  const leaf = await ca.issue({ commonName: "webhook", hosts: ["127.0.0.1"], usage: "server" });
  const metrics = new Metrics();
  const clock = new VirtualClock();
  let served = 0;
  const verifier = new WebhookTokenVerifier({
    client,
    audience: AUDIENCE,
    clock,
    metrics: authMetrics(metrics.registry),
  });
  const server = new WebhookServer({
    bindAddress: "127.0.0.1:0",
    certificates: { initial: () => Promise.resolve(leaf), watch: () => Promise.resolve() },
    routes: [{ path: "/validate", serve: (body) => (served++, Promise.resolve({ status: 200, body })) }],
    metrics,
    authenticate: (head) => verifier.verify(head),
  });
  const stop = new AbortController();
  const run = startRunnable(server, stop.signal);
  const http = Deno.createHttpClient({ caCerts: [ca.certPEM] });
  const tokenFor = async (audience: string) => {
    const res = await client.request("POST", "/api/v1/namespaces/default/serviceaccounts/webhook-caller/token", {
      body: { apiVersion: "authentication.k8s.io/v1", kind: "TokenRequest", spec: { audiences: [audience] } },
    });
    return JSON.parse(new TextDecoder().decode(res.body)).status.token as string;
  };
  const post = async (token?: string) => {
    const res = await fetch(`${server.url}/validate`, {
      method: "POST",
      headers: { "content-type": "application/json", ...(token ? { authorization: `Bearer ${token}` } : {}) },
      body: "{}",
      client: http,
    });
    return { status: res.status, body: await res.json() };
  };
  try {
    await run.ready;
    await client.create(SERVICE_ACCOUNTS, { metadata: { name: "webhook-caller", namespace: "default" } });
    const good = await tokenFor(AUDIENCE);
    const otherAudience = await tokenFor("https://somewhere-else.example");
    assert.equal((await post(good)).status, 200);
    for (const [what, token] of [["no token", undefined], ["other audience", otherAudience], ["garbage", "x.y.z"]]) {
      const refused = await post(token);
      assert.equal(refused.status, 401, what);
      assert.deepEqual(refused.body, {
        kind: "Status",
        apiVersion: "v1",
        metadata: {},
        status: "Failure",
        message: "Unauthorized",
        reason: "Unauthorized",
        code: 401,
      });
    }
    assert.equal(served, 1, "refused requests never reach the handler");
    assert.equal(await metrics.value("authentication_attempts", { result: "success" }), 1);
    assert.equal(await metrics.value("authentication_attempts", { result: "failure" }), 1);
    assert.equal(await metrics.value("authentication_attempts", { result: "error" }), 2);
  } finally {
    http.close();
    stop.abort();
    await run.done;
    client.close();
    await fake.stop();
  }
});
