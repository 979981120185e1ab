import assert from "node:assert/strict";
import { patchStatusIfChanged, statusChanges, type StatusPatcher } from "./status_patch.ts";
import type { KubeObject, ResourceType } from "../types.ts";

const rt: ResourceType = { group: "example.com", version: "v1", plural: "widgets", kind: "Widget", namespaced: true };

function recorder(): StatusPatcher & { calls: unknown[][] } {
  const calls: unknown[][] = [];
  return {
    calls,
    patch: (...args) => {
      calls.push(args);
      return Promise.resolve({});
    },
  };
}

Deno.test("statusChanges: the same status with keys in another order is no change (JSON.stringify would differ)", () => {
  const fromServer = {
    observedGeneration: 2,
    conditions: [{
      type: "Ready",
      status: "True",
      lastTransitionTime: "2026-01-01T00:00:00Z",
      reason: "Ok",
      message: "",
    }],
  };
  const built = {
    conditions: [{
      type: "Ready",
      status: "True",
      reason: "Ok",
      message: "",
      lastTransitionTime: "2026-01-01T00:00:00Z",
    }],
    observedGeneration: 2,
  };
  assert.notEqual(JSON.stringify(fromServer.conditions), JSON.stringify(built.conditions));
  assert.equal(statusChanges(fromServer, built), undefined);
});

Deno.test("statusChanges: only changed keys; removeAbsent nulls dropped keys; undefined values are absent", () => {
  assert.deepEqual(statusChanges({ a: 1, b: [1, 2] }, { a: 1, b: [2, 1] }), { b: [2, 1] });
  assert.deepEqual(statusChanges(undefined, { a: 1 }), { a: 1 });
  assert.equal(statusChanges({ a: 1, gone: "x" }, { a: 1 }), undefined);
  assert.deepEqual(statusChanges({ a: 1, gone: "x" }, { a: 1 }, { removeAbsent: true }), { gone: null });
  assert.equal(statusChanges({ a: 1 }, { a: 1, b: undefined }, { removeAbsent: true }), undefined);
});

Deno.test("patchStatusIfChanged: merge-patches the status subresource only when the status differs", async () => {
  const obj: KubeObject = { metadata: { name: "w", namespace: "ns" }, status: { phase: "Ready", count: 1 } };
  const client = recorder();
  assert.equal(await patchStatusIfChanged(client, rt, obj, { count: 1, phase: "Ready" }), false);
  assert.deepEqual(client.calls, []);
  assert.equal(await patchStatusIfChanged(client, rt, obj, { phase: "Ready", count: 2 }), true);
  assert.deepEqual(client.calls, [[rt, "w", { status: { count: 2 } }, {
    namespace: "ns",
    type: "merge",
    subresource: "status",
  }]]);
});
