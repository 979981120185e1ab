import assert from "node:assert/strict";
import { Type } from "@sinclair/typebox";
import { crdFromSchema, customResourceType, structuralSchema } from "./crd_schema.ts";

Deno.test("structuralSchema keeps validations and x-kubernetes extensions and drops TypeBox's bookkeeping", () => {
  const out = structuralSchema(Type.Object({
    ports: Type.Array(Type.Integer({ minimum: 1, maximum: 65535 }), { "x-kubernetes-list-type": "set", maxItems: 4 }),
    note: Type.Optional(Type.String({ $id: "Note", default: "" })),
  }, { additionalProperties: false }));
  assert.deepEqual(out, {
    type: "object",
    required: ["ports"],
    properties: {
      ports: {
        type: "array",
        maxItems: 4,
        "x-kubernetes-list-type": "set",
        items: { type: "integer", minimum: 1, maximum: 65535 },
      },
      note: { type: "string", default: "" },
    },
  });
});

Deno.test("an object with only optional fields has no required list (kube refuses an empty one)", () => {
  assert.equal(structuralSchema(Type.Object({ a: Type.Optional(Type.String()) })).required, undefined);
});

Deno.test("crdFromSchema: cluster scope, default singular, user columns before Ready and Age, spec required", () => {
  const cr = {
    group: "examples.kubeop.dev",
    version: "v1",
    kind: "Tenant",
    plural: "tenants",
    scope: "Cluster" as const,
    spec: Type.Object({ owner: Type.String() }),
    status: Type.Object({}),
    printerColumns: [{ name: "Owner", type: "string" as const, jsonPath: ".spec.owner" }],
  };
  const crd = crdFromSchema(cr) as unknown as {
    spec: {
      scope: string;
      names: Record<string, string>;
      versions: {
        additionalPrinterColumns: { name: string }[];
        schema: { openAPIV3Schema: { required: string[]; properties: { spec: { required: string[] } } } };
      }[];
    };
  };
  assert.equal(crd.spec.scope, "Cluster");
  assert.equal(crd.spec.names.singular, "tenant");
  assert.equal(crd.spec.names.listKind, "TenantList");
  const version = crd.spec.versions[0];
  assert.deepEqual(version.additionalPrinterColumns.map((c) => c.name), ["Owner", "Ready", "Age"]);
  assert.deepEqual(version.schema.openAPIV3Schema.required, ["spec"]);
  assert.deepEqual(version.schema.openAPIV3Schema.properties.spec.required, ["owner"]);
  assert.deepEqual(customResourceType(cr), {
    group: "examples.kubeop.dev",
    version: "v1",
    plural: "tenants",
    kind: "Tenant",
    namespaced: false,
  });
});
