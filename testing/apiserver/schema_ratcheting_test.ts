import assert from "node:assert/strict";
import type { StatusCause } from "../../runtime/client/errors.ts";
import { ratchetSchemaCauses } from "./schema_ratcheting.ts";

const schema = {
  type: "object",
  properties: {
    spec: {
      type: "object",
      required: ["a"],
      properties: {
        a: { type: "string", maxLength: 2 },
        b: { type: "integer" },
        ports: {
          type: "array",
          "x-kubernetes-list-type": "map",
          "x-kubernetes-list-map-keys": ["name"],
          items: { type: "object", properties: { name: { type: "string" }, port: { type: "integer", maximum: 10 } } },
        },
        tags: { type: "array", items: { type: "string", maxLength: 2 } },
      },
    },
  },
};

const cause = (field: string, reason = "FieldValueInvalid"): StatusCause => ({ reason, message: "x", field });

Deno.test("ratchetSchemaCauses: unchanged fields ratchet, changed ones do not", () => {
  const old = { spec: { a: "long", b: 1 } };
  assert.deepEqual(ratchetSchemaCauses([cause("spec.a")], { spec: { a: "long", b: 2 } }, old, schema), []);
  assert.deepEqual(ratchetSchemaCauses([cause("spec.a")], { spec: { a: "longer", b: 1 } }, old, schema), [
    cause("spec.a"),
  ]);
  // A field that did not exist before is checked.
  assert.equal(ratchetSchemaCauses([cause("spec.a")], { spec: { a: "new" } }, { spec: { b: 1 } }, schema).length, 1);
});

Deno.test("ratchetSchemaCauses: map-list items correlate by key, other list items do not", () => {
  const old = { spec: { ports: [{ name: "x", port: 99 }], tags: ["long", "ok"] } };
  const next = { spec: { ports: [{ name: "y", port: 1 }, { name: "x", port: 99 }], tags: ["long", "no"] } };
  assert.deepEqual(ratchetSchemaCauses([cause("spec.ports[1].port")], next, old, schema), []);
  assert.deepEqual(ratchetSchemaCauses([cause("spec.tags[0]")], next, old, schema), [cause("spec.tags[0]")]);
  const sameTags = { spec: { ports: next.spec.ports, tags: ["long", "ok"] } };
  assert.deepEqual(ratchetSchemaCauses([cause("spec.tags[0]")], sameTags, old, schema), []);
});

Deno.test("ratchetSchemaCauses: Required is judged at the object that lacks the field", () => {
  const required = cause("spec.a", "FieldValueRequired");
  assert.deepEqual(ratchetSchemaCauses([required], { spec: { b: 1 } }, { spec: { b: 1 } }, schema), []);
  assert.deepEqual(ratchetSchemaCauses([required], { spec: { b: 2 } }, { spec: { b: 1 } }, schema), [required]);
});
