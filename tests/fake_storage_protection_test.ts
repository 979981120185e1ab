/**
 * The storage protection the fake runs by default (StorageObjectInUseProtection admission and kube-controller-manager's
 * pvc-, pv- and vac-protection controllers; tests/conformance/storage_protection.ts holds the cases checked against a
 * real cluster): a namespace holding claims still empties, the unit-test cluster settles a claim's deletion, and
 * `storageProtection: false` leaves the finalizers to the client, as a cluster without those controllers does.
 */
import assert from "node:assert/strict";
import { CoreTypes } from "../runtime/types.ts";
import { startFakeApiServer } from "../testing/mod.ts";
import { call } from "../testing/test_http.ts";
import { eventually } from "../testing/eventually.ts";
import { FakeCluster } from "../testing/unit/fake_cluster.ts";

const PersistentVolumeClaim = {
  group: "",
  version: "v1",
  plural: "persistentvolumeclaims",
  kind: "PersistentVolumeClaim",
  namespaced: true,
};
const claim = (name: string, namespace?: string) => ({
  metadata: { name, ...(namespace ? { namespace } : {}) },
  spec: { accessModes: ["ReadWriteOnce"], resources: { requests: { storage: "1Gi" } } },
});
const podUsing = (name: string, claimName: string, namespace?: string) => ({
  metadata: { name, ...(namespace ? { namespace } : {}) },
  spec: {
    nodeName: "elsewhere",
    automountServiceAccountToken: false,
    containers: [{ name: "c", image: "busybox:1.36" }],
    volumes: [{ name: "data", persistentVolumeClaim: { claimName } }],
  },
});

Deno.test("fake storage protection: a namespace with claims, one of them used by a pod, is deleted to the end", async () => {
  const s = await startFakeApiServer({ anonymousAdmin: true });
  const ns = "/api/v1/namespaces/storage";
  try {
    await call(s.url, "POST", "/api/v1/namespaces", { metadata: { name: "storage" } });
    for (const name of ["a", "b"]) {
      const created = await call(s.url, "POST", `${ns}/persistentvolumeclaims`, claim(name));
      assert.deepEqual(created.body.metadata.finalizers, ["kubernetes.io/pvc-protection"]);
    }
    assert.equal((await call(s.url, "POST", `${ns}/pods`, podUsing("p", "a"))).status, 201);
    assert.equal((await call(s.url, "DELETE", ns)).status, 200);
    await eventually("namespace gone", async () => (await call(s.url, "GET", ns)).status === 404);
  } finally {
    await s.stop();
  }
});

Deno.test("fake storage protection off: a deleted claim keeps its finalizer until a client removes it", async () => {
  const s = await startFakeApiServer({ anonymousAdmin: true, storageProtection: false });
  const path = "/api/v1/namespaces/default/persistentvolumeclaims/kept";
  try {
    await call(s.url, "POST", "/api/v1/namespaces/default/persistentvolumeclaims", claim("kept"));
    const deleted = await call(s.url, "DELETE", path);
    assert.ok(deleted.body.metadata.deletionTimestamp);
    // The server's own controllers have run by the time another request is answered: nothing removed it.
    assert.deepEqual((await call(s.url, "GET", path)).body.metadata.finalizers, ["kubernetes.io/pvc-protection"]);
    await call(s.url, "PATCH", path, { metadata: { finalizers: null } }, {
      "content-type": "application/merge-patch+json",
    });
    assert.equal((await call(s.url, "GET", path)).status, 404);
  } finally {
    await s.stop();
  }
});

Deno.test("FakeCluster settles a claim's deletion: at once when unused, with its pod when used", () => {
  const cluster = new FakeCluster();
  cluster.create(PersistentVolumeClaim, claim("free", "default"));
  cluster.create(PersistentVolumeClaim, claim("held", "default"));
  cluster.create(CoreTypes.Pod, podUsing("p", "held", "default"));
  cluster.delete(PersistentVolumeClaim, "default/free");
  assert.equal(cluster.get(PersistentVolumeClaim, "default/free"), undefined);
  cluster.delete(PersistentVolumeClaim, "default/held");
  assert.ok(cluster.get(PersistentVolumeClaim, "default/held")?.metadata.deletionTimestamp);
  cluster.delete(CoreTypes.Pod, "default/p", { gracePeriodSeconds: 0 });
  assert.equal(cluster.get(PersistentVolumeClaim, "default/held"), undefined);
});
