import assert from "node:assert/strict";
import { applyMergePatch } from "./merge_patch.ts";

Deno.test("merge patch: kubectl label adds and removes labels, keeps other fields", () => {
  const cm = {
    apiVersion: "v1",
    kind: "ConfigMap",
    metadata: { name: "x", labels: { a: "1", b: "2" } },
    data: { k: "v" },
  };
  const out = applyMergePatch(cm, { metadata: { labels: { a: null, c: "3" } } });
  assert.deepEqual(out, {
    apiVersion: "v1",
    kind: "ConfigMap",
    metadata: { name: "x", labels: { b: "2", c: "3" } },
    data: { k: "v" },
  });
  assert.deepEqual(cm.metadata.labels, { a: "1", b: "2" }, "input untouched");
});

Deno.test("merge patch: RFC 7386 appendix examples", () => {
  const cases: [unknown, unknown, unknown][] = [
    [{ a: "b" }, { a: "c" }, { a: "c" }],
    [{ a: "b" }, { b: "c" }, { a: "b", b: "c" }],
    [{ a: "b" }, { a: null }, {}],
    [{ a: "b", b: "c" }, { a: null }, { b: "c" }],
    [{ a: ["b"] }, { a: "c" }, { a: "c" }],
    [{ a: "c" }, { a: ["b"] }, { a: ["b"] }],
    [{ a: { b: "c" } }, { a: { b: "d", c: null } }, { a: { b: "d" } }],
    [{ a: [{ b: "c" }] }, { a: [1] }, { a: [1] }],
    [["a", "b"], ["c", "d"], ["c", "d"]],
    [{ a: "b" }, ["c"], ["c"]],
    [{ a: "foo" }, null, null],
    [{ a: "foo" }, "bar", "bar"],
    [{ e: null }, { a: 1 }, { e: null, a: 1 }],
    [[1, 2], { a: "b", c: null }, { a: "b" }],
    [{}, { a: { bb: { ccc: null } } }, { a: { bb: {} } }],
  ];
  for (const [target, patch, want] of cases) assert.deepEqual(applyMergePatch(target, patch), want);
});
