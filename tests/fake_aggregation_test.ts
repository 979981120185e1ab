import assert from "node:assert/strict";
import { startFakeApiServer } from "../testing/mod.ts";
import { createServerPki } from "../testing/server_pki.ts";
import { call } from "../testing/test_http.ts";

Deno.test("registerAggregatedApi: an in-process handler serves its group-version, listed in /apis", async () => {
  const s = await startFakeApiServer();
  try {
    s.registerAggregatedApi(
      "farm.example.com",
      "v1alpha",
      (req) =>
        Promise.resolve(
          Response.json({
            kind: "APIResourceList",
            groupVersion: "farm.example.com/v1alpha",
            path: new URL(req.url).pathname,
          }),
        ),
    );
    const res = await call(s.url, "GET", "/apis/farm.example.com/v1alpha");
    assert.equal(res.body.path, "/apis/farm.example.com/v1alpha");
    const groups = await call(s.url, "GET", "/apis");
    assert.ok(groups.body.groups.some((g: { name: string }) => g.name === "farm.example.com"));
    const group = await call(s.url, "GET", "/apis/farm.example.com");
    assert.equal(group.body.preferredVersion.version, "v1alpha");
    const index = await call(s.url, "GET", "/openapi/v3");
    assert.ok(index.body.paths["apis/farm.example.com/v1alpha"]);
  } finally {
    await s.stop();
  }
});

Deno.test("an APIService with spec.service proxies to the Service's endpoint over TLS with remote-user headers", async () => {
  const backendPki = await createServerPki();
  const seen: Array<string | null> = [];
  const backend = Deno.serve({
    hostname: "127.0.0.1",
    port: 0,
    cert: backendPki.serving.certPEM,
    key: backendPki.serving.keyPEM,
    onListen: () => {},
  }, (req) => {
    seen.push(req.headers.get("x-remote-user"));
    return Response.json({ kind: "LlamaList", apiVersion: "farm.example.com/v1alpha", items: [] });
  });
  const s = await startFakeApiServer();
  try {
    await call(s.url, "POST", "/api/v1/namespaces/default/services", {
      metadata: { name: "farm" },
      spec: { ports: [{ name: "https", port: 443 }] },
    });
    await call(s.url, "POST", "/api/v1/namespaces/default/endpoints", {
      metadata: { name: "farm" },
      subsets: [{ addresses: [{ ip: "127.0.0.1" }], ports: [{ name: "https", port: backend.addr.port }] }],
    });
    const created = await call(s.url, "POST", "/apis/apiregistration.k8s.io/v1/apiservices", {
      metadata: { name: "v1alpha.farm.example.com" },
      spec: {
        group: "farm.example.com",
        version: "v1alpha",
        service: { namespace: "default", name: "farm", port: 443 },
        caBundle: btoa(backendPki.caPEM),
        groupPriorityMinimum: 1000,
        versionPriority: 15,
      },
    });
    assert.equal(created.status, 201);
    assert.equal(created.body.status.conditions[0].status, "True");
    const list = await call(s.url, "GET", "/apis/farm.example.com/v1alpha/namespaces/default/llamas");
    assert.equal(list.status, 200);
    assert.equal(list.body.kind, "LlamaList");
    assert.deepEqual(seen, ["kubeop-dev"]);
    await call(s.url, "DELETE", "/apis/apiregistration.k8s.io/v1/apiservices/v1alpha.farm.example.com");
    assert.equal((await call(s.url, "GET", "/apis/farm.example.com/v1alpha/namespaces/default/llamas")).status, 404);
  } finally {
    await s.stop();
    await backend.shutdown();
  }
});
