import assert from "node:assert/strict";
import type { ApiError } from "../runtime/client/errors.ts";
import { applyJsonPatch, applyMergePatch } from "./patch.ts";

Deno.test("merge patch: nested merge, null deletes, arrays replace, input untouched", () => {
  const target = { a: { b: 1, c: 2 }, l: [1, 2] };
  assert.deepEqual(applyMergePatch(target, { a: { c: null, d: 3 }, l: [3] }), { a: { b: 1, d: 3 }, l: [3] });
  assert.deepEqual(target, { a: { b: 1, c: 2 }, l: [1, 2] });
});

Deno.test("JSON patch: add/remove/replace/move/copy/test", () => {
  const out = applyJsonPatch({ a: { b: 1 }, l: [1] }, [
    { op: "add", path: "/l/-", value: 2 },
    { op: "replace", path: "/a/b", value: 5 },
    { op: "copy", from: "/a/b", path: "/c" },
    { op: "move", from: "/c", path: "/d" },
    { op: "remove", path: "/l/0" },
    { op: "test", path: "/d", value: 5 },
  ]);
  assert.deepEqual(out, { a: { b: 5 }, l: [2], d: 5 });
});

Deno.test("JSON patch errors: failed test and missing path → 422, malformed → 400", () => {
  assert.throws(
    () => applyJsonPatch({ a: 1 }, [{ op: "test", path: "/a", value: 2 }]),
    (e) => (e as ApiError).code === 422,
  );
  assert.throws(() => applyJsonPatch({}, [{ op: "remove", path: "/x/y" }]), (e) => (e as ApiError).code === 422);
  assert.throws(() => applyJsonPatch({}, { op: "add" }), (e) => (e as ApiError).code === 400);
  assert.throws(() => applyJsonPatch({}, [{ op: "frobnicate", path: "/a" }]), (e) => (e as ApiError).code === 400);
});
