import assert from "node:assert/strict";
import type { OpenApiSchema, ResourceDef } from "./resource_def.ts";
import { openApiV3Document, openApiV3Index } from "./openapi.ts";

// deno-lint-ignore no-explicit-any
type Any = any;

function def(over: Partial<ResourceDef>): ResourceDef {
  return {
    group: "",
    version: "v1",
    plural: "x",
    singular: "x",
    kind: "X",
    listKind: "XList",
    namespaced: true,
    verbs: ["get", "list", "create", "update", "patch", "delete"],
    subresources: [],
    tracksGeneration: false,
    custom: false,
    ...over,
  };
}

const FOO_SCHEMA: OpenApiSchema = {
  type: "object",
  description: "Foo is a test resource.",
  properties: {
    spec: {
      type: "object",
      description: "FooSpec defines the desired state.",
      required: ["replicas"],
      properties: { replicas: { type: "integer", description: "How many copies to run." } },
    },
  },
};
const FOO = def({
  group: "example.com",
  plural: "foos",
  kind: "Foo",
  listKind: "FooList",
  custom: true,
  schema: FOO_SCHEMA,
  subresources: ["status"],
});
const NAMESPACE = def({ plural: "namespaces", kind: "Namespace", listKind: "NamespaceList", namespaced: false });
const CONFIGMAP = def({ plural: "configmaps", kind: "ConfigMap", listKind: "ConfigMapList" });
const DEPLOYMENT = def({ group: "apps", plural: "deployments", kind: "Deployment", listKind: "DeploymentList" });

/** What kubectl's fieldValidation probe (query_param_verifier_v3.go) concludes for a GVK. */
function supportsFieldValidation(doc: Any, gvk: { group: string; version: string; kind: string }): boolean | "error" {
  for (const item of Object.values(doc.paths) as Any[]) {
    const patch = item.patch;
    const g = patch?.["x-kubernetes-group-version-kind"];
    if (!g || g.group !== gvk.group || g.version !== gvk.version || g.kind !== gvk.kind) continue;
    return (patch.parameters ?? []).some((p: Any) => p.name === "fieldValidation" && p.in === "query");
  }
  return "error";
}

/** kubectl explain's lookup (pkg/explain/v2): GVK on an operation, the schema carrying it, then the field path. */
function explain(doc: Any, prefix: string, plural: string, fieldPath: string[]): Any {
  const candidates = [
    `${prefix}/${plural}`,
    `${prefix}/${plural}/{name}`,
    `${prefix}/namespaces/{namespace}/${plural}`,
    `${prefix}/namespaces/{namespace}/${plural}/{name}`,
  ];
  let gvk: Any;
  for (const path of candidates) {
    for (const verb of ["get", "post", "put", "patch", "delete"]) {
      gvk ??= doc.paths[path]?.[verb]?.["x-kubernetes-group-version-kind"];
    }
  }
  assert.ok(gvk, "GVR not found in OpenAPI schema");
  const match = Object.values(doc.components.schemas).find((s: Any) =>
    (s["x-kubernetes-group-version-kind"] ?? []).some((g: Any) => JSON.stringify(g) === JSON.stringify(gvk))
  );
  assert.ok(match, "GVK not found in OpenAPI schema");
  const resolve = (s: Any): Any => {
    if (s.allOf?.length) return resolve({ ...s.allOf[0], description: s.description ?? s.allOf[0].description });
    if (s.$ref) {
      return { ...doc.components.schemas[s.$ref.replace("#/components/schemas/", "")], description: s.description };
    }
    return s;
  };
  let node: Any = match;
  for (const f of fieldPath) {
    node = resolve(node);
    node = node.properties?.[f];
    assert.ok(node, `field ${f} does not exist`);
  }
  return resolve(node);
}

