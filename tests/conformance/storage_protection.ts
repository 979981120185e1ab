/**
 * Conformance cases: storage object in-use protection — kube-apiserver's StorageObjectInUseProtection admission plugin
 * (the `kubernetes.io/pv-protection`, `pvc-protection` and `vac-protection` finalizers on create) and
 * kube-controller-manager's pvc-, pv- and vac-protection controllers (the finalizer goes once the object is being
 * deleted and unused; an update that drops it gets it back). "Stays Terminating" is checked once an unused object
 * deleted after the used one is gone: the controller has seen both deletions by then. PersistentVolumes and classes
 * are cluster-scoped: named after the run's namespace.
 * @module
 */
import assert from "node:assert/strict";
import type { KubeClient } from "../../runtime/client/client.ts";
import { eventually } from "../../testing/eventually.ts";
import { ensureDefaultServiceAccount } from "./pod_admission.ts";
import { type ConformanceCase, POLL, sendBody } from "./support.ts";

// deno-lint-ignore no-explicit-any
type Any = any;

const PV_FINALIZER = "kubernetes.io/pv-protection";
const PVC_FINALIZER = "kubernetes.io/pvc-protection";
const VAC_FINALIZER = "kubernetes.io/vac-protection";
const KEEP = "conformance.kubeop.dev/keep";
const PVS = "/api/v1/persistentvolumes";
const VACS = "/apis/storage.k8s.io/v1/volumeattributesclasses";
const MERGE = "application/merge-patch+json";

const pvcs = (ns: string) => `/api/v1/namespaces/${ns}/persistentvolumeclaims`;
const pv = (name: string, extra: Any = {}) => ({
  metadata: { name, ...extra },
  spec: { capacity: { storage: "1Gi" }, accessModes: ["ReadWriteOnce"], hostPath: { path: "/tmp/protection" } },
});
const pvc = (name: string, spec: Any = {}) => ({
  metadata: { name },
  spec: { accessModes: ["ReadWriteOnce"], resources: { requests: { storage: "1Gi" } }, ...spec },
});
const vac = (name: string) => ({
  metadata: { name },
  driverName: "protection.conformance.kubeop.dev",
  parameters: { iops: "100" },
});

async function post(client: KubeClient, path: string, body: Any, query: Record<string, string> = {}): Promise<Any> {
  const res = await sendBody(client, "POST", path, body, "application/json", query);
  assert.equal(res.code, 201, `POST ${path}: ${JSON.stringify(res.json)}`);
  return res.json;
}

/** DELETE answering the object as it goes Terminating: deletionTimestamp set, `finalizer` still there. */
async function deleteTerminating(client: KubeClient, path: string, finalizer: string): Promise<void> {
  const res = await sendBody(client, "DELETE", path);
  assert.equal(res.code, 200, `DELETE ${path}: ${JSON.stringify(res.json)}`);
  assert.ok(res.json.metadata?.deletionTimestamp, JSON.stringify(res.json));
  assert.ok(res.json.metadata.finalizers?.includes(finalizer), JSON.stringify(res.json.metadata));
}

async function gone(client: KubeClient, path: string): Promise<void> {
  await eventually(`${path} gone`, async () => (await sendBody(client, "GET", path)).code === 404, POLL);
}

/** The object is still there, Terminating, with `finalizer`. */
async function terminating(client: KubeClient, path: string, finalizer: string): Promise<void> {
  const res = await sendBody(client, "GET", path);
  assert.equal(res.code, 200, `GET ${path}: ${JSON.stringify(res.json)}`);
  assert.ok(res.json.metadata.deletionTimestamp, JSON.stringify(res.json.metadata));
  assert.deepEqual(res.json.metadata.finalizers, [finalizer]);
}

/** Removes what a failed case left (finalizers included), ignoring answers. */
async function cleanUp(client: KubeClient, paths: string[]): Promise<void> {
  for (const path of paths) {
    await sendBody(client, "PATCH", path, { metadata: { finalizers: null } }, MERGE);
    await sendBody(client, "DELETE", path);
  }
}

