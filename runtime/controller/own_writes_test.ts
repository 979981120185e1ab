import assert from "node:assert/strict";
import { VirtualClock } from "../clock.ts";
import { type Expectation, isSatisfied, OwnWritesTracker, writeExpectation } from "./own_writes.ts";
import type { KubeObject, ResourceType } from "../types.ts";

const rt: ResourceType = { group: "", version: "v1", plural: "configmaps", kind: "ConfigMap", namespaced: true };
const obj = (rv: string, extra: Partial<KubeObject["metadata"]> = {}): KubeObject => ({
  metadata: { name: "a", namespace: "ns", uid: "u1", resourceVersion: rv, ...extra },
});

Deno.test("resource versions are compared numerically, and only when decimal", () => {
  const exp = writeExpectation(rt, obj("100"))!;
  assert.equal(isSatisfied(exp, obj("99")), false);
  assert.equal(isSatisfied(exp, obj("100")), true);
  assert.equal(isSatisfied(exp, obj("1000")), true, "numeric, not lexicographic");
  assert.equal(isSatisfied(exp, obj("abc")), true, "opaque RVs are not compared");
  assert.equal(isSatisfied(exp, undefined), false);
  assert.equal(isSatisfied(exp, obj("1", { uid: "u2" })), true, "replaced object");
  assert.equal(writeExpectation(rt, obj("x-1")), undefined, "nothing to wait for with an opaque RV");
});

Deno.test("a delete is settled when the object is gone, replaced or terminating", () => {
  const exp: Expectation = { resource: "configmaps", objectKey: "ns/a", uid: "u1", deleted: true };
  assert.equal(isSatisfied(exp, obj("5")), false);
  assert.equal(isSatisfied(exp, undefined), true);
  assert.equal(isSatisfied(exp, obj("5", { uid: "u2" })), true);
  assert.equal(isSatisfied(exp, obj("5", { deletionTimestamp: "2026-01-01T00:00:00Z" })), true);
});

Deno.test("writes to resources without an informer are not tracked; later writes supersede earlier ones", async () => {
  const store = new Map<string, KubeObject>([["ns/a", obj("5")]]);
  const clock = new VirtualClock(0);
  const tracker = new OwnWritesTracker({ clock, storeFor: (id) => id === "configmaps" ? store : undefined });
  tracker.recordWrite("k", { ...rt, plural: "secrets" }, obj("50"));
  assert.equal(tracker.trackedKeys, 0);
  tracker.recordWrite("k", rt, obj("7"));
  tracker.recordWrite("k", rt, obj("8"));
  const waiting = tracker.wait("k");
  store.set("ns/a", obj("7"));
  tracker.notify();
  await clock.advance(0);
  store.set("ns/a", obj("8"));
  tracker.notify();
  assert.equal(await waiting, "seen");
  assert.equal(await tracker.wait("k"), "none", "expectations are consumed by the wait");
  tracker.recordWrite("k", rt, obj("9"));
  const aborted = tracker.wait("k", AbortSignal.abort());
  assert.equal(await aborted, "aborted");
  assert.equal(clock.pendingTimers, 0);
});
