import { deepStrictEqual as assertEquals } from "node:assert/strict";
import fc from "fast-check";
import { applyJsonPatch } from "./json_patch.ts";
import { diffJsonPatch } from "./json_patch_diff.ts";

Deno.test("diff of equal objects is empty, whatever the key order", () => {
  assertEquals(diffJsonPatch({ a: 1, b: { c: [1, 2] } }, { b: { c: [1, 2] }, a: 1 }), []);
});

Deno.test("diff adds, removes and replaces keys with escaped pointers", () => {
  const from = { metadata: { labels: { "app/name": "x", old: "y" } }, spec: { n: 1 } };
  const to = { metadata: { labels: { "app/name": "z", "a~b": "w" } }, spec: { n: "1" } };
  assertEquals(diffJsonPatch(from, to), [
    { op: "replace", path: "/metadata/labels/app~1name", value: "z" },
    { op: "remove", path: "/metadata/labels/old" },
    { op: "add", path: "/metadata/labels/a~0b", value: "w" },
    { op: "replace", path: "/spec/n", value: "1" },
  ]);
});

Deno.test("diff of arrays removes trailing elements from the end and appends new ones", () => {
  assertEquals(diffJsonPatch({ l: [1, 2, 3, 4] }, { l: [1, 9] }), [
    { op: "replace", path: "/l/1", value: 9 },
    { op: "remove", path: "/l/3" },
    { op: "remove", path: "/l/2" },
  ]);
  assertEquals(diffJsonPatch({ l: [1] }, { l: [1, { a: 1 }] }), [{ op: "add", path: "/l/1", value: { a: 1 } }]);
});

Deno.test("an undefined value counts as an absent key", () => {
  assertEquals(diffJsonPatch({ a: 1, b: undefined }, { a: 1 }), []);
  assertEquals(diffJsonPatch({ a: 1 }, { a: 1, b: undefined }), []);
});

Deno.test("applying the diff to the original yields the target (property, fixed seed)", () => {
  const json = fc.letrec((tie) => ({
    value: fc.oneof(
      { depthSize: "small" },
      fc.oneof(fc.integer(), fc.string(), fc.boolean(), fc.constant(null)),
      fc.array(tie("value"), { maxLength: 4 }),
      fc.dictionary(fc.constantFrom("a", "b", "c/d", "e~f", ""), tie("value"), { maxKeys: 4 }),
    ),
  })).value;
  fc.assert(
    fc.property(json, json, (a, b) => {
      // Through JSON, as webhook payloads travel (fast-check also makes null-prototype objects).
      const [from, to] = [JSON.parse(JSON.stringify(a)), JSON.parse(JSON.stringify(b))];
      assertEquals(applyJsonPatch(from, diffJsonPatch(from, to)), to);
    }),
    { seed: 16, numRuns: 500 },
  );
});
