import assert from "node:assert/strict";
import { dropUnknownGoFields, strictFieldPath } from "./go_json_unknown.ts";

const paths = (group: string, version: string, kind: string, obj: unknown, sorted = false) =>
  dropUnknownGoFields(group, version, kind, obj, { sorted }).map(strictFieldPath);

Deno.test("dropUnknownGoFields: lists and maps of structs are walked; map[string]string values and raw JSON are not", () => {
  const crd = {
    spec: {
      versions: [{
        name: "v1",
        subresources: { status: { zz: 1 } },
        schema: { openAPIV3Schema: { properties: { foo: { type: "string", bogus: 1 } }, default: { any: 1 } } },
      }],
    },
    metadata: { labels: { "free-key": "v" }, managedFields: [{ fieldsV1: { "f:data": {} }, q: 1 }] },
  };
  assert.deepEqual(paths("apiextensions.k8s.io", "v1", "CustomResourceDefinition", crd), [
    "spec.versions[0].subresources.status.zz",
    "spec.versions[0].schema.openAPIV3Schema.properties.foo.bogus",
    "metadata.managedFields[0].q",
  ]);
  assert.deepEqual(crd.spec.versions[0].subresources.status, {});
  assert.deepEqual(crd.metadata.managedFields[0], { fieldsV1: { "f:data": {} } });
  const revision = { data: { anything: { goes: 1 } }, revision: 1 };
  assert.deepEqual(paths("apps", "v1", "ControllerRevision", revision), []);
});

Deno.test("dropUnknownGoFields: names are case-sensitive; values of the wrong JSON type are left to the type check", () => {
  assert.deepEqual(paths("", "v1", "ConfigMap", { Data: {}, data: "x", metadata: [{ a: 1 }] }), ["Data"]);
});

Deno.test("dropUnknownGoFields: sorted visits keys in order at every level; keep leaves the object whole", () => {
  const obj = { zz: 1, metadata: { b: 1, a: 1 }, aa: 1 };
  const found = dropUnknownGoFields("", "v1", "ConfigMap", obj, { sorted: true, keep: true });
  assert.deepEqual(found.map(strictFieldPath), ["aa", "metadata.a", "metadata.b", "zz"]);
  assert.deepEqual(obj, { zz: 1, metadata: { b: 1, a: 1 }, aa: 1 });
});

Deno.test("dropUnknownGoFields: a kind without a recorded Go type (a custom resource) keeps everything", () => {
  const widget = { spec: { anything: 1 } };
  assert.deepEqual(paths("example.com", "v1", "Widget", widget), []);
  assert.deepEqual(widget, { spec: { anything: 1 } });
});
