import assert from "node:assert/strict";
import { ApiError } from "../runtime/client/errors.ts";
import { applyConfiguration, managerOf, recordUpdate } from "./field_ownership.ts";
import { FARM_API_VERSION, type Llama } from "./llama.ts";

const T = "2026-01-01T00:00:00Z";
const llama = (spec: Record<string, number>, labels?: Record<string, string>): Llama => ({
  apiVersion: FARM_API_VERSION,
  kind: "Llama",
  metadata: { name: "x", namespace: "default", ...(labels ? { labels } : {}) },
  spec: spec as Llama["spec"],
});

Deno.test("managerOf: fieldManager, else the User-Agent before '/', else unknown", () => {
  assert.equal(managerOf("mine", "kubectl/v1.37"), "mine");
  assert.equal(managerOf(null, "kubectl/v1.37.2 (linux/amd64)"), "kubectl");
  assert.equal(managerOf(null, null), "unknown");
});

Deno.test("two conflicts with one manager: kube's multi-line message, a cause each", () => {
  const created = llama({ weight: 1, height: 2 });
  created.metadata.managedFields = recordUpdate(undefined, created, "creator", T);
  try {
    applyConfiguration(created, llama({ weight: 5, height: 6 }), { manager: "a", force: false, time: T });
    assert.fail("expected a conflict");
  } catch (err) {
    assert.ok(err instanceof ApiError);
    assert.equal(err.code, 409);
    assert.equal(
      err.status.message,
      'Apply failed with 2 conflicts: conflicts with "creator" using farm.example.com/v1alpha:\n- .spec.height\n- .spec.weight',
    );
    assert.deepEqual(err.status.details?.causes?.map((c) => c.field), [".spec.height", ".spec.weight"]);
  }
});

Deno.test("an update that removes a field drops it from every owner; untouched fields stay where they were", () => {
  const a = llama({ weight: 1, height: 2 }, { app: "x" });
  a.metadata.managedFields = recordUpdate(undefined, a, "creator", T);
  const b = llama({ weight: 1, height: 2 });
  const fields = recordUpdate(a, b, "editor", T);
  assert.deepEqual(fields.map((e) => [e.manager, e.fieldsV1]), [
    ["creator", { "f:spec": { "f:height": {}, "f:weight": {} } }],
  ], "editor owns nothing it set, so it has no entry");
});
