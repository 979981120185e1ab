import assert from "node:assert/strict";
import { validateCrdSchema } from "./crd_rules.ts";

const at = "s";

Deno.test("validateCrdSchema: undeclared references and undefined fields do not compile", () => {
  const causes = validateCrdSchema({
    type: "object",
    properties: { a: { type: "string" }, m: { type: "object", additionalProperties: { type: "string" } } },
    "x-kubernetes-validations": [
      { rule: "foo == 1" },
      { rule: "self.b == 'x'" },
      { rule: "self.m.anything == 'x' && self.metadata.name != ''" },
    ],
  }, at);
  assert.deepEqual(causes.map((c) => c.field), [
    "s.x-kubernetes-validations[0].rule",
    "s.x-kubernetes-validations[1].rule",
  ]);
  assert.match(
    causes[0].message!,
    /compilation failed: ERROR: <input>:1:1: undeclared reference to 'foo' \(in container ''\)\n \| foo == 1\n \| \^$/,
  );
  assert.match(causes[1].message!, /ERROR: <input>:1:5: undefined field 'b'\n \| self.b == 'x'\n \| \.\.\.\.\^$/);
});

Deno.test("validateCrdSchema: cost — nested loops over unbounded lists refused, bounded ones pass", () => {
  const list = (bound: object) => ({ type: "array", ...bound, items: { type: "string", maxLength: 10 } });
  const rule = [{ rule: "self.xs.all(x, self.xs.all(y, x == y))" }];
  const unbounded = validateCrdSchema({
    type: "object",
    properties: { xs: list({}) },
    "x-kubernetes-validations": rule,
  }, at);
  assert.deepEqual(unbounded.map((c) => c.field), [
    "s.x-kubernetes-validations[0].rule",
    "s.x-kubernetes-validations[0].rule",
    "s",
  ]);
  assert.match(unbounded[0].message!, /exceeds budget by factor of more than 100x/);
  const bounded = validateCrdSchema(
    { type: "object", properties: { xs: list({ maxItems: 10 }) }, "x-kubernetes-validations": rule },
    at,
  );
  assert.deepEqual(bounded, []);
});

Deno.test("validateCrdSchema: oldSelf under a list without keys; reason and fieldPath checked", () => {
  const causes = validateCrdSchema({
    type: "object",
    properties: {
      xs: {
        type: "array",
        maxItems: 4,
        items: { type: "string", maxLength: 4, "x-kubernetes-validations": [{ rule: "self == oldSelf" }] },
      },
      a: { type: "string" },
    },
    "x-kubernetes-validations": [{ rule: "true", reason: "Nope", fieldPath: ".b" }],
  }, at);
  assert.deepEqual(causes.map((c) => c.reason), ["FieldValueInvalid", "FieldValueNotSupported", "FieldValueInvalid"]);
  assert.equal(
    causes[0].message,
    'Invalid value: "self == oldSelf": oldSelf cannot be used on the uncorrelatable portion of the schema within s.properties[xs]',
  );
});

Deno.test("validateCrdSchema: metadata beyond name/generateName and untyped object fields", () => {
  const causes = validateCrdSchema({
    type: "object",
    properties: { metadata: { type: "object", properties: { labels: { type: "object" } } }, spec: { properties: {} } },
  }, at);
  assert.deepEqual(causes.map((c) => c.field), ["s.properties[metadata]", "s.properties[spec].type"]);
});
