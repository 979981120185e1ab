import assert from "node:assert/strict";
import { isInvalid, isNotFound } from "../../runtime/client/errors.ts";
import { VirtualClock } from "../../runtime/clock.ts";
import { nestedString } from "../../runtime/unstructured.ts";
import type { Unstructured as KubeObject } from "./unstructured.ts";
import type { AdmissionContext } from "./admission.ts";
import { FakeStore } from "./commit_path.ts";
import { ResourceRegistry } from "./registry.ts";
import { ObjectStore } from "./object_storage.ts";

const NS = { group: "", version: "v1", plural: "namespaces" };
const PODS = { group: "", version: "v1", plural: "pods" };
const CONFIGMAPS = { group: "", version: "v1", plural: "configmaps" };
const CORE_EVENTS = { group: "", version: "v1", plural: "events" };
const EVENTS_V1 = { group: "events.k8s.io", version: "v1", plural: "events" };

function newStore(opts: { gracefulPodDeletion?: boolean } = {}): FakeStore {
  const store = new FakeStore({
    registry: new ResourceRegistry(),
    objects: new ObjectStore(),
    clock: new VirtualClock(),
    gracefulPodDeletion: opts.gracefulPodDeletion,
  });
  store.create(NS, { metadata: { name: "default" } });
  return store;
}

function thrown(fn: () => unknown): unknown {
  try {
    fn();
  } catch (err) {
    return err;
  }
  assert.fail("expected an error");
}

Deno.test("admission runs in kube's order: mutating hooks, then the strategy's defaults, then validating hooks", () => {
  const store = newStore();
  const seen: string[] = [];
  store.admission.mutating.push((ctx: AdmissionContext) => {
    seen.push(`mutating ${ctx.verb} phase=${ctx.object.status?.phase ?? "-"}`);
    ctx.object.metadata.labels = { ...ctx.object.metadata.labels, admitted: "yes" };
  });
  store.admission.validating.push((ctx: AdmissionContext) => {
    seen.push(`validating ${ctx.verb} phase=${ctx.object.status?.phase} uid=${Boolean(ctx.object.metadata.uid)}`);
  });
  const pod = store.create(PODS, {
    metadata: { name: "p", namespace: "default" },
    spec: { containers: [{ name: "c", image: "busybox" }] },
  });
  assert.equal(pod.metadata.labels?.admitted, "yes");
  assert.equal(pod.spec.restartPolicy, "Always");
  store.update(PODS, { ...pod, spec: { ...pod.spec, activeDeadlineSeconds: 5 } }, { namespace: "default" });
  assert.deepEqual(seen, [
    "mutating create phase=-",
    "validating create phase=Pending uid=true",
    "mutating update phase=Pending",
    "validating update phase=Pending uid=true",
  ]);
});

Deno.test("NamespaceLifecycle is the first mutating hook: no create in a missing namespace, hooks after it not run", () => {
  const store = newStore();
  let called = false;
  store.admission.mutating.push(() => called = true);
  const err = thrown(() => store.create(CONFIGMAPS, { metadata: { name: "c", namespace: "nope" } }));
  assert.ok(isNotFound(err));
  assert.equal(called, false);
});

Deno.test("a validating hook sees only valid objects and its refusal stores nothing", () => {
  const store = newStore();
  const checked: string[] = [];
  store.admission.validating.push((ctx) => {
    checked.push(ctx.object.metadata.name!);
    if (ctx.object.data?.forbidden) throw new Error(`refused ${ctx.object.metadata.name}`);
  });
  assert.ok(
    isInvalid(thrown(() => store.create(CONFIGMAPS, { metadata: { name: "Bad_Name", namespace: "default" } }))),
  );
  assert.throws(
    () => store.create(CONFIGMAPS, { metadata: { name: "c", namespace: "default" }, data: { forbidden: "1" } }),
    /refused c/,
  );
  assert.deepEqual(checked, ["c"]);
  assert.equal(store.peek(store.def(CONFIGMAPS), "default", "c"), undefined);
});

Deno.test("a registered strategy changes one resource: create on update and update validation", () => {
  const store = newStore();
  const cm = { metadata: { name: "c", namespace: "default" }, data: { size: "2" } };
  assert.ok(isNotFound(thrown(() => store.update(CONFIGMAPS, cm, { namespace: "default" }))));
  store.strategies.set("/configmaps", {
    allowCreateOnUpdate: true,
    validateUpdate: (next: KubeObject, old: KubeObject) =>
      Number(next.data?.size) < Number(old.data?.size)
        ? [{ reason: "FieldValueInvalid", message: "Invalid value: may not shrink", field: "data.size" }]
        : [],
  });
  const created = store.update(CONFIGMAPS, cm, { namespace: "default" });
  assert.equal(created.data.size, "2");
  const err = thrown(() => store.update(CONFIGMAPS, { ...created, data: { size: "1" } }, { namespace: "default" }));
  assert.ok(isInvalid(err));
  assert.match(String((err as Error).message), /data\.size: Invalid value: may not shrink/);
});

Deno.test("events.k8s.io Events are stored as core Events and converted back, field selectors included", () => {
  const store = newStore();
  store.create(EVENTS_V1, {
    metadata: { name: "e", namespace: "default" },
    regarding: { kind: "Pod", name: "p", namespace: "default" },
    note: "hello",
    reason: "Test",
    type: "Normal",
    eventTime: "2026-01-01T00:00:00.000000Z",
    reportingController: "example.com/test",
    reportingInstance: "test-1",
    action: "Testing",
  });
  const core = store.get(CORE_EVENTS, "e", { namespace: "default" });
  assert.deepEqual([core.apiVersion, core.involvedObject?.name, core.message], ["v1", "p", "hello"]);
  const listed = store.list(EVENTS_V1, { namespace: "default", fieldSelector: "regarding.name=p" });
  assert.deepEqual(listed.items.map((e) => [e.apiVersion, nestedString(e, "regarding", "name"), e.note]), [
    ["events.k8s.io/v1", "p", "hello"],
  ]);
  assert.equal(store.list(EVENTS_V1, { namespace: "default", fieldSelector: "regarding.name=q" }).items.length, 0);
});

Deno.test("a namespace delete only marks it Terminating; it stays after updates until its controller removes it", () => {
  const store = newStore();
  store.create(NS, { metadata: { name: "team" } });
  const marked = store.delete(NS, "team");
  assert.equal(marked.status.phase, "Terminating");
  assert.ok(marked.metadata.deletionTimestamp);
  const updated = store.update(NS, { ...marked, metadata: { ...marked.metadata, labels: { a: "b" } } });
  assert.equal(updated.metadata.labels?.a, "b");
  assert.equal(store.get(NS, "team").status.phase, "Terminating");
});

Deno.test("graceful deletion applies the pod strategy's grace period only when the store has it on", () => {
  for (const graceful of [false, true]) {
    const store = newStore({ gracefulPodDeletion: graceful });
    store.create(PODS, {
      metadata: { name: "p", namespace: "default" },
      spec: { nodeName: "n", containers: [{ name: "c", image: "busybox" }] },
    });
    const deleted = store.delete(PODS, "p", { namespace: "default" });
    assert.equal(deleted.metadata.deletionGracePeriodSeconds ?? 0, graceful ? 30 : 0);
    assert.equal(store.peek(store.def(PODS), "default", "p") !== undefined, graceful);
  }
});
