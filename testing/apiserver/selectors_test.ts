import assert from "node:assert/strict";
import { parseFieldSelector, parseLabelSelector, SelectorError } from "./selectors.ts";

const obj = (labels: Record<string, string>) => ({ metadata: { name: "a", namespace: "ns", labels } });

// The label selector language is tested beside runtime/apimachinery/label_selector.ts; here only the adapter.
Deno.test("label selectors match an object's metadata.labels; syntax errors are SelectorErrors", () => {
  const m = parseLabelSelector("app=web,!legacy");
  assert.equal(m(obj({ app: "web" })), true);
  assert.equal(m(obj({ app: "web", legacy: "" })), false);
  assert.equal(m({ metadata: {} }), false);
  assert.equal(parseLabelSelector("!legacy")({ metadata: {} }), true);
  assert.throws(() => parseLabelSelector("a=b=c"), SelectorError);
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
    /"spec.nodeName" is not a known field selector: only "metadata.name", "metadata.namespace"/,
  );
  assert.throws(() => parseFieldSelector("spec.x=1", "/pods"), /field label not supported: spec.x/);
  assert.throws(() => parseFieldSelector("spec.x=1", "g/widgets", [], true), /field label not supported: spec.x/);
});
