import assert from "node:assert/strict";
import {
  addFinalizer,
  AlreadyOwnedError,
  conditionsEqual,
  findCondition,
  getControllerOf,
  hasControllerReference,
  hasFinalizer,
  removeFinalizer,
  setCondition,
  setControllerReference,
} from "./apply.ts";
import { TerminalError } from "./errors.ts";
import type { KubeObject } from "../types.ts";

const owner: KubeObject = {
  apiVersion: "useless.container.training/v1alpha1",
  kind: "Machine",
  metadata: { name: "m", namespace: "ns", uid: "uid-m" },
};

Deno.test("setControllerReference adds a blocking controller ref and keeps other owners", () => {
  const child: KubeObject = {
    metadata: {
      name: "s",
      namespace: "ns",
      ownerReferences: [{ apiVersion: "v1", kind: "ConfigMap", name: "c", uid: "uid-c" }],
    },
  };
  const owned = setControllerReference(owner, child);
  assert.equal(child.metadata.ownerReferences!.length, 1, "input not mutated");
  assert.equal(owned.metadata.ownerReferences!.length, 2);
  assert.deepEqual(getControllerOf(owned), {
    apiVersion: owner.apiVersion,
    kind: "Machine",
    name: "m",
    uid: "uid-m",
    controller: true,
    blockOwnerDeletion: true,
  });
  assert.ok(hasControllerReference(owned, owner));
  assert.ok(!hasControllerReference(child));
  assert.equal(setControllerReference(owner, owned).metadata.ownerReferences!.length, 2, "idempotent");
});

Deno.test("setControllerReference refuses a child controlled by someone else and cross-namespace owners", () => {
  const other = { ...owner, metadata: { ...owner.metadata, name: "other", uid: "uid-o" } };
  const owned = setControllerReference(other, { metadata: { name: "s", namespace: "ns" } });
  assert.throws(
    () => setControllerReference(owner, owned),
    (e) => e instanceof AlreadyOwnedError && e instanceof TerminalError,
  );
  assert.throws(
    () => setControllerReference(owner, { metadata: { name: "s", namespace: "elsewhere" } }),
    /cross-namespace/,
  );
  assert.throws(() => setControllerReference({ metadata: { name: "x" } }, { metadata: { name: "s" } }), /uid/);
});

Deno.test("finalizers: add and remove produce RV-guarded merge patches, or nothing when unchanged", () => {
  const obj: KubeObject = { metadata: { name: "a", resourceVersion: "41", finalizers: ["other"] } };
  const added = addFinalizer(obj, "x/cleanup")!;
  assert.deepEqual(added.patch, { metadata: { finalizers: ["other", "x/cleanup"], resourceVersion: "41" } });
  assert.ok(hasFinalizer(added.object, "x/cleanup") && !hasFinalizer(obj, "x/cleanup"));
  assert.equal(addFinalizer(added.object, "x/cleanup"), undefined);
  const removed = removeFinalizer(removeFinalizer(added.object, "other")!.object, "x/cleanup")!;
  assert.deepEqual(removed.patch.metadata.finalizers, null, "an empty list is written as null (merge patch delete)");
  assert.equal(removeFinalizer(obj, "absent"), undefined);
});

Deno.test("setCondition keeps lastTransitionTime while the status holds and updates it on change", () => {
  const t1 = "2026-01-01T00:00:00Z";
  const t2 = "2026-01-02T00:00:00Z";
  let c = setCondition(undefined, { type: "Ready", status: "False", reason: "Pending", message: "wait" }, t1);
  c = setCondition(c, { type: "Synced", status: "True", reason: "Ok", message: "", observedGeneration: 3 }, t1);
  const same = setCondition(c, { type: "Ready", status: "False", reason: "StillPending", message: "w" }, t2);
  assert.equal(findCondition(same, "Ready")!.lastTransitionTime, t1);
  assert.equal(findCondition(same, "Ready")!.reason, "StillPending");
  const flipped = setCondition(same, { type: "Ready", status: "True", reason: "Up", message: "" }, t2);
  assert.equal(findCondition(flipped, "Ready")!.lastTransitionTime, t2);
  assert.equal(flipped.length, 2);
  assert.ok(conditionsEqual(c, [...c].reverse()), "order does not matter");
  assert.ok(!conditionsEqual(c, same));
  assert.ok(conditionsEqual(undefined, []));
});
