import assert from "node:assert/strict";
import { validateCel } from "./validate.ts";

const schema = {
  type: "object",
  properties: {
    spec: {
      type: "object",
      "x-kubernetes-validations": [
        { rule: "self.min <= self.max", message: "min > max" },
        { rule: "self.mode != 'off'", fieldPath: ".mode", reason: "FieldValueForbidden", message: "no off" },
      ],
      properties: {
        min: { type: "integer" },
        max: { type: "integer" },
        mode: { type: "string" },
        ratio: { type: "number", "x-kubernetes-validations": [{ rule: "self < 1.0" }] },
        name: {
          type: "string",
          "x-kubernetes-validations": [
            { rule: "self == oldSelf", message: "immutable" },
            { rule: "self.matches('^[a-z]+$')", messageExpression: "'bad name ' + self" },
          ],
        },
        items: {
          type: "array",
          "x-kubernetes-list-type": "map",
          "x-kubernetes-list-map-keys": ["k"],
          items: {
            type: "object",
            "x-kubernetes-validations": [{ rule: "self.v == oldSelf.v", message: "v fixed" }],
            properties: { k: { type: "string" }, v: { type: "integer" } },
          },
        },
        labels: {
          type: "object",
          additionalProperties: { type: "string" },
          "x-kubernetes-validations": [{ rule: "self.team != ''" }],
        },
      },
    },
  },
};

const spec = (s: Record<string, unknown>) => ({ spec: { min: 1, max: 2, mode: "on", ...s } });

Deno.test("validateCel: message, reason and fieldPath, messageExpression", () => {
  const { causes } = validateCel(spec({ min: 3, mode: "off", name: "X1" }), undefined, schema);
  assert.deepEqual(causes, [
    { reason: "FieldValueInvalid", message: "Invalid value: min > max", field: "spec" },
    { reason: "FieldValueForbidden", message: "Forbidden: no off", field: "spec.mode" },
    { reason: "FieldValueInvalid", message: 'Invalid value: "X1": bad name X1', field: "spec.name" },
  ]);
});

Deno.test("validateCel: numbers are doubles, integers ints; failed rule without a message", () => {
  assert.deepEqual(validateCel(spec({ ratio: 0.5 }), undefined, schema).causes, []);
  assert.deepEqual(validateCel(spec({ ratio: 2 }), undefined, schema).causes, [
    { reason: "FieldValueInvalid", message: "Invalid value: 2: failed rule: self < 1.0", field: "spec.ratio" },
  ]);
});

Deno.test("validateCel: transition rules only on updates; map-list items correlate by key", () => {
  assert.deepEqual(validateCel(spec({ name: "a" }), undefined, schema).causes, []);
  const changed = validateCel(spec({ name: "b" }), spec({ name: "a" }), schema);
  assert.deepEqual(changed.causes.map((c) => c.message), ['Invalid value: "b": immutable']);
  const old = spec({ items: [{ k: "x", v: 1 }, { k: "y", v: 2 }] });
  const next = spec({ items: [{ k: "y", v: 3 }, { k: "z", v: 9 }] });
  assert.deepEqual(validateCel(next, old, schema).causes, [
    { reason: "FieldValueInvalid", message: "Invalid value: v fixed", field: "spec.items[0]" },
  ]);
});

Deno.test("validateCel: ratcheting turns errors on unchanged values into warnings", () => {
  const old = spec({ min: 5 });
  const ratcheted = validateCel({ ...old, status: {} }, old, schema);
  assert.deepEqual(ratcheted.causes, []);
  assert.deepEqual(ratcheted.warnings, ["spec: Invalid value: min > max"]);
  const worse = validateCel(spec({ min: 6 }), old, schema);
  assert.equal(worse.causes.length, 1);
});

Deno.test("validateCel: a missing map key is a runtime error naming the rule", () => {
  const { causes } = validateCel(spec({ labels: { other: "x" } }), undefined, schema);
  assert.deepEqual(causes, [{
    reason: "FieldValueInvalid",
    message: "Invalid value: \"object\": no such key: team evaluating rule: self.team != ''",
    field: "spec.labels",
  }]);
});

Deno.test("validateCel: a dyn value without an overload answers kube's 'no such overload' text", () => {
  const dynSchema = {
    type: "object",
    properties: {
      v: { "x-kubernetes-int-or-string": true, "x-kubernetes-validations": [{ rule: "self + 'x' == 'y'" }] },
    },
  };
  assert.deepEqual(validateCel({ v: 1 }, undefined, dynSchema).causes, [{
    reason: "FieldValueInvalid",
    message:
      `Invalid value: "": 'no such overload': call arguments did not match a supported operator, function or macro signature for rule: self + 'x' == 'y'`,
    field: "v",
  }]);
});
