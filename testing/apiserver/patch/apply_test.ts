import assert from "node:assert/strict";
import { ApiError } from "../../../runtime/client/errors.ts";
import type { Unstructured as KubeObject } from "../unstructured.ts";
import { type ResourceDef, resourceDefFor } from "../resource_def.ts";
import type { ManagedFieldsEntry } from "../../../runtime/apimachinery/managed_fields.ts";
import { recordUpdateManagedFields, serverSideApply } from "./apply.ts";

// deno-lint-ignore no-explicit-any
type Any = any;

const def = (group: string, kind: string, over: Partial<ResourceDef> = {}): ResourceDef =>
  resourceDefFor(group, kind, { tracksGeneration: true, ...over });
const DEPLOYMENT = def("apps", "Deployment", { subresources: ["status", "scale"] });
const CONFIGMAP = def("", "ConfigMap");
const T0 = "2025-01-01T00:00:00Z";
const T1 = "2025-01-01T00:01:00Z";

function deployment(image: string, extra: Record<string, unknown> = {}): KubeObject {
  return {
    apiVersion: "apps/v1",
    kind: "Deployment",
    metadata: { name: "web", namespace: "default", labels: { app: "web" } },
    spec: {
      replicas: 2,
      selector: { matchLabels: { app: "web" } },
      template: {
        metadata: { labels: { app: "web" } },
        spec: { containers: [{ name: "web", image, ports: [{ containerPort: 80 }] }] },
      },
      ...extra,
    },
  };
}

const entries = (obj: KubeObject) => obj.metadata.managedFields as ManagedFieldsEntry[];

Deno.test("SSA: first apply creates the object with an Apply entry in real FieldsV1 format", () => {
  const obj = serverSideApply(undefined, deployment("nginx:1.25"), {
    fieldManager: "kubectl",
    force: false,
    nowIso: T0,
    def: DEPLOYMENT,
  });
  assert.equal(obj.spec.template.spec.containers[0].image, "nginx:1.25");
  const [e] = entries(obj);
  assert.deepEqual({ ...e, fieldsV1: undefined }, {
    manager: "kubectl",
    operation: "Apply",
    apiVersion: "apps/v1",
    time: T0,
    fieldsType: "FieldsV1",
    fieldsV1: undefined,
  });
  assert.deepEqual(e.fieldsV1, {
    "f:metadata": { "f:labels": { "f:app": {} } },
    "f:spec": {
      "f:replicas": {},
      "f:selector": {},
      "f:template": {
        "f:metadata": { "f:labels": { "f:app": {} } },
        "f:spec": {
          "f:containers": {
            'k:{"name":"web"}': {
              ".": {},
              "f:image": {},
              "f:name": {},
              "f:ports": { 'k:{"containerPort":80,"protocol":"TCP"}': { ".": {}, "f:containerPort": {} } },
            },
          },
        },
      },
    },
  });
});

Deno.test("SSA: re-apply changes owned fields, removes fields the manager stopped applying, keeps others' fields", () => {
  const opts = { fieldManager: "kubectl", force: false, nowIso: T0, def: DEPLOYMENT };
  let obj = serverSideApply(undefined, deployment("nginx:1.25", { paused: true }), opts);
  obj = { ...obj, metadata: { ...obj.metadata, uid: "u1", resourceVersion: "10" } };
  // Another writer (kubectl edit) adds an annotation: recorded as an Update manager.
  const edited = structuredClone(obj);
  edited.metadata.annotations = { note: "x" };
  obj = recordUpdateManagedFields(obj, edited, "kubectl-edit", T0);
  const next = serverSideApply(obj, deployment("nginx:1.26"), { ...opts, nowIso: T1 });
  assert.equal(next.spec.template.spec.containers[0].image, "nginx:1.26");
  assert.equal("paused" in next.spec, false, "field dropped from the applied config is removed");
  assert.deepEqual(next.metadata.annotations, { note: "x" }, "other manager's field kept");
  assert.equal(next.metadata.uid, "u1");
  assert.equal(next.metadata.resourceVersion, "10");
  assert.deepEqual(entries(next).map((e) => [e.manager, e.operation, e.time]), [["kubectl", "Apply", T1], [
    "kubectl-edit",
    "Update",
    T0,
  ]]);
});

