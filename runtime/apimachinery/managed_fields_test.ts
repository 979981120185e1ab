import assert from "node:assert/strict";
import {
  applyConflictStatus,
  FieldSet,
  fromFieldsV1,
  isPrefix,
  type ManagedFieldsEntry,
  pathString,
  printManager,
  toFieldsV1,
} from "./managed_fields.ts";

const entry = (manager: string, operation: "Apply" | "Update", subresource?: string): ManagedFieldsEntry => ({
  manager,
  operation,
  apiVersion: "apps/v1",
  fieldsType: "FieldsV1",
  fieldsV1: {},
  ...(subresource ? { subresource } : {}),
});

Deno.test("toFieldsV1 / fromFieldsV1: round trip, keys sorted, '.' on owned nodes with owned children", () => {
  const set = new FieldSet([
    ["f:spec", "f:replicas"],
    ["f:metadata", "f:labels", "f:app"],
    ["f:spec", "f:ports", 'k:{"port":80}'],
    ["f:spec", "f:ports", 'k:{"port":80}', "f:name"],
  ]);
  const tree = toFieldsV1(set);
  assert.deepEqual(Object.keys(tree), ["f:metadata", "f:spec"]);
  assert.deepEqual(tree["f:spec"], { "f:ports": { 'k:{"port":80}': { ".": {}, "f:name": {} } }, "f:replicas": {} });
  const back = fromFieldsV1(tree);
  assert.equal(back.size, set.size);
  for (const p of set.paths()) assert.ok(back.has(p), JSON.stringify(p));
});

Deno.test("FieldSet.delete with children; isPrefix is proper", () => {
  const set = new FieldSet([["f:status"], ["f:status", "f:phase"], ["f:spec"]]);
  set.delete(["f:status"], true);
  assert.deepEqual(set.paths(), [["f:spec"]]);
  assert.ok(isPrefix(["f:a"], ["f:a", "f:b"]));
  assert.ok(!isPrefix(["f:a"], ["f:a"]));
});

Deno.test("pathString spells keyed, set and index elements as structured-merge-diff does", () => {
  assert.equal(
    pathString(["f:spec", "f:containers", 'k:{"name":"web"}', "f:args", 'v:"-v"', "i:0"]),
    '.spec.containers[name="web"].args[="-v"][0]',
  );
});

Deno.test("printManager: Update managers name their version, subresources are named", () => {
  assert.equal(printManager(entry("kubectl", "Apply")), '"kubectl"');
  assert.equal(printManager(entry("ctrl", "Update", "status")), '"ctrl" with subresource "status" using apps/v1');
});

Deno.test("applyConflictStatus: one conflict inline, several grouped per manager (managers sorted)", () => {
  const one = applyConflictStatus([{ entry: entry("a", "Apply"), path: ["f:spec", "f:x"] }]);
  assert.equal(one.message, 'Apply failed with 1 conflict: conflict with "a": .spec.x');
  assert.deepEqual(one.causes, [{ reason: "FieldManagerConflict", message: 'conflict with "a"', field: ".spec.x" }]);
  const many = applyConflictStatus([
    { entry: entry("b", "Update"), path: ["f:spec", "f:y"] },
    { entry: entry("a", "Apply"), path: ["f:spec", "f:x"] },
    { entry: entry("b", "Update"), path: ["f:spec", "f:z"] },
  ]);
  assert.equal(
    many.message,
    'Apply failed with 3 conflicts: conflicts with "a":\n- .spec.x\nconflicts with "b" using apps/v1:\n- .spec.y\n- .spec.z',
  );
  assert.deepEqual(many.causes.map((c) => c.field), [".spec.y", ".spec.x", ".spec.z"]);
});

Deno.test("FieldSet: paths whose elements hold NUL or are empty are distinct members", () => {
  const paths = [["f:a", "f:b"], ["f:a\0f:b"], ["", "f:a"], ["f:a", ""], [""], [], ["\0"], ["f:a"]];
  const set = new FieldSet(paths);
  assert.equal(set.size, paths.length);
  for (const p of paths) assert.ok(set.has(p), JSON.stringify(p));
  set.delete(["f:a\0f:b"]);
  assert.ok(!set.has(["f:a\0f:b"]) && set.has(["f:a", "f:b"]));
});
