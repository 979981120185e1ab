/**
 * Conformance cases: Deletion: graceful deletion, finalizers, garbage collection and namespace termination.
 * @module
 */
import assert from "node:assert/strict";
import type { Namespace } from "../../runtime/builtin_types.ts";
import { isForbidden, isNotFound } from "../../runtime/client/errors.ts";
import { CoreTypes, type KubeObject } from "../../runtime/types.ts";
import { eventually } from "../../testing/eventually.ts";
import { type ConformanceCase, expectError, FINALIZE, POLL } from "./support.ts";

/** Deletion: graceful deletion, finalizers, garbage collection and namespace termination. */
export const deletionCases: ConformanceCase[] = [
  {
    name: "namespaces: spec.finalizers [kubernetes] on create, kept by updates, replaced by /finalize",
    async run({ client, ns }) {
      const name = `${ns}-fin`;
      const created = await client.create<Namespace>(CoreTypes.Namespace, { metadata: { name } });
      assert.deepEqual(created.spec?.finalizers, ["kubernetes"]);
      assert.equal(created.status?.phase, "Active");
      assert.equal(created.metadata.labels?.["kubernetes.io/metadata.name"], name);
      const updated = await client.update(CoreTypes.Namespace, {
        ...created,
        metadata: { ...created.metadata, labels: { ...created.metadata.labels, a: "b" } },
        spec: { finalizers: [] },
      });
      assert.deepEqual(updated.spec?.finalizers, ["kubernetes"], "a plain update keeps spec.finalizers");
      const finalized = await client.update(CoreTypes.Namespace, {
        ...updated,
        spec: { finalizers: ["kubernetes", "conformance.kubeop.dev/extra"] },
      }, { subresource: FINALIZE });
      assert.deepEqual(finalized.spec?.finalizers, ["kubernetes", "conformance.kubeop.dev/extra"]);
      await client.delete(CoreTypes.Namespace, name);
      const terminating = await client.get<Namespace>(CoreTypes.Namespace, name);
      assert.equal(terminating.status?.phase, "Terminating");
      const cleared = await client.update(CoreTypes.Namespace, { ...terminating, spec: { finalizers: [] } }, {
        subresource: FINALIZE,
      });
      assert.deepEqual(cleared.spec?.finalizers ?? [], []);
      await eventually("namespace without finalizers gone", async () => {
        try {
          await client.get(CoreTypes.Namespace, name);
          return undefined;
        } catch (err) {
          return isNotFound(err) ? true : undefined;
        }
      }, POLL);
    },
  },
  {
    name: "a pod bound to a node is deleted gracefully; grace 0 and unscheduled pods go at once",
    async run({ client, ns }) {
      const pod = (name: string, nodeName?: string) => ({
        metadata: { name, namespace: ns },
        spec: { ...(nodeName ? { nodeName } : {}), containers: [{ name: "c", image: "busybox" }] },
      });
      await client.create<KubeObject>(CoreTypes.Pod, pod("bound", "conformance-absent-node"), { namespace: ns });
      await client.delete(CoreTypes.Pod, "bound", { namespace: ns });
      const held = await client.get(CoreTypes.Pod, "bound", { namespace: ns });
      assert.ok(held.metadata.deletionTimestamp, "deletionTimestamp set");
      assert.equal(held.metadata.deletionGracePeriodSeconds, 30);
      await client.delete(CoreTypes.Pod, "bound", { namespace: ns, gracePeriodSeconds: 5 });
      const shorter = await client.get(CoreTypes.Pod, "bound", { namespace: ns });
      assert.equal(shorter.metadata.deletionGracePeriodSeconds, 5, "a later delete shortens the grace period");
      await client.delete(CoreTypes.Pod, "bound", { namespace: ns, gracePeriodSeconds: 0 });
      await expectError(client.get(CoreTypes.Pod, "bound", { namespace: ns }), isNotFound, "pod after grace 0");
      await client.create<KubeObject>(CoreTypes.Pod, pod("unbound"), { namespace: ns });
      await client.delete(CoreTypes.Pod, "unbound", { namespace: ns });
      await expectError(client.get(CoreTypes.Pod, "unbound", { namespace: ns }), isNotFound, "unscheduled pod");
    },
  },
  {
    name: "finalizers hold deletion with deletionTimestamp until removed",
    async run({ client, ns }) {
      await client.create<KubeObject>(CoreTypes.ConfigMap, {
        metadata: { name: "fin", namespace: ns, finalizers: ["conformance.kubeop.dev/hold"] },
      }, { namespace: ns });
      await client.delete(CoreTypes.ConfigMap, "fin", { namespace: ns });
      const held = await client.get(CoreTypes.ConfigMap, "fin", { namespace: ns });
      assert.ok(held.metadata.deletionTimestamp, "deletionTimestamp set");
      assert.deepEqual(held.metadata.finalizers, ["conformance.kubeop.dev/hold"]);
      await client.patch(CoreTypes.ConfigMap, "fin", { metadata: { finalizers: null } }, {
        namespace: ns,
        type: "merge",
      });
      await eventually("finalized object gone", async () => {
        try {
          await client.get(CoreTypes.ConfigMap, "fin", { namespace: ns });
          return undefined;
        } catch (err) {
          return isNotFound(err) ? true : undefined;
        }
      }, POLL);
    },
  },
  {
    name: "garbage collection deletes dependents of a deleted owner",
    async run({ client, ns }) {
      const owner = await client.create<KubeObject>(
        CoreTypes.ConfigMap,
        { metadata: { name: "owner", namespace: ns } },
        {
          namespace: ns,
        },
      );
      await client.create<KubeObject>(CoreTypes.Secret, {
        metadata: {
          name: "dependent",
          namespace: ns,
          ownerReferences: [{ apiVersion: "v1", kind: "ConfigMap", name: "owner", uid: owner.metadata.uid! }],
        },
        type: "Opaque",
      }, { namespace: ns });
      await client.delete(CoreTypes.ConfigMap, "owner", { namespace: ns });
      await eventually("dependent collected", async () => {
        try {
          await client.get(CoreTypes.Secret, "dependent", { namespace: ns });
          return undefined;
        } catch (err) {
          return isNotFound(err) ? true : undefined;
        }
      }, { ...POLL, timeoutMs: 60_000 });
    },
  },
  {
    name: "a Terminating namespace refuses new objects with 403, then disappears",
    async run({ client, ns }) {
      const doomed = `${ns}-doomed`;
      await client.create<KubeObject>(CoreTypes.Namespace, { metadata: { name: doomed } });
      await client.create<KubeObject>(CoreTypes.ConfigMap, {
        metadata: { name: "keep", namespace: doomed, finalizers: ["conformance.kubeop.dev/hold"] },
      }, { namespace: doomed });
      await client.delete(CoreTypes.Namespace, doomed);
      const nsObj = await client.get<Namespace>(CoreTypes.Namespace, doomed);
      assert.equal(nsObj.status?.phase, "Terminating");
      const forbidden = await expectError(
        client.create<KubeObject>(CoreTypes.ConfigMap, { metadata: { name: "late", namespace: doomed } }, {
          namespace: doomed,
        }),
        isForbidden,
        "create in terminating namespace",
      );
      assert.match(forbidden.status.message!, /because it is being terminated/);
      await eventually("finalizer-held object marked for deletion", async () => {
        const keep = await client.get(CoreTypes.ConfigMap, "keep", { namespace: doomed });
        return keep.metadata.deletionTimestamp ? true : undefined;
      }, { ...POLL, timeoutMs: 60_000 });
      await client.patch(CoreTypes.ConfigMap, "keep", { metadata: { finalizers: null } }, {
        namespace: doomed,
        type: "merge",
      });
      await eventually("namespace gone", async () => {
        try {
          await client.get(CoreTypes.Namespace, doomed);
          return undefined;
        } catch (err) {
          return isNotFound(err) ? true : undefined;
        }
      }, { ...POLL, timeoutMs: 90_000 });
    },
  },
];