Deno.test("SSA: changing a field owned by a client-side-apply manager is a 409 with kube's message; force takes over", () => {
  const created = recordUpdateManagedFields(undefined, deployment("nginx:1.25"), "kubectl-client-side-apply", T0);
  const applied = deployment("nginx:1.25");
  applied.spec.replicas = 5;
  const opts = { fieldManager: "kubectl", force: false, nowIso: T1, def: DEPLOYMENT };
  assert.throws(() => serverSideApply(created, applied, opts), (err: unknown) => {
    assert.ok(err instanceof ApiError);
    assert.equal(err.code, 409);
    assert.equal(err.reason, "Conflict");
    assert.equal(
      err.status.message,
      'Apply failed with 1 conflict: conflict with "kubectl-client-side-apply" using apps/v1: .spec.replicas',
    );
    assert.deepEqual(err.status.details?.causes, [{
      reason: "FieldManagerConflict",
      message: 'conflict with "kubectl-client-side-apply" using apps/v1',
      field: ".spec.replicas",
    }]);
    return true;
  });
  // Same values as live: no conflict, shared ownership.
  assert.doesNotThrow(() => serverSideApply(created, deployment("nginx:1.25"), opts));
  const forced = serverSideApply(created, applied, { ...opts, force: true });
  assert.equal(forced.spec.replicas, 5);
  const csa = entries(forced).find((e) => e.manager === "kubectl-client-side-apply")!;
  assert.equal("f:replicas" in (csa.fieldsV1["f:spec"] as Record<string, unknown>), false, "ownership moved");
});

Deno.test("SSA: two conflicts with two appliers list managers sorted, one per block", () => {
  let obj = serverSideApply(undefined, {
    apiVersion: "v1",
    kind: "ConfigMap",
    metadata: { name: "c" },
    data: { a: "1" },
  }, { fieldManager: "helm", force: false, nowIso: T0, def: CONFIGMAP });
  obj = serverSideApply(obj, { apiVersion: "v1", kind: "ConfigMap", metadata: { name: "c" }, data: { b: "1" } }, {
    fieldManager: "argo",
    force: false,
    nowIso: T0,
    def: CONFIGMAP,
  });
  assert.throws(
    () =>
      serverSideApply(obj, { apiVersion: "v1", kind: "ConfigMap", metadata: { name: "c" }, data: { a: "2", b: "2" } }, {
        fieldManager: "me",
        force: false,
        nowIso: T0,
        def: CONFIGMAP,
      }),
    (err: unknown) =>
      err instanceof ApiError &&
      err.status.message ===
        'Apply failed with 2 conflicts: conflicts with "argo":\n- .data.b\nconflicts with "helm":\n- .data.a',
  );
});

Deno.test("SSA: keyed list merge keeps other managers' containers; removing own container deletes it", () => {
  const opts = { fieldManager: "kubectl", force: false, nowIso: T0, def: DEPLOYMENT };
  const withTwo = deployment("nginx");
  withTwo.spec.template.spec.containers.push({ name: "log", image: "busybox" });
  let obj = serverSideApply(undefined, withTwo, opts);
  obj = serverSideApply(obj, {
    apiVersion: "apps/v1",
    kind: "Deployment",
    metadata: { name: "web" },
    spec: { template: { spec: { containers: [{ name: "injected", image: "proxy" }] } } },
  }, { ...opts, fieldManager: "injector" });
  assert.deepEqual(obj.spec.template.spec.containers.map((c: Any) => c.name), ["web", "log", "injected"]);
  obj = serverSideApply(obj, deployment("nginx"), opts);
  assert.deepEqual(obj.spec.template.spec.containers.map((c: Any) => c.name), ["web", "injected"]);
});

