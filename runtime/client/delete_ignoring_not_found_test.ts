import assert from "node:assert/strict";
import { deleteIgnoringNotFound } from "./delete_ignoring_not_found.ts";
import { ApiError, failureStatus } from "./errors.ts";
import type { ResourceType } from "../types.ts";

const rt: ResourceType = { group: "", version: "v1", plural: "pods", kind: "Pod", namespaced: true };
const failingWith = (code: number, reason: string) => ({
  delete: () => Promise.reject(new ApiError(failureStatus(code, reason, "x"), { verb: "delete" })),
});

Deno.test("deleteIgnoringNotFound: true when deleted, false when already gone, other errors propagate", async () => {
  const seen: unknown[] = [];
  const ok = { delete: (...args: unknown[]) => (seen.push(args), Promise.resolve()) };
  assert.equal(await deleteIgnoringNotFound(ok, rt, "p", { namespace: "ns", preconditions: { uid: "u" } }), true);
  assert.deepEqual(seen, [[rt, "p", { namespace: "ns", preconditions: { uid: "u" } }]]);
  assert.equal(await deleteIgnoringNotFound(failingWith(404, "NotFound"), rt, "p"), false);
  await assert.rejects(() => deleteIgnoringNotFound(failingWith(409, "Conflict"), rt, "p"), ApiError);
});