export const storageProtectionCases: ConformanceCase[] = [
  {
    name: "a PersistentVolume, a claim and a VolumeAttributesClass are created with their protection finalizer " +
      "(after the ones sent, dry run too); deleted unused, they go",
    async run({ noRetry, ns }) {
      const pvName = `protect-pv-${ns}`;
      const vacName = `protect-vac-${ns}`;
      const paths = [`${PVS}/${pvName}`, `${pvcs(ns)}/protect-claim`, `${VACS}/${vacName}`];
      try {
        const dry = await post(noRetry, PVS, pv(pvName, { finalizers: [KEEP] }), { dryRun: "All" });
        assert.deepEqual(dry.metadata.finalizers, [KEEP, PV_FINALIZER]);
        const dryClaim = await post(noRetry, pvcs(ns), pvc("protect-claim"), { dryRun: "All" });
        assert.deepEqual(dryClaim.metadata.finalizers, [PVC_FINALIZER]);
        const created = [
          await post(noRetry, PVS, pv(pvName)),
          await post(noRetry, pvcs(ns), pvc("protect-claim")),
          await post(noRetry, VACS, vac(vacName)),
        ];
        assert.deepEqual(created.map((o) => o.metadata.finalizers), [[PV_FINALIZER], [PVC_FINALIZER], [VAC_FINALIZER]]);
        // The finalizer is the plugin's: the creator's managed fields do not own it.
        for (const o of created) {
          const owned = o.metadata.managedFields[0].fieldsV1;
          assert.equal(owned["f:metadata"]?.["f:finalizers"], undefined, JSON.stringify(owned));
        }
        for (const [i, f] of [PV_FINALIZER, PVC_FINALIZER, VAC_FINALIZER].entries()) {
          await deleteTerminating(noRetry, paths[i], f);
        }
        for (const path of paths) await gone(noRetry, path);
      } finally {
        await cleanUp(noRetry, paths);
      }
    },
  },
  {
    name: "a claim named by a scheduled pod, even a Succeeded one, stays Terminating until the pod is gone",
    async run({ client, noRetry, ns }) {
      await ensureDefaultServiceAccount(client, ns);
      const used = `${pvcs(ns)}/protect-used`;
      const spare = `${pvcs(ns)}/protect-spare`;
      const pod = `/api/v1/namespaces/${ns}/pods/protect-pod`;
      try {
        await post(noRetry, pvcs(ns), pvc("protect-used"));
        await post(noRetry, pvcs(ns), pvc("protect-spare"));
        await post(noRetry, `/api/v1/namespaces/${ns}/pods`, {
          metadata: { name: "protect-pod" },
          spec: {
            nodeName: "conformance-absent-node",
            containers: [{ name: "c", image: "busybox:1.36" }],
            volumes: [{ name: "data", persistentVolumeClaim: { claimName: "protect-used" } }],
          },
        });
        const done = await sendBody(noRetry, "PATCH", `${pod}/status`, { status: { phase: "Succeeded" } }, MERGE);
        assert.equal(done.code, 200, JSON.stringify(done.json));
        await deleteTerminating(noRetry, used, PVC_FINALIZER);
        await deleteTerminating(noRetry, spare, PVC_FINALIZER);
        await gone(noRetry, spare);
        await terminating(noRetry, used, PVC_FINALIZER);
        // No kubelet confirms the pod's deletion: grace period 0 removes it at once.
        const res = await sendBody(noRetry, "DELETE", pod, { gracePeriodSeconds: 0 });
        assert.equal(res.code, 200, JSON.stringify(res.json));
        await gone(noRetry, used);
      } finally {
        await sendBody(noRetry, "DELETE", pod, { gracePeriodSeconds: 0 });
        await cleanUp(noRetry, [used, spare]);
      }
    },
  },
  {
    name: "a Bound PersistentVolume stays Terminating until its phase is no longer Bound",
    async run({ noRetry, ns }) {
      const bound = `${PVS}/protect-bound-${ns}`;
      const spare = `${PVS}/protect-spare-${ns}`;
      try {
        await post(noRetry, PVS, pv(`protect-bound-${ns}`));
        await post(noRetry, PVS, pv(`protect-spare-${ns}`));
        const phase = (p: string) => sendBody(noRetry, "PATCH", `${bound}/status`, { status: { phase: p } }, MERGE);
        assert.equal((await phase("Bound")).code, 200);
        await deleteTerminating(noRetry, bound, PV_FINALIZER);
        await deleteTerminating(noRetry, spare, PV_FINALIZER);
        await gone(noRetry, spare);
        await terminating(noRetry, bound, PV_FINALIZER);
        assert.equal((await phase("Released")).code, 200);
        await gone(noRetry, bound);
      } finally {
        await cleanUp(noRetry, [bound, spare]);
      }
    },
  },
  {
    name: "a VolumeAttributesClass a claim names stays Terminating until the claim is gone",
    async run({ noRetry, ns }) {
      const usedName = `protect-used-${ns}`;
      const used = `${VACS}/${usedName}`;
      const spare = `${VACS}/protect-spare-${ns}`;
      const claim = `${pvcs(ns)}/protect-classy`;
      try {
        await post(noRetry, VACS, vac(usedName));
        await post(noRetry, VACS, vac(`protect-spare-${ns}`));
        await post(noRetry, pvcs(ns), pvc("protect-classy", { volumeAttributesClassName: usedName }));
        await deleteTerminating(noRetry, used, VAC_FINALIZER);
        await deleteTerminating(noRetry, spare, VAC_FINALIZER);
        await gone(noRetry, spare);
        await terminating(noRetry, used, VAC_FINALIZER);
        await deleteTerminating(noRetry, claim, PVC_FINALIZER);
        await gone(noRetry, claim);
        await gone(noRetry, used);
      } finally {
        await cleanUp(noRetry, [claim, used, spare]);
      }
    },
  },
  {
    name: "a claim whose update drops the protection finalizer gets it back from kube-controller-manager",
    async run({ noRetry, ns }) {
      const path = `${pvcs(ns)}/protect-readded`;
      try {
        await post(noRetry, pvcs(ns), pvc("protect-readded"));
        const patched = await sendBody(noRetry, "PATCH", path, { metadata: { finalizers: null } }, MERGE);
        assert.equal(patched.code, 200, JSON.stringify(patched.json));
        assert.equal(patched.json.metadata.finalizers, undefined);
        const back = await eventually("the finalizer added back", async () => {
          const res = await sendBody(noRetry, "GET", path);
          return res.json.metadata?.finalizers ? res.json : undefined;
        }, POLL);
        assert.deepEqual(back.metadata.finalizers, [PVC_FINALIZER]);
        const kcm = back.metadata.managedFields.find((m: Any) => m.manager === "kube-controller-manager");
        assert.deepEqual(
          [kcm?.operation, kcm?.fieldsV1],
          ["Update", { "f:metadata": { "f:finalizers": { ".": {}, [`v:"${PVC_FINALIZER}"`]: {} } } }],
          JSON.stringify(back.metadata.managedFields),
        );
      } finally {
        await cleanUp(noRetry, [path]);
      }
    },
  },
];
