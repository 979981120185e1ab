import assert from "node:assert/strict";
import { applyJsonPatch, PatchError, type PatchErrorReason, TEST_FAILED_MESSAGE } from "./json_patch.ts";

Deno.test("json patch: add/remove/replace/move/copy/test, escapes, input untouched", () => {
  const before = { a: { b: 1 }, l: [1], m: { "x/y": 1, "t~": 2 } };
  const out = applyJsonPatch(before, [
    { op: "add", path: "/l/-", value: 2 },
    { op: "replace", path: "/a/b", value: 5 },
    { op: "copy", from: "/a/b", path: "/c" },
    { op: "move", from: "/c", path: "/d" },
    { op: "remove", path: "/l/0" },
    { op: "remove", path: "/m/x~1y" },
    { op: "replace", path: "/m/t~0", value: 3 },
    { op: "test", path: "/d", value: 5 },
    { op: "test", path: "/a", value: { b: 5 } },
  ]);
  assert.deepEqual(out, { a: { b: 5 }, l: [2], d: 5, m: { "t~": 3 } });
  assert.deepEqual(before, { a: { b: 1 }, l: [1], m: { "x/y": 1, "t~": 2 } });
});

Deno.test("json patch: a test op compares semantically (object key order does not matter)", () => {
  const doc = { spec: { a: 1, b: 2 } };
  assert.deepEqual(applyJsonPatch(doc, [{ op: "test", path: "/spec", value: { b: 2, a: 1 } }]), doc);
});

Deno.test("json patch: each failure is a PatchError with a reason (a failed test is TestFailed, kube's 422)", () => {
  const cases: Array<[unknown, unknown, PatchErrorReason]> = [
    [{ a: 1 }, [{ op: "test", path: "/a", value: 2 }], "TestFailed"],
    [{}, [{ op: "test", path: "/missing", value: 2 }], "TestFailed"],
    [{}, [{ op: "remove", path: "/x/y" }], "NotApplicable"],
    [{ l: [] }, [{ op: "add", path: "/l/5", value: 1 }], "NotApplicable"],
    [{}, [{ op: "replace", path: "/x/y", value: 1 }], "NotApplicable"],
    [{}, { op: "add" }, "NotAList"],
    [{}, [{ op: "add", path: "/a" }], "MalformedOperation"],
    [{}, [{ op: "add", path: "a", value: 1 }], "NotApplicable"],
    [{}, [{ op: "frobnicate", path: "/a" }], "UnknownOperation"],
  ];
  for (const [doc, patch, reason] of cases) {
    assert.throws(() => applyJsonPatch(doc, patch), (err: unknown) => {
      assert.ok(err instanceof PatchError, JSON.stringify(patch));
      assert.equal(err.reason, reason, JSON.stringify(patch));
      return true;
    });
  }
  assert.throws(() => applyJsonPatch({ a: 1 }, [{ op: "test", path: "/a", value: 2 }]), {
    message: TEST_FAILED_MESSAGE,
  });
});

Deno.test("json patch: as kube's evanphx v4, replace sets a missing object key, a pointer's text before '/' is dropped, a missing key tests null", () => {
  assert.deepEqual(applyJsonPatch({ a: 1 }, [{ op: "replace", path: "/b", value: 2 }]), { a: 1, b: 2 });
  assert.deepEqual(applyJsonPatch({ d: {} }, [{ op: "add", path: "d/q", value: 1 }]), { d: {}, q: 1 });
  assert.deepEqual(applyJsonPatch({ d: {} }, [{ op: "test", path: "/d/missing", value: null }]), { d: {} });
});
