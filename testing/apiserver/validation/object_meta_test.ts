import assert from "node:assert/strict";
import { validateLabelName } from "../object_rules.ts";
import { validateGenerateName, validateObjectMeta } from "./object_meta.ts";

Deno.test("ObjectMeta: labels, annotation size, owners and finalizers in kube's order", () => {
  const causes = validateObjectMeta({
    labels: { ok: "fine", "x/y/z": "v" },
    annotations: { big: "a".repeat(256 * 1024) },
    ownerReferences: [{ apiVersion: "v1", kind: "Pod", name: "p", uid: "" }],
    finalizers: ["example.com/ok", "plain"],
  }, { builtin: true });
  assert.deepEqual(causes.map((c) => `${c.field} ${c.reason}`), [
    "metadata.labels FieldValueInvalid",
    "metadata.annotations FieldValueTooLong",
    "metadata.ownerReferences[0].uid FieldValueRequired",
    "metadata.finalizers[1] FieldValueInvalid",
  ]);
});

Deno.test("ObjectMeta: standard finalizers pass; custom resources accept unqualified ones", () => {
  assert.deepEqual(
    validateObjectMeta({ finalizers: ["kubernetes", "orphan", "foregroundDeletion"] }, { builtin: true }),
    [],
  );
  assert.deepEqual(validateObjectMeta({ finalizers: ["plain"] }, { builtin: false }), []);
});

Deno.test("generateName is checked as a prefix: a trailing dash is allowed, the message quotes the prefix", () => {
  assert.deepEqual(validateGenerateName("web-", validateLabelName), []);
  const [cause] = validateGenerateName("Web-", validateLabelName);
  assert.equal(cause.field, "metadata.generateName");
  assert.match(cause.message!, /^Invalid value: "Web-": a lowercase RFC 1123 label/);
});
