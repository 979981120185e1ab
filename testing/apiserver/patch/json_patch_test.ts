import assert from "node:assert/strict";
import { ApiError } from "../../../runtime/client/errors.ts";
import { applyJsonPatch } from "./json_patch.ts";

const deploy = () => ({
  apiVersion: "apps/v1",
  kind: "Deployment",
  metadata: { name: "web", annotations: { "a/b": "1", "t~x": "2" }, resourceVersion: "5" },
  spec: { replicas: 1, template: { spec: { containers: [{ name: "c", image: "nginx" }] } } },
});

Deno.test("json patch: kubectl patch --type json replace, add to array end, remove", () => {
  const before = deploy();
  const out = applyJsonPatch(before, [
    { op: "replace", path: "/spec/replicas", value: 3 },
    { op: "add", path: "/spec/template/spec/containers/-", value: { name: "side", image: "busybox" } },
    { op: "remove", path: "/metadata/annotations/a~1b" },
    { op: "replace", path: "/metadata/annotations/t~0x", value: "3" },
  ]) as ReturnType<typeof deploy>;
  assert.equal(out.spec.replicas, 3);
  assert.deepEqual(out.spec.template.spec.containers.map((c) => c.name), ["c", "side"]);
  assert.deepEqual(out.metadata.annotations, { "t~x": "3" });
  assert.equal(before.spec.replicas, 1, "input untouched");
});

Deno.test("json patch: move, copy, add at index, test success", () => {
  const out = applyJsonPatch({ a: [1, 2, 3], b: { c: "x" } }, [
    { op: "test", path: "/b/c", value: "x" },
    { op: "move", path: "/d", from: "/b/c" },
    { op: "copy", path: "/a/0", from: "/d" },
    { op: "add", path: "/e", value: null },
  ]);
  assert.deepEqual(out, { a: ["x", 1, 2, 3], b: {}, d: "x", e: null });
});

Deno.test("json patch: SSA migration patch replaces managedFields; replace of a missing key sets it (kube's v4)", () => {
  const withFields = { ...deploy(), metadata: { ...deploy().metadata, managedFields: [{ manager: "old" }] } };
  const out = applyJsonPatch(withFields, [
    { op: "replace", path: "/metadata/managedFields", value: [{ manager: "kubectl" }] },
    { op: "replace", path: "/metadata/resourceVersion", value: "5" },
  ]) as typeof withFields;
  assert.deepEqual(out.metadata.managedFields, [{ manager: "kubectl" }]);
  assert.deepEqual(applyJsonPatch({ metadata: {} }, [{ op: "replace", path: "/metadata/x", value: 1 }]), {
    metadata: { x: 1 },
  });
});

Deno.test("json patch: a failed test op or missing path is 422 Invalid, a non-list 400", () => {
  assert.throws(() => applyJsonPatch(deploy(), [{ op: "test", path: "/spec/replicas", value: 2 }]), (err: unknown) => {
    assert.ok(err instanceof ApiError);
    assert.equal(err.code, 422);
    assert.equal(err.reason, "Invalid");
    assert.match(err.status.message!, /the server rejected our request due to an error in our request/);
    return true;
  });
  assert.throws(() => applyJsonPatch(deploy(), [{ op: "remove", path: "/spec/nope/x" }]), (err: unknown) => {
    assert.ok(err instanceof ApiError);
    assert.equal(err.code, 422);
    assert.equal(err.status.message, "the server rejected our request due to an error in our request");
    return true;
  });
  assert.throws(() => applyJsonPatch(deploy(), [{ op: "add", path: "/spec/template/spec/containers/5", value: 1 }]));
  assert.throws(() => applyJsonPatch(deploy(), [{ op: "bogus", path: "/x" }]));
  assert.throws(
    () => applyJsonPatch(deploy(), { op: "add" }),
    (err: unknown) => err instanceof ApiError && err.code === 400 && err.reason === "BadRequest",
  );
});
