/**
 * The fake's controllers that wait on the clock, driven by a VirtualClock: the namespace controller's estimate of
 * its pods' termination (NamespaceDeletionContentFailure once a pod outlives it) and the CRD finalizer's one-minute
 * wait for instances (InstanceDeletionCheck, then a retry after the work queue's 5 ms backoff). The same texts are
 * asserted against kube-apiserver v1.37.2 in tests/conformance/namespace_termination.ts and crd_deletion.ts.
 */
import assert from "node:assert/strict";
import { VirtualClock } from "../runtime/clock.ts";
import { startFakeApiServer } from "../testing/mod.ts";
import { call } from "../testing/test_http.ts";
import { eventually } from "../testing/eventually.ts";

const MERGE = { "content-type": "application/merge-patch+json" };
const CRDS = "/apis/apiextensions.k8s.io/v1/customresourcedefinitions";

/** The condition of `type` in the object at `path`. */
async function condition(url: string, path: string, type: string) {
  const got = await call(url, "GET", path);
  return (got.body.status?.conditions ?? []).find((c: { type: string }) => c.type === type);
}

Deno.test("fake namespace controller: a pod outliving its grace period since the namespace's deletion fails the pass", async () => {
  const clock = new VirtualClock(Date.UTC(2026, 0, 1));
  const s = await startFakeApiServer({ anonymousAdmin: true, clock, gracefulPodDeletion: true });
  try {
    await call(s.url, "POST", "/api/v1/namespaces", { metadata: { name: "stuck" } });
    await call(s.url, "POST", "/api/v1/namespaces/stuck/pods", {
      metadata: { name: "p" },
      spec: { nodeName: "absent", containers: [{ name: "c", image: "busybox:1.36" }] },
    });
    await call(s.url, "DELETE", "/api/v1/namespaces/stuck");
    const path = "/api/v1/namespaces/stuck";
    await eventually(
      "conditions written",
      async () => (await condition(s.url, path, "NamespaceDeletionContentFailure")),
    );
    await clock.advance(29_000);
    assert.equal((await condition(s.url, path, "NamespaceDeletionContentFailure")).status, "False");
    await clock.advance(1_000);
    const failed = await eventually("content failure", async () => {
      const c = await condition(s.url, path, "NamespaceDeletionContentFailure");
      return c.status === "True" ? c : undefined;
    });
    assert.equal(
      failed.message,
      "Failed to delete all resource types, 1 remaining: unexpected items still remain in namespace: stuck for gvr: " +
        "/v1, Resource=pods",
    );
    assert.equal(failed.lastTransitionTime, "2026-01-01T00:00:30Z");
  } finally {
    await s.stop();
  }
});

Deno.test("fake CRD finalizer: instances held a minute make InstanceDeletionCheck, then it retries after 5 ms", async () => {
  const clock = new VirtualClock(Date.UTC(2026, 0, 1));
  const s = await startFakeApiServer({ anonymousAdmin: true, clock });
  const crd = "gadgets.deadline.kubeop.dev";
  try {
    await call(s.url, "POST", CRDS, {
      metadata: { name: crd },
      spec: {
        group: "deadline.kubeop.dev",
        scope: "Namespaced",
        names: { plural: "gadgets", singular: "gadget", kind: "Gadget" },
        versions: [{
          name: "v1",
          served: true,
          storage: true,
          schema: { openAPIV3Schema: { type: "object", "x-kubernetes-preserve-unknown-fields": true } },
        }],
      },
    });
    const gadgets = "/apis/deadline.kubeop.dev/v1/namespaces/default/gadgets";
    await eventually("served", async () => (await call(s.url, "GET", gadgets)).status === 200);
    const held = await call(s.url, "POST", gadgets, {
      apiVersion: "deadline.kubeop.dev/v1",
      kind: "Gadget",
      metadata: { name: "held", finalizers: ["deadline.kubeop.dev/hold"] },
    });
    assert.equal(held.status, 201, JSON.stringify(held.body));
    await call(s.url, "DELETE", `${CRDS}/${crd}`);
    const reason = async () => (await condition(s.url, `${CRDS}/${crd}`, "Terminating"))?.reason;
    await eventually("in progress", async () => (await reason()) === "InstanceDeletionInProgress");
    await clock.advance(59_999);
    assert.equal(await reason(), "InstanceDeletionInProgress");
    await clock.advance(1);
    const check = await condition(s.url, `${CRDS}/${crd}`, "Terminating");
    assert.deepEqual([check.status, check.reason, check.message], [
      "True",
      "InstanceDeletionCheck",
      "could not confirm zero CustomResources remaining: context deadline exceeded",
    ]);
    await clock.advance(5);
    assert.equal(await reason(), "InstanceDeletionInProgress");
    await clock.advance(60_000);
    assert.equal(await reason(), "InstanceDeletionCheck");
    // The instance goes: the CRD finishes and goes too.
    await call(s.url, "PATCH", `${gadgets}/held`, { metadata: { finalizers: null } }, MERGE);
    await eventually("CRD gone", async () => (await call(s.url, "GET", `${CRDS}/${crd}`)).status === 404);
  } finally {
    await s.stop();
  }
});