Deno.test("openapi index: one entry per group-version; the hash changes only when that group-version changes", () => {
  const before = openApiV3Index([NAMESPACE, CONFIGMAP, DEPLOYMENT, FOO]) as Any;
  assert.deepEqual(Object.keys(before.paths), ["api/v1", "apis/apps/v1", "apis/example.com/v1"]);
  assert.match(
    before.paths["apis/example.com/v1"].serverRelativeURL,
    /^\/openapi\/v3\/apis\/example\.com\/v1\?hash=[0-9A-F]{128}$/,
  );
  const changed = { ...FOO, schema: { ...FOO_SCHEMA, description: "changed" } };
  const after = openApiV3Index([NAMESPACE, CONFIGMAP, DEPLOYMENT, changed]) as Any;
  assert.notEqual(
    after.paths["apis/example.com/v1"].serverRelativeURL,
    before.paths["apis/example.com/v1"].serverRelativeURL,
  );
  assert.equal(after.paths["api/v1"].serverRelativeURL, before.paths["api/v1"].serverRelativeURL);
  assert.equal(openApiV3Document("nope", "v1", [FOO]), undefined);
});

Deno.test("openapi document: PATCH operations satisfy kubectl's fieldValidation probe (CRD, core Namespace, apps)", () => {
  const crdDoc = openApiV3Document("example.com", "v1", [FOO]) as Any;
  assert.equal(supportsFieldValidation(crdDoc, { group: "example.com", version: "v1", kind: "Foo" }), true);
  const core = openApiV3Document("", "v1", [NAMESPACE, CONFIGMAP]) as Any;
  assert.equal(supportsFieldValidation(core, { group: "", version: "v1", kind: "Namespace" }), true);
  assert.equal(supportsFieldValidation(core, { group: "", version: "v1", kind: "ConfigMap" }), true);
  assert.equal(supportsFieldValidation(core, { group: "", version: "v1", kind: "Secret" }), "error");
  const patch = crdDoc.paths["/apis/example.com/v1/namespaces/{namespace}/foos/{name}"].patch;
  assert.deepEqual(patch.parameters.map((p: Any) => p.name), ["dryRun", "fieldManager", "fieldValidation", "force"]);
  assert.deepEqual(Object.keys(patch.requestBody.content).sort(), [
    "application/apply-patch+yaml",
    "application/json-patch+json",
    "application/merge-patch+json",
  ]);
  assert.ok(crdDoc.paths["/apis/example.com/v1/namespaces/{namespace}/foos/{name}/status"].patch);
  assert.ok(crdDoc.paths["/apis/example.com/v1/foos"].get, "all-namespaces list");
  assert.ok(core.paths["/api/v1/namespaces/{name}"].get, "cluster-scoped item path");
});

Deno.test("openapi document: kubectl explain finds a CRD field with its description and type", () => {
  const doc = openApiV3Document("example.com", "v1", [FOO]) as Any;
  assert.ok(doc.components.schemas["com.example.v1.Foo"]);
  const replicas = explain(doc, "/apis/example.com/v1", "foos", ["spec", "replicas"]);
  assert.equal(replicas.type, "integer");
  assert.equal(replicas.description, "How many copies to run.");
  const spec = explain(doc, "/apis/example.com/v1", "foos", ["spec"]);
  assert.deepEqual(spec.required, ["replicas"]);
  const labels = explain(doc, "/apis/example.com/v1", "foos", ["metadata", "labels"]);
  assert.equal(labels.type, "object");
  const top = explain(doc, "/apis/example.com/v1", "foos", []);
  assert.equal(top.description, "Foo is a test resource.");
  assert.ok(top.properties.apiVersion && top.properties.kind && top.properties.metadata);
});

Deno.test("openapi document: built-in schemas use real names and preserve unknown fields", () => {
  const doc = openApiV3Document("apps", "v1", [DEPLOYMENT]) as Any;
  const schema = doc.components.schemas["io.k8s.api.apps.v1.Deployment"];
  assert.equal(schema["x-kubernetes-preserve-unknown-fields"], true);
  assert.deepEqual(schema["x-kubernetes-group-version-kind"], [{ group: "apps", version: "v1", kind: "Deployment" }]);
  assert.ok(doc.components.schemas["io.k8s.api.apps.v1.DeploymentList"]);
  assert.equal(explain(doc, "/apis/apps/v1", "deployments", ["spec"]).type, "object");
});
