/**
 * The quota controller `kubeop dev` runs (kube-controller-manager's, option `quotaController`): a quota's status gets
 * its hard limits and the namespace's usage, recounted as objects come and go, so ResourceQuota admission enforces it
 * without a client writing the status (tests/conformance/limits_quota.ts writes it: the real tier runs no such
 * controller).
 */
import assert from "node:assert/strict";
import { startFakeApiServer } from "../testing/mod.ts";
import { call } from "../testing/test_http.ts";
import { eventually } from "../testing/eventually.ts";

const NS = "/api/v1/namespaces/quota";

Deno.test("fake quota controller: status.hard from spec, used recounted on creates and deletes", async () => {
  const s = await startFakeApiServer({ anonymousAdmin: true, quotaController: true });
  const used = async () => (await call(s.url, "GET", `${NS}/resourcequotas/q`)).body.status?.used;
  try {
    await call(s.url, "POST", "/api/v1/namespaces", { metadata: { name: "quota" } });
    const hard = { pods: "2", "requests.cpu": "1", "count/configmaps": "1" };
    await call(s.url, "POST", `${NS}/resourcequotas`, { metadata: { name: "q" }, spec: { hard } });
    const status = await eventually("status filled", async () => {
      const got = (await call(s.url, "GET", `${NS}/resourcequotas/q`)).body.status;
      return got?.hard ? got : undefined;
    });
    assert.deepEqual(status, {
      hard: { "count/configmaps": "1", pods: "2", "requests.cpu": "1" },
      used: { "count/configmaps": "0", pods: "0", "requests.cpu": "0" },
    });
    const pod = await call(s.url, "POST", `${NS}/pods`, {
      metadata: { name: "p" },
      spec: { containers: [{ name: "c", image: "busybox:1.36", resources: { requests: { cpu: "300m" } } }] },
    });
    assert.equal(pod.status, 201, JSON.stringify(pod.body));
    assert.equal((await call(s.url, "POST", `${NS}/configmaps`, { metadata: { name: "a" } })).status, 201);
    await eventually(
      "used counted",
      async () =>
        JSON.stringify(await used()) === JSON.stringify({ "count/configmaps": "1", pods: "1", "requests.cpu": "300m" }),
    );
    const refused = await call(s.url, "POST", `${NS}/configmaps`, { metadata: { name: "b" } });
    assert.equal(refused.status, 403);
    assert.equal(
      refused.body.message,
      'configmaps "b" is forbidden: exceeded quota: q, requested: count/configmaps=1, used: count/configmaps=1, ' +
        "limited: count/configmaps=1",
    );
    // Admission only adds; the controller's recount frees the deleted ConfigMap's share.
    await call(s.url, "DELETE", `${NS}/configmaps/a`);
    await eventually("used recounted", async () => (await used())["count/configmaps"] === "0");
    assert.equal((await call(s.url, "POST", `${NS}/configmaps`, { metadata: { name: "b" } })).status, 201);
  } finally {
    await s.stop();
  }
});
