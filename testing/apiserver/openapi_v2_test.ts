import assert from "node:assert/strict";
import { crdSchemaToV2, schemaToV2 } from "./openapi_v2.ts";
import { encodeOpenApiV2Protobuf, toYaml } from "./openapi_v2_protobuf.ts";

Deno.test("toYaml writes gnostic's Any text as kube-apiserver v1.37.2 does for GVK lists and string lists", () => {
  // Both strings are copied from kube-apiserver v1.37.2's /openapi/v2 protobuf.
  assert.equal(
    toYaml([{ group: "apps", kind: "Deployment", version: "v1" }]),
    "- group: apps\n  kind: Deployment\n  version: v1\n",
  );
  assert.equal(
    toYaml({ group: "", kind: "ComponentStatus", version: "v1" }),
    'group: ""\nkind: ComponentStatus\nversion: v1\n',
  );
  assert.equal(toYaml(["name"]), "- name\n");
  assert.equal(toYaml("map"), "map\n");
  assert.equal(toYaml("true"), '"true"\n');
});

Deno.test("schemaToV2: #/definitions/ references, allOf around one reference flattened, IntOrString as string", () => {
  assert.deepEqual(
    schemaToV2({
      description: "d",
      allOf: [{ $ref: "#/components/schemas/a.B" }],
      default: {},
    }),
    { description: "d", $ref: "#/definitions/a.B" },
  );
  assert.deepEqual(
    schemaToV2({ oneOf: [{ type: "integer" }, { type: "string" }], format: "int-or-string" }),
    { type: "string", format: "int-or-string" },
  );
  assert.deepEqual(schemaToV2({ type: "array", items: { $ref: "#/components/schemas/a.B" } }), {
    type: "array",
    items: { $ref: "#/definitions/a.B" },
  });
});

Deno.test("crdSchemaToV2 follows ToStructuralOpenAPIV2: nullable, preserve-unknown-fields, anyOf", () => {
  assert.deepEqual(
    crdSchemaToV2({
      type: "object",
      required: ["a", "b"],
      properties: {
        a: { type: "string", nullable: true },
        b: { type: "object", "x-kubernetes-preserve-unknown-fields": true, properties: { c: { type: "string" } } },
        d: { type: "integer", anyOf: [{ minimum: 1 }] },
      },
    }),
    {
      type: "object",
      required: ["b"],
      properties: { a: {}, b: { "x-kubernetes-preserve-unknown-fields": true }, d: { type: "integer" } },
    },
  );
});

Deno.test("encodeOpenApiV2Protobuf writes gnostic's field numbers", () => {
  const bytes = encodeOpenApiV2Protobuf({
    swagger: "2.0",
    info: { title: "Kubernetes", version: "1.37" },
    definitions: { "a.B": { type: "object", "x-kubernetes-list-type": "map" } },
  });
  const text = new TextDecoder().decode(bytes);
  // Document.swagger (1), Document.info (2) {title 1, version 2}: the first bytes kube-apiserver v1.37.2 sends.
  assert.deepEqual([...bytes.subarray(0, 7)], [0x0a, 3, 0x32, 0x2e, 0x30, 0x12, 18]);
  assert.ok(text.includes("x-kubernetes-list-type") && text.includes("map\n"));
});
