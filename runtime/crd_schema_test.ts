import assert from "node:assert/strict";
import { Type } from "@sinclair/typebox";
import {
  ConditionsSchema,
  ConditionsTypeBoxSchema,
  crdFromSchema,
  crdFromSchemas,
  customResourceType,
  READY_COLUMN,
  type StructuralSchema,
  structuralSchema,
} from "./crd_schema.ts";

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

/** The CRD fields the tests below read (KubeObject leaves them untyped). */
interface CrdShape {
  spec: {
    names: Record<string, unknown>;
    versions: {
      additionalPrinterColumns: { name: string; description?: string }[];
      schema: { openAPIV3Schema: Record<string, unknown> & { properties: Record<string, Record<string, unknown>> } };
    }[];
  };
}

Deno.test("crdFromSchema: root CEL rules, per-field rules, categories before shortNames, a user Ready column", () => {
  const rule = { rule: "has(self.spec.a) || has(self.spec.b)", message: "a or b", fieldPath: ".spec" };
  const crd = crdFromSchema({
    group: "examples.kubeop.dev",
    version: "v1",
    kind: "Pair",
    plural: "pairs",
    shortNames: ["pr"],
    categories: ["kubeop"],
    rules: [rule],
    spec: Type.Object({
      a: Type.Optional(Type.String()),
      b: Type.Optional(Type.Integer({ "x-kubernetes-validations": [{ rule: "self >= 0" }] })),
    }),
    status: Type.Object({}),
    printerColumns: [{ name: "Ready", type: "string", jsonPath: ".status.ready" }],
  }) as unknown as CrdShape;
  assert.deepEqual(Object.keys(crd.spec.names), ["kind", "listKind", "plural", "singular", "categories", "shortNames"]);
  assert.deepEqual(crd.spec.names.categories, ["kubeop"]);
  const [version] = crd.spec.versions;
  const root = version.schema.openAPIV3Schema;
  assert.deepEqual(root["x-kubernetes-validations"], [rule]);
  const spec = root.properties.spec as { properties: Record<string, Record<string, unknown>> };
  assert.deepEqual(spec.properties.b, { type: "integer", "x-kubernetes-validations": [{ rule: "self >= 0" }] });
  assert.deepEqual(version.additionalPrinterColumns.map((c) => c.name), ["Ready", "Age"]);
  assert.equal(version.additionalPrinterColumns[0].description, undefined);
});

Deno.test("crdFromSchema without rules or categories leaves them out; the Ready column is READY_COLUMN", () => {
  const crd = crdFromSchema({
    group: "examples.kubeop.dev",
    version: "v1",
    kind: "Plain",
    plural: "plains",
    spec: Type.Object({}),
    status: Type.Object({}),
  }) as unknown as CrdShape;
  assert.equal("categories" in crd.spec.names, false);
  assert.equal("shortNames" in crd.spec.names, false);
  const [version] = crd.spec.versions;
  assert.equal("x-kubernetes-validations" in version.schema.openAPIV3Schema, false);
  assert.deepEqual(version.additionalPrinterColumns[0], READY_COLUMN);
});

Deno.test("a union of string literals becomes an enum; type comes first in every node", () => {
  const out = structuralSchema(Type.Object({
    position: Type.Union([Type.Literal("up"), Type.Literal("down")], { description: "where", default: "down" }),
    n: Type.Integer({ minimum: 0, description: "count" }),
  }));
  assert.deepEqual(out.properties, {
    position: { type: "string", enum: ["up", "down"], description: "where", default: "down" },
    n: { type: "integer", minimum: 0, description: "count" },
  });
  const props = out.properties as Record<string, object>;
  assert.deepEqual(Object.keys(props.n), ["type", "minimum", "description"]);
});

Deno.test("ConditionsSchema is the structural form of ConditionsTypeBoxSchema, with metav1.Condition's validations", () => {
  assert.deepEqual(ConditionsSchema, structuralSchema(ConditionsTypeBoxSchema));
  const item = ConditionsSchema.items as { required: string[]; properties: Record<string, Record<string, unknown>> };
  assert.deepEqual(item.required, ["type", "status", "reason", "message", "lastTransitionTime"]);
  assert.deepEqual(item.properties.status.enum, ["True", "False", "Unknown"]);
  assert.equal(item.properties.type.maxLength, 316);
  assert.equal(item.properties.reason.minLength, 1);
  assert.equal(item.properties.message.maxLength, 32768);
  assert.equal(item.properties.lastTransitionTime.format, "date-time");
  assert.equal(ConditionsSchema["x-kubernetes-list-type"], "map");
  assert.deepEqual(ConditionsSchema["x-kubernetes-list-map-keys"], ["type"]);
});

Deno.test("crdFromSchemas: one CRD, the first version stores, each keeps its schema; a mismatch is refused", () => {
  const v1 = {
    group: "example.com",
    version: "v1",
    kind: "Widget",
    plural: "widgets",
    spec: Type.Object({ message: Type.String() }),
    status: Type.Object({}),
  };
  const v2 = { ...v1, version: "v2", spec: Type.Object({ text: Type.String() }) };
  const crd = crdFromSchemas([v1, v2]);
  const versions = (crd.spec as {
    versions: { name: string; served: boolean; storage: boolean; schema: { openAPIV3Schema: StructuralSchema } }[];
  }).versions;
  assert.deepEqual(versions.map((v) => [v.name, v.served, v.storage]), [["v1", true, true], ["v2", true, false]]);
  const specOf = (i: number) =>
    (versions[i].schema.openAPIV3Schema.properties as Record<string, StructuralSchema>).spec;
  assert.deepEqual(Object.keys(specOf(0).properties as object), ["message"]);
  assert.deepEqual(Object.keys(specOf(1).properties as object), ["text"]);
  assert.throws(
    () => crdFromSchemas([v1, { ...v2, group: "other.com" }]),
    /v2 has group other\.com, v1 has example\.com/,
  );
  assert.throws(() => crdFromSchemas([v1, { ...v2, scope: "Cluster" }]), /has scope Cluster/);
  assert.throws(() => crdFromSchemas([v1, { ...v1 }]), /version v1 is given twice/);
  assert.throws(() => crdFromSchemas([]), /no version/);
});
