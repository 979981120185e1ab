import assert from "node:assert/strict";
import { ApiError } from "../runtime/client/errors.ts";
import { parseFieldSelector, parseLabelSelector } from "./selectors.ts";

const obj = (labels: Record<string, string>, name = "n", namespace = "ns") => ({
  metadata: { name, namespace, labels },
});

Deno.test("label selectors: equality, inequality, set and existence terms", () => {
  const cases: Array<[string, Record<string, string>, boolean]> = [
    ["a=b", { a: "b" }, true],
    ["a==b", { a: "c" }, false],
    ["a!=b", {}, true],
    ["a in (b, c)", { a: "c" }, true],
    ["a notin (b)", { a: "b" }, false],
    ["a notin (b)", {}, true],
    ["a", { a: "" }, true],
    ["!a", { a: "x" }, false],
    ["a=b,c in (d),!e", { a: "b", c: "d" }, true],
    ["app.kubernetes.io/name=x", { "app.kubernetes.io/name": "x" }, true],
  ];
  for (const [sel, labels, want] of cases) assert.equal(parseLabelSelector(sel)(obj(labels)), want, sel);
});

Deno.test("malformed selectors are 400 BadRequest", () => {
  for (const bad of ["a in (b", "=x", "a b"]) {
    assert.throws(() => parseLabelSelector(bad), (e) => e instanceof ApiError && e.code === 400, bad);
  }
  assert.throws(() => parseFieldSelector("spec.weight=1"), (e) => e instanceof ApiError && e.code === 400);
});

Deno.test("field selectors on metadata.name and metadata.namespace", () => {
  assert.equal(parseFieldSelector("metadata.name=n,metadata.namespace!=other")(obj({})), true);
  assert.equal(parseFieldSelector("metadata.name==m")(obj({})), false);
});
