import assert from "node:assert/strict";
import { ApiError, isConflict, isNotFound } from "../../runtime/client/errors.ts";
import { CoreTypes, type ResourceType } from "../../runtime/types.ts";
import type { Unstructured as KubeObject } from "../apiserver/unstructured.ts";
import { FakeCluster } from "./fake_cluster.ts";

const WidgetType: ResourceType = {
  group: "example.com",
  version: "v1",
  plural: "widgets",
  kind: "Widget",
  namespaced: true,
};

const WIDGET_CRD: KubeObject = {
  apiVersion: "apiextensions.k8s.io/v1",
  kind: "CustomResourceDefinition",
  metadata: { name: "widgets.example.com" },
  spec: {
    group: "example.com",
    scope: "Namespaced",
    names: { plural: "widgets", singular: "widget", kind: "Widget", listKind: "WidgetList" },
    versions: [{
      name: "v1",
      served: true,
      storage: true,
      subresources: { status: {} },
      schema: {
        openAPIV3Schema: {
          type: "object",
          properties: {
            spec: {
              type: "object",
              properties: { size: { type: "integer", default: 1 }, tags: { type: "array", items: { type: "string" } } },
            },
            status: { type: "object", properties: { phase: { type: "string" } } },
          },
        },
      },
    }],
  },
};

function rejection(p: Promise<unknown>): Promise<ApiError> {
  return p.then(() => assert.fail("expected a rejection"), (err) => {
    assert.ok(err instanceof ApiError, String(err));
    return err;
  });
}

Deno.test("errors carry the server's Status and the call as KubeClient describes it", async () => {
  const { client } = new FakeCluster();
  const missing = await rejection(client.get(CoreTypes.ConfigMap, "nope", { namespace: "default" }));
  assert.ok(isNotFound(missing));
  assert.equal(missing.status.message, 'configmaps "nope" not found');
  assert.deepEqual(missing.call, { verb: "get", resource: "configmaps", namespace: "default", name: "nope" });
  const noNamespace = await rejection(
    client.create(CoreTypes.ConfigMap, { metadata: { name: "a", namespace: "absent" } }),
  );
  assert.equal(noNamespace.status.message, 'namespaces "absent" not found');
  assert.deepEqual(noNamespace.call, { verb: "create", resource: "configmaps", namespace: "absent", name: "a" });
  const created = await client.create(CoreTypes.ConfigMap, { metadata: { name: "a", namespace: "default" } });
  await client.update(CoreTypes.ConfigMap, { ...created, data: { x: "1" } });
  const stale = await rejection(client.update(CoreTypes.ConfigMap, { ...created, data: { x: "2" } }));
  assert.ok(isConflict(stale));
  assert.equal(stale.call.verb, "update");
});

