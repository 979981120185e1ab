/**
 * Conformance cases: namespace termination as kube-apiserver's NamespaceLifecycle plugin and kube-controller-manager's
 * namespace controller (pkg/controller/namespace/deletion) do it — the immortal namespaces, the 403 with the
 * NamespaceTerminating cause, the five deletion conditions while content remains and after it is gone, pods going
 * first. Each namespace is named after the run's.
 * @module
 */
import assert from "node:assert/strict";
import type { KubeClient } from "../../runtime/client/client.ts";
import { isNotFound } from "../../runtime/client/errors.ts";
import { CoreTypes } from "../../runtime/types.ts";
import { eventually } from "../../testing/eventually.ts";
import type { Unstructured as KubeObject } from "../../testing/apiserver/unstructured.ts";
import { assertStatus, expectStatus, rawJson } from "./status_assert.ts";
import { type ConformanceCase, FINALIZE, POLL } from "./support.ts";

const HOLD = "conformance.kubeop.dev/hold";
const ALSO = "conformance.kubeop.dev/also";
const EXTRA = "conformance.kubeop.dev/extra";

/** One namespace condition as the cases compare it (lastTransitionTime aside). */
type Condition = { type: string; status: string; reason: string; message: string };

/** kube's five conditions, each in its "ok" form unless `over` replaces it. */
function conditions(over: Record<string, Omit<Condition, "type">> = {}): Condition[] {
  const ok: Array<[string, string, string]> = [
    ["NamespaceDeletionDiscoveryFailure", "ResourcesDiscovered", "All resources successfully discovered"],
    ["NamespaceDeletionGroupVersionParsingFailure", "ParsedGroupVersions", "All legacy kube types successfully parsed"],
    [
      "NamespaceDeletionContentFailure",
      "ContentDeleted",
      "All content successfully deleted, may be waiting on finalization",
    ],
    ["NamespaceContentRemaining", "ContentRemoved", "All content successfully removed"],
    ["NamespaceFinalizersRemaining", "ContentHasNoFinalizers", "All content-preserving finalizers finished"],
  ];
  return ok.map(([type, reason, message]) => ({ type, ...(over[type] ?? { status: "False", reason, message }) }));
}

/** The namespace's conditions once they equal `want` (the controller writes them shortly after the delete). */
async function awaitConditions(client: KubeClient, name: string, want: Condition[], what: string): Promise<KubeObject> {
  let last: unknown;
  try {
    return await eventually(what, async () => {
      const ns = await client.get<KubeObject>(CoreTypes.Namespace, name);
      last = (ns.status?.conditions ?? []).map((c: Condition) => ({
        type: c.type,
        status: c.status,
        reason: c.reason,
        message: c.message,
      }));
      return JSON.stringify(last) === JSON.stringify(want) ? ns : undefined;
    }, { ...POLL, timeoutMs: 60_000 });
  } catch (err) {
    assert.deepEqual(last, want, `${what}: ${err}`);
    throw err;
  }
}

/** Creates `name` (with `specFinalizers` through /finalize when given). */
async function createNamespace(client: KubeClient, name: string, specFinalizers?: string[]): Promise<void> {
  const created = await client.create<KubeObject>(CoreTypes.Namespace, { metadata: { name } });
  if (specFinalizers) {
    await client.update(CoreTypes.Namespace, { ...created, spec: { finalizers: specFinalizers } }, {
      subresource: FINALIZE,
    });
  }
}

const gone = (client: KubeClient, name: string) =>
  eventually(`namespace ${name} gone`, async () => {
    try {
      await client.get(CoreTypes.Namespace, name);
      return undefined;
    } catch (err) {
      return isNotFound(err) ? true : undefined;
    }
  }, { ...POLL, timeoutMs: 90_000 });

