import assert from "node:assert/strict";
import { parseFieldSelector, parseLabelSelector, SelectorError } from "./selectors.ts";

const obj = (labels: Record<string, string>) => ({ metadata: { name: "a", namespace: "ns", labels } });

Deno.test("label selectors: equality, inequality, set membership and existence", () => {
  const cases: Array<[string, Record<string, string>, boolean]> = [
    ["app=web", { app: "web" }, true],
    ["app==web", { app: "db" }, false],
    ["app!=web", {}, true],
    ["app!=web", { app: "web" }, false],
    ["tier in (a, b)", { tier: "b" }, true],
    ["tier in (a,b)", {}, false],
    ["tier notin (a,b)", {}, true],
    ["tier notin (a,b)", { tier: "a" }, false],
    ["legacy", { legacy: "" }, true],
    ["!legacy", { legacy: "x" }, false],
    ["app=web,!legacy,tier in (x)", { app: "web", tier: "x" }, true],
    ["example.com/role=x", { "example.com/role": "x" }, true],
  ];
  for (const [sel, labels, want] of cases) assert.equal(parseLabelSelector(sel)(obj(labels)), want, sel);
});

Deno.test("label selector syntax errors are SelectorErrors", () => {
  for (const bad of ["a=b=c", "in (x)", "a in x", "-bad=x"]) {
    assert.throws(() => parseLabelSelector(bad), SelectorError, bad);
  }
});

Deno.test("field selectors: metadata fields, per-kind fields, escapes, unknown fields rejected", () => {
  const pod = { metadata: { name: "p", namespace: "ns" }, spec: { nodeName: "n1" }, status: { phase: "Running" } };
  assert.equal(parseFieldSelector("metadata.name=p,spec.nodeName=n1", "/pods")(pod), true);
  assert.equal(parseFieldSelector("status.phase!=Running", "/pods")(pod), false);
  assert.equal(parseFieldSelector("spec.nodeName=", "/pods")({ metadata: {}, spec: {} }), true);
  const ev = { metadata: { name: "e" }, involvedObject: { name: "a,b", kind: "Pod" } };
  assert.equal(parseFieldSelector("involvedObject.name=a\\,b,involvedObject.kind=Pod", "/events")(ev), true);
  assert.throws(
    () => parseFieldSelector("spec.nodeName=n1", "/configmaps"),
    /field label not supported: spec.nodeName/,
  );
});
