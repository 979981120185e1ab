import assert from "node:assert/strict";
import { invalidStatus, validateAndDefault } from "./schema.ts";

// A CRD schema in the shape kubebuilder generates (cf. the Kubernetes "CronTab"/"Farm" examples).
const SCHEMA = {
  type: "object",
  properties: {
    apiVersion: { type: "string" },
    kind: { type: "string" },
    metadata: { type: "object" },
    spec: {
      type: "object",
      required: ["size"],
      properties: {
        size: { type: "integer", minimum: 1 },
        switches: { type: "integer", maximum: 100, default: 5 },
        direction: { type: "string", enum: ["up", "down"] },
        name: { type: "string", minLength: 1, maxLength: 5, pattern: "^[a-z]+$" },
        ratio: { type: "number", exclusiveMaximum: true, maximum: 1 },
        when: { type: "string", format: "date-time" },
        port: { "x-kubernetes-int-or-string": true },
        tags: { type: "array", items: { type: "string" }, maxItems: 2, minItems: 1 },
        labels: { type: "object", additionalProperties: { type: "string" } },
        extra: { type: "object", "x-kubernetes-preserve-unknown-fields": true },
        nested: { type: "object", default: {}, properties: { mode: { type: "string", default: "auto" } } },
        note: { type: "string", nullable: true },
        servers: {
          type: "array",
          items: {
            type: "object",
            required: ["host"],
            properties: { host: { type: "string" }, tls: { type: "boolean", default: false } },
          },
        },
      },
    },
    status: { type: "object", properties: { ready: { type: "boolean" } } },
  },
};

const obj = (spec: Record<string, unknown>) => ({
  apiVersion: "example.com/v1",
  kind: "Foo",
  metadata: { name: "x", labels: { a: "b" } },
  spec,
});

Deno.test("schema: a valid object is defaulted (nested defaults, array items) and unknown fields are pruned", () => {
  const r = validateAndDefault(
    obj({
      size: 2,
      bogus: 1,
      servers: [{ host: "h", junk: true }],
      extra: { anything: { goes: 1 } },
      labels: { k: "v" },
    }),
    SCHEMA,
  );
  assert.deepEqual(r.causes, []);
  assert.deepEqual(r.pruned, ["spec.bogus", "spec.servers[0].junk"]);
  const spec = (r.object as { spec: Record<string, unknown> }).spec;
  assert.equal(spec.switches, 5);
  assert.deepEqual(spec.nested, { mode: "auto" });
  assert.deepEqual(spec.servers, [{ host: "h", tls: false }]);
  assert.deepEqual(spec.extra, { anything: { goes: 1 } });
  assert.deepEqual(
    (r.object as { metadata: unknown }).metadata,
    { name: "x", labels: { a: "b" } },
    "metadata untouched",
  );
});

Deno.test("schema: kube-apiserver wording for each failure kind", () => {
  const r = validateAndDefault(
    obj({
      size: 0,
      switches: 1000,
      direction: "left",
      name: "ABCDEFG",
      ratio: 1,
      when: "yesterday",
      port: true,
      tags: ["a", "b", "c"],
      servers: [{ tls: true }],
    }),
    SCHEMA,
  );
  const byField = Object.fromEntries(r.causes.map((c) => [c.field, `${c.reason}|${c.message}`]));
  assert.equal(
    byField["spec.size"],
    "FieldValueInvalid|Invalid value: 0: spec.size in body should be greater than or equal to 1",
  );
  assert.equal(
    byField["spec.switches"],
    "FieldValueInvalid|Invalid value: 1000: spec.switches in body should be less than or equal to 100",
  );
  assert.equal(
    byField["spec.direction"],
    'FieldValueNotSupported|Unsupported value: "left": supported values: "up", "down"',
  );
  assert.equal(byField["spec.ratio"], "FieldValueInvalid|Invalid value: 1: spec.ratio in body should be less than 1");
  assert.equal(
    byField["spec.when"],
    'FieldValueTypeInvalid|Invalid value: "yesterday": spec.when in body must be of type date-time: "yesterday"',
  );
  assert.equal(
    byField["spec.port"],
    'FieldValueTypeInvalid|Invalid value: "boolean": spec.port in body must be of type integer,string: "boolean"',
  );
  assert.equal(byField["spec.tags"], "FieldValueTooMany|Too many: 3: must have at most 2 items");
  assert.equal(byField["spec.servers[0].host"], "FieldValueRequired|Required value");
  // Like kube-openapi, the string checks stop at the first failure (maxLength before pattern).
  const nameCauses = r.causes.filter((c) => c.field === "spec.name").map((c) => c.message);
  assert.deepEqual(nameCauses, ["Too long: may not be more than 5 bytes"]);
  const pattern = validateAndDefault(obj({ size: 1, name: "AB" }), SCHEMA).causes;
  assert.deepEqual(pattern.map((c) => c.message), [`Invalid value: "AB": spec.name in body should match '^[a-z]+$'`]);
});

Deno.test("schema: required, wrong types, null handling", () => {
  const missing = validateAndDefault(obj({}), SCHEMA);
  assert.deepEqual(missing.causes, [{ reason: "FieldValueRequired", message: "Required value", field: "spec.size" }]);
  const typed = validateAndDefault(obj({ size: "three", note: null, tags: [] }), SCHEMA);
  assert.deepEqual(typed.causes.map((c) => c.message), [
    'Invalid value: "string": spec.size in body must be of type integer: "string"',
    "Invalid value: 0: spec.tags in body should have at least 1 items",
  ]);
  const nulled = validateAndDefault(obj({ size: 1, switches: null, direction: null }), SCHEMA);
  assert.equal((nulled.object as { spec: { switches: number } }).spec.switches, 5, "null replaced by default");
  // kube drops nulls of non-nullable fields without a default too (PruneNonNullableNullsWithoutDefaults).
  assert.deepEqual(nulled.causes, []);
  assert.ok(!("direction" in (nulled.object as { spec: object }).spec), "null dropped");
  assert.equal(validateAndDefault(obj({ size: 1.5 }), SCHEMA).causes[0].reason, "FieldValueTypeInvalid");
  assert.deepEqual(validateAndDefault(obj({ size: 1, port: "http" }), SCHEMA).causes, []);
  assert.deepEqual(validateAndDefault(obj({ size: 1, port: 8080 }), SCHEMA).causes, []);
});

Deno.test("invalidStatus: one cause without brackets, several with; details carry kind and causes", () => {
  const one = invalidStatus("Foo", "x", "example.com", [{
    reason: "FieldValueRequired",
    field: "spec.size",
    message: "Required value",
  }]);
  assert.equal(one.code, 422);
  assert.equal(one.reason, "Invalid");
  assert.equal(one.message, 'Foo.example.com "x" is invalid: spec.size: Required value');
  assert.deepEqual(one.details, { name: "x", group: "example.com", kind: "Foo", causes: one.details!.causes });
  const two = invalidStatus("ConfigMap", "c", "", [{ field: "a", message: "m1" }, { field: "b", message: "m2" }]);
  assert.equal(two.message, 'ConfigMap "c" is invalid: [a: m1, b: m2]');
});

Deno.test("a pattern that does not compile is a cause, not a crash (found by fuzzing)", () => {
  const schema = { type: "object", properties: { name: { type: "string", pattern: "(" } } };
  const { causes } = validateAndDefault({ name: "x" }, schema);
  assert.equal(causes.length, 1);
  assert.equal(causes[0].field, "name");
  assert.match(causes[0].message!, /pattern '\(' does not compile/);
});