Deno.test("SSA: status is not owned through the main resource of a kind with a status subresource", () => {
  const d = deployment("nginx");
  d.status = { replicas: 3 };
  const obj = serverSideApply(undefined, d, { fieldManager: "kubectl", force: false, nowIso: T0, def: DEPLOYMENT });
  assert.equal("f:status" in entries(obj)[0].fieldsV1, false);
});

Deno.test("SSA on a CRD uses x-kubernetes-list-type map keys from the schema", () => {
  const crd = def("example.com", "Farm", {
    custom: true,
    schema: {
      type: "object",
      properties: {
        spec: {
          type: "object",
          properties: {
            fields: {
              type: "array",
              "x-kubernetes-list-type": "map",
              "x-kubernetes-list-map-keys": ["id"],
              items: { type: "object", properties: { id: { type: "string" }, crop: { type: "string" } } },
            },
          },
        },
      },
    },
  });
  const obj = serverSideApply(undefined, {
    apiVersion: "example.com/v1",
    kind: "Farm",
    metadata: { name: "f" },
    spec: { fields: [{ id: "a", crop: "corn" }] },
  }, { fieldManager: "helm", force: false, nowIso: T0, def: crd });
  assert.deepEqual(Object.keys((entries(obj)[0].fieldsV1 as Any)["f:spec"]["f:fields"]), ['k:{"id":"a"}']);
});

Deno.test("recordUpdateManagedFields: updater takes changed fields from others; removed fields are dropped", () => {
  const cm0: KubeObject = { apiVersion: "v1", kind: "ConfigMap", metadata: { name: "c" }, data: { a: "1", b: "1" } };
  const created = recordUpdateManagedFields(undefined, cm0, "kubectl-create", T0);
  assert.deepEqual(entries(created)[0].fieldsV1, { "f:data": { ".": {}, "f:a": {}, "f:b": {} } });
  const edited = structuredClone(created);
  edited.data = { a: "2", c: "3" };
  const after = recordUpdateManagedFields(created, edited, "kubectl-edit", T1);
  // The creator added the data map itself (".") and keeps owning it (structured-merge-diff's compare).
  assert.deepEqual(entries(after).map((e) => [e.manager, e.fieldsV1]), [
    ["kubectl-create", { "f:data": {} }],
    ["kubectl-edit", { "f:data": { "f:a": {}, "f:c": {} } }],
  ]);
});

Deno.test("SSA by kubectl after client-side apply takes over fields still matching last-applied, and syncs it", () => {
  const v1 = deployment("nginx:1.25");
  const lastApplied = JSON.stringify(v1) + "\n";
  const live = structuredClone(v1);
  live.metadata.annotations = { "kubectl.kubernetes.io/last-applied-configuration": lastApplied };
  const created = recordUpdateManagedFields(undefined, live, "kubectl-client-side-apply", T0);
  const v2 = deployment("nginx:1.26");
  v2.spec.replicas = 3;
  const opts = { fieldManager: "kubectl", force: false, nowIso: T1, def: DEPLOYMENT };
  const applied = serverSideApply(created, v2, opts);
  assert.equal(applied.spec.replicas, 3);
  assert.equal(applied.spec.template.spec.containers[0].image, "nginx:1.26");
  const synced = JSON.parse(applied.metadata.annotations!["kubectl.kubernetes.io/last-applied-configuration"]);
  assert.equal(synced.spec.replicas, 3);
  // Another field manager gets the conflict, and so does kubectl once live drifted from last-applied.
  assert.throws(
    () => serverSideApply(created, v2, { ...opts, fieldManager: "helm" }),
    (e: unknown) => e instanceof ApiError && e.code === 409,
  );
  const drifted = recordUpdateManagedFields(
    created,
    { ...structuredClone(created), spec: { ...created.spec, replicas: 7 } },
    "kubectl-scale",
    T0,
  );
  assert.throws(
    () => serverSideApply(drifted, v2, opts),
    (e: unknown) => e instanceof ApiError && /kubectl-scale/.test(e.status.message!),
  );
});
