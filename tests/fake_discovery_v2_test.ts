import assert from "node:assert/strict";
import { startFakeApiServer } from "../testing/mod.ts";
import { call } from "../testing/test_http.ts";

const V2 = "application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList";
const KUBECTL_ACCEPT =
  `${V2},application/json;g=apidiscovery.k8s.io;v=v2beta1;as=APIGroupDiscoveryList,application/json`;

Deno.test("aggregated discovery v2: /api and /apis with CRD and APIService groups; legacy without the Accept", async () => {
  const s = await startFakeApiServer({ anonymousAdmin: true });
  try {
    await call(s.url, "POST", "/apis/apiextensions.k8s.io/v1/customresourcedefinitions", {
      metadata: { name: "gizmos.example.com" },
      spec: {
        group: "example.com",
        scope: "Namespaced",
        names: { plural: "gizmos", singular: "gizmo", kind: "Gizmo", shortNames: ["gz"] },
        versions: [{
          name: "v1",
          served: true,
          storage: true,
          subresources: { status: {}, scale: { specReplicasPath: ".spec.replicas", statusReplicasPath: ".status.n" } },
          schema: { openAPIV3Schema: { type: "object", "x-kubernetes-preserve-unknown-fields": true } },
        }],
      },
    });
    s.registerAggregatedApi("farm.example.com", "v1alpha", () =>
      Promise.resolve(Response.json({
        kind: "APIResourceList",
        groupVersion: "farm.example.com/v1alpha",
        resources: [
          { name: "llamas", singularName: "llama", namespaced: true, kind: "Llama", verbs: ["get", "list"] },
          { name: "llamas/status", singularName: "", namespaced: true, kind: "Llama", verbs: ["get"] },
        ],
      })));
    s.registerAggregatedApi("down.example.com", "v1", () => Promise.resolve(new Response("no", { status: 503 })));

    const core = await call(s.url, "GET", "/api?timeout=32s", undefined, { accept: KUBECTL_ACCEPT });
    assert.equal(core.headers.get("content-type"), V2);
    assert.equal(core.body.kind, "APIGroupDiscoveryList");
    assert.equal(core.body.apiVersion, "apidiscovery.k8s.io/v2");
    assert.equal(core.body.items[0].metadata.name ?? "", "");
    const pods = core.body.items[0].versions[0].resources.find((r: { resource: string }) => r.resource === "pods");
    assert.deepEqual(pods.responseKind, { group: "", version: "", kind: "Pod" });
    assert.equal(pods.scope, "Namespaced");
    assert.ok(pods.subresources.some((r: { subresource: string }) => r.subresource === "status"));

    const apis = await call(s.url, "GET", "/apis", undefined, { accept: KUBECTL_ACCEPT });
    assert.equal(apis.headers.get("content-type"), V2);
    const group = (name: string) =>
      apis.body.items.find((g: { metadata: { name: string } }) => g.metadata.name === name);
    assert.equal(group(""), undefined, "the core group is only under /api");
    const gizmos = group("example.com").versions[0].resources[0];
    assert.equal(gizmos.resource, "gizmos");
    assert.deepEqual(gizmos.shortNames, ["gz"]);
    const scale = gizmos.subresources.find((r: { subresource: string }) => r.subresource === "scale");
    assert.deepEqual(scale.responseKind, { group: "autoscaling", version: "v1", kind: "Scale" });
    const farm = group("farm.example.com").versions[0];
    assert.equal(farm.freshness, "Current");
    assert.equal(farm.resources[0].resource, "llamas");
    assert.deepEqual(farm.resources[0].responseKind, { group: "farm.example.com", version: "v1alpha", kind: "Llama" });
    assert.equal(farm.resources[0].subresources[0].subresource, "status");
    assert.equal(group("down.example.com").versions[0].freshness, "Stale");

    const legacy = await call(s.url, "GET", "/apis", undefined, { accept: "application/json" });
    assert.equal(legacy.body.kind, "APIGroupList");
    assert.equal(legacy.headers.get("content-type"), "application/json");
    const legacyCore = await call(s.url, "GET", "/api");
    assert.deepEqual(legacyCore.body.versions, ["v1"]);
  } finally {
    await s.stop();
  }
});