Deno.test("patch flavours go through the server's patch code: merge, json, strategic (415 for custom), apply", async () => {
  const cluster = new FakeCluster({ crds: [WIDGET_CRD] });
  const { client } = cluster;
  const ns = { namespace: "default" };
  await client.create(WidgetType, { metadata: { name: "w", ...ns }, spec: { tags: ["a"] } });
  assert.equal(cluster.get(WidgetType, "default/w")?.spec.size, 1, "defaulted by the CRD schema");
  await client.patch(WidgetType, "w", { spec: { size: 3 } }, { ...ns, type: "merge" });
  await client.patch(WidgetType, "w", [{ op: "add", path: "/spec/tags/-", value: "b" }], { ...ns, type: "json" });
  assert.deepEqual(cluster.get(WidgetType, "default/w")?.spec, { size: 3, tags: ["a", "b"] });
  const strategic = await rejection(client.patch(WidgetType, "w", { spec: {} }, { ...ns, type: "strategic" }));
  assert.equal(strategic.code, 415);
  assert.equal(strategic.call.verb, "patch/strategic");
  await client.patch(WidgetType, "w", {
    apiVersion: "example.com/v1",
    kind: "Widget",
    metadata: { name: "w" },
    spec: { size: 5 },
  }, {
    ...ns,
    type: "apply",
  });
  const applied = cluster.get(WidgetType, "default/w")!;
  assert.equal(applied.spec.size, 5);
  const managers = (applied.metadata.managedFields ?? []) as { manager: string; operation: string }[];
  assert.ok(managers.some((f) => f.manager === "kubeop" && f.operation === "Apply"));
  await client.create(CoreTypes.Pod, {
    metadata: { name: "p", ...ns },
    spec: { containers: [{ name: "a", image: "busybox" }, { name: "b", image: "busybox" }] },
  });
  await client.patch(CoreTypes.Pod, "p", { spec: { containers: [{ name: "b", image: "alpine" }] } }, {
    ...ns,
    type: "strategic",
  });
  const images = cluster.get(CoreTypes.Pod, "default/p")!.spec.containers.map((c: KubeObject) => c.image);
  assert.deepEqual(images, ["busybox", "alpine"], "strategic merge by container name, not list replacement");
  const stale = await rejection(
    client.patch(WidgetType, "w", { metadata: { resourceVersion: "1" }, spec: { size: 9 } }, { ...ns, type: "merge" }),
  );
  assert.ok(isConflict(stale), "a resourceVersion in a patch is a precondition");
});

Deno.test("status writes change only status; kinds without a status subresource answer 404", async () => {
  const cluster = new FakeCluster({ crds: [WIDGET_CRD] });
  const { client } = cluster;
  const w = await client.create(WidgetType, {
    metadata: { name: "w", namespace: "default" },
    spec: { size: 2 },
    status: { phase: "Ignored" },
  });
  assert.equal(w.status, undefined, "status on create is dropped");
  await client.updateStatus(WidgetType, { ...w, spec: { size: 7 }, status: { phase: "Ready" } });
  assert.deepEqual(cluster.get(WidgetType, "default/w")?.spec.size, 2);
  await client.patch(WidgetType, "w", { spec: { size: 8 }, status: { phase: "Done" } }, {
    namespace: "default",
    type: "merge",
  });
  const after = cluster.get(WidgetType, "default/w")!;
  assert.equal(after.spec.size, 8);
  assert.equal(after.status.phase, "Ready", "the main resource ignores status");
  const cm = await client.create(CoreTypes.ConfigMap, { metadata: { name: "c", namespace: "default" } });
  const noStatus = await rejection(client.updateStatus(CoreTypes.ConfigMap, cm));
  assert.ok(isNotFound(noStatus));
  assert.deepEqual(
    cluster.writes().map((c) => `${c.verb} ${c.resource} ${c.key} ${c.subresource ?? ""}`.trim()),
    [
      "create widgets default/w",
      "update widgets default/w status",
      "patch widgets default/w",
      "create configmaps default/c",
      "update configmaps default/c status",
    ],
  );
});

Deno.test("pod logs: served from podLogs; a pod without one is 404 (thrown or returned); a missing pod is 404", async () => {
  const cluster = new FakeCluster();
  const { client } = cluster;
  await client.create(CoreTypes.Pod, {
    metadata: { name: "p", namespace: "default" },
    spec: { containers: [{ name: "c", image: "busybox" }] },
  });
  const path = "/api/v1/namespaces/default/pods/p/log";
  const returned = await client.request("GET", path);
  assert.equal(returned.status, 404);
  const call = { verb: "get", resource: "pods/log", namespace: "default", name: "p" };
  const thrown = await rejection(client.request("GET", path, { throwOnError: true, call }));
  assert.deepEqual(thrown.call, call);
  cluster.podLogs.set("default/p", "hello\n");
  assert.equal(new TextDecoder().decode((await client.request("GET", path)).body), "hello\n");
  const gone = await rejection(client.request("GET", "/api/v1/namespaces/default/pods/q/log", { throwOnError: true }));
  assert.equal(gone.status.message, 'pods "q" not found');
});