/** Namespace termination: NamespaceLifecycle and the namespace controller's conditions. */
export const namespaceTerminationCases: ConformanceCase[] = [
  {
    name: "namespaces default, kube-system and kube-public may not be deleted (403, also on a dry run)",
    async run({ client }) {
      for (const name of ["default", "kube-system", "kube-public"]) {
        // A dry run only: were the refusal missing, the namespace would stay.
        const { code, body } = await rawJson(client, "DELETE", `/api/v1/namespaces/${name}`, {
          query: { dryRun: "All" },
        });
        assert.equal(code, 403, JSON.stringify(body));
        assertStatus(body, {
          code: 403,
          reason: "Forbidden",
          message: `namespaces "${name}" is forbidden: this namespace may not be deleted`,
        }, name);
        assert.deepEqual(body.details, { name, kind: "namespaces" });
      }
    },
  },
  {
    name: "a Terminating namespace's content with finalizers: the five deletion conditions, counts by resource",
    async run({ client, ns }) {
      const name = `${ns}-term`;
      await createNamespace(client, name, ["kubernetes", EXTRA]);
      for (const cm of ["held-1", "held-2"]) {
        await client.create(CoreTypes.ConfigMap, { metadata: { name: cm, namespace: name, finalizers: [HOLD] } }, {
          namespace: name,
        });
      }
      await client.create(CoreTypes.Secret, {
        metadata: { name: "held", namespace: name, finalizers: [HOLD, ALSO] },
        type: "Opaque",
      }, { namespace: name });
      await client.create(CoreTypes.ConfigMap, { metadata: { name: "plain", namespace: name } }, { namespace: name });
      await client.delete(CoreTypes.Namespace, name);
      await awaitConditions(
        client,
        name,
        conditions({
          NamespaceContentRemaining: {
            status: "True",
            reason: "SomeResourcesRemain",
            message:
              "Some resources are remaining: configmaps. has 2 resource instances, secrets. has 1 resource instances",
          },
          NamespaceFinalizersRemaining: {
            status: "True",
            reason: "SomeFinalizersRemain",
            message: `Some content in the namespace has finalizers remaining: ${ALSO} in 1 resource instances, ` +
              `${HOLD} in 3 resource instances`,
          },
        }),
        "conditions with content remaining",
      );
      const held = await client.get(CoreTypes.ConfigMap, "held-1", { namespace: name });
      assert.ok(held.metadata.deletionTimestamp, "held content is marked for deletion");
      await expectStatus(client.get(CoreTypes.ConfigMap, "plain", { namespace: name }), {
        code: 404,
        reason: "NotFound",
        message: `configmaps "plain" not found`,
      }, "content without finalizers is gone");
    },
  },
  {
    name: "a create in a Terminating namespace is 403 with a NamespaceTerminating cause",
    async run({ client, ns }) {
      const name = `${ns}-term`;
      const status = await expectStatus(
        client.create(CoreTypes.ConfigMap, { metadata: { name: "late", namespace: name } }, { namespace: name }),
        {
          code: 403,
          reason: "Forbidden",
          message: `configmaps "late" is forbidden: unable to create new content in namespace ${name} because it is ` +
            `being terminated`,
          causes: [{
            reason: "NamespaceTerminating",
            message: `namespace ${name} is being terminated`,
            field: "metadata.namespace",
          }],
        },
        "create in a terminating namespace",
      );
      assert.deepEqual([status.details?.name, status.details?.kind], ["late", "configmaps"]);
    },
  },
  {
    name: "a Terminating namespace still admits updates of its content and answers a second DELETE unchanged",
    async run({ client, ns }) {
      const name = `${ns}-term`;
      const labelled = await client.patch(CoreTypes.ConfigMap, "held-1", { metadata: { labels: { still: "ok" } } }, {
        namespace: name,
        type: "merge",
      });
      assert.deepEqual(labelled.metadata.labels, { still: "ok" });
      const before = await client.get<KubeObject>(CoreTypes.Namespace, name);
      const { code, body } = await rawJson(client, "DELETE", `/api/v1/namespaces/${name}`);
      assert.equal(code, 200, JSON.stringify(body));
      assert.deepEqual(
        [body.metadata.deletionTimestamp, body.status.phase, body.spec.finalizers],
        [before.metadata.deletionTimestamp, "Terminating", before.spec?.finalizers],
      );
    },
  },
  {
    name: "kube-node-lease is not immortal: a dry-run DELETE is admitted and answers it Terminating",
    async run({ client }) {
      const { code, body } = await rawJson(client, "DELETE", "/api/v1/namespaces/kube-node-lease", {
        query: { dryRun: "All" },
      });
      assert.equal(code, 200, JSON.stringify(body));
      assert.equal(body.status.phase, "Terminating");
      assert.ok(body.metadata.deletionTimestamp, "marked in the answer");
      const stored = await client.get<KubeObject>(CoreTypes.Namespace, "kube-node-lease");
      assert.deepEqual([stored.metadata.deletionTimestamp, stored.status?.phase], [undefined, "Active"]);
    },
  },
  {
    name: "once content is gone the controller drops its kubernetes finalizer; another keeps it, conditions all False",
    async run({ client, ns }) {
      const name = `${ns}-term`;
      for (
        const [rt, obj] of [[CoreTypes.ConfigMap, "held-1"], [CoreTypes.ConfigMap, "held-2"], [
          CoreTypes.Secret,
          "held",
        ]] as const
      ) {
        await client.patch(rt, obj, { metadata: { finalizers: null } }, { namespace: name, type: "merge" });
      }
      const finished = await awaitConditions(client, name, conditions(), "conditions once content is gone");
      await eventually("kubernetes finalizer removed", async () => {
        const nsObj = await client.get<KubeObject>(CoreTypes.Namespace, name);
        return JSON.stringify(nsObj.spec?.finalizers) === JSON.stringify([EXTRA]) ? nsObj : undefined;
      }, { ...POLL, timeoutMs: 60_000 });
      assert.equal(finished.status?.phase, "Terminating");
      const current = await client.get<KubeObject>(CoreTypes.Namespace, name);
      await client.update(CoreTypes.Namespace, { ...current, spec: { finalizers: [] } }, { subresource: FINALIZE });
      await gone(client, name);
    },
  },
  {
    name: "pods go first: while a pod waits out its grace period nothing else is deleted; the conditions all read ok",
    async run({ client, ns }) {
      const name = `${ns}-pods`;
      await createNamespace(client, name);
      await client.create(CoreTypes.ConfigMap, { metadata: { name: "later", namespace: name } }, { namespace: name });
      await client.create(CoreTypes.Pod, {
        metadata: { name: "bound", namespace: name },
        spec: {
          nodeName: "conformance-absent-node",
          automountServiceAccountToken: false,
          containers: [{ name: "c", image: "busybox:1.36" }],
        },
      }, { namespace: name });
      await client.delete(CoreTypes.Namespace, name);
      // kube counts pods in no condition (only an error after their grace period): all five read "ok".
      await awaitConditions(client, name, conditions(), "conditions while the pod terminates");
      const pod = await client.get(CoreTypes.Pod, "bound", { namespace: name });
      assert.ok(pod.metadata.deletionTimestamp, "the pod is terminating");
      const later = await client.get(CoreTypes.ConfigMap, "later", { namespace: name });
      assert.equal(later.metadata.deletionTimestamp, undefined, "other content waits for the pods");
      await client.delete(CoreTypes.Pod, "bound", { namespace: name, gracePeriodSeconds: 0 });
    },
  },
  {
    name:
      "a pod still there once its grace period since the namespace's deletion is over: NamespaceDeletionContentFailure",
    async run({ client, ns }) {
      const name = `${ns}-stuck`;
      await createNamespace(client, name);
      await client.create(CoreTypes.ConfigMap, { metadata: { name: "later", namespace: name } }, { namespace: name });
      await client.create(CoreTypes.Pod, {
        metadata: { name: "stuck", namespace: name },
        spec: {
          nodeName: "conformance-absent-node",
          terminationGracePeriodSeconds: 1,
          automountServiceAccountToken: false,
          containers: [{ name: "c", image: "busybox:1.36" }],
        },
      }, { namespace: name });
      await client.delete(CoreTypes.Namespace, name);
      // No kubelet confirms the pod's deletion: after kube's estimate (its 1 s grace period) the pass fails on it.
      const failed = {
        status: "True",
        reason: "ContentDeletionFailed",
        message:
          `Failed to delete all resource types, 1 remaining: unexpected items still remain in namespace: ${name} ` +
          "for gvr: /v1, Resource=pods",
      };
      await awaitConditions(client, name, conditions({ NamespaceDeletionContentFailure: failed }), "content failure");
      const later = await client.get(CoreTypes.ConfigMap, "later", { namespace: name });
      assert.equal(later.metadata.deletionTimestamp, undefined, "other content still waits for the pods");
      // Once the pod is gone the pass goes on: the failure clears and the namespace goes.
      await client.delete(CoreTypes.Pod, "stuck", { namespace: name, gracePeriodSeconds: 0 });
      await gone(client, name);
    },
  },
];
