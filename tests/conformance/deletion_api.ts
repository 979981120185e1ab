/**
 * Conformance cases: what DELETE answers and the garbage collector's finalizers, as kube-apiserver v1.37 and
 * kube-controller-manager do — a Status when the object went at once (unless the resource returns deleted objects),
 * the object while finalizers hold it, propagation finalizers, owner-reference pruning, option validation.
 * @module
 */
import assert from "node:assert/strict";
import { isNotFound } from "../../runtime/client/errors.ts";
import { CoreTypes, type KubeObject } from "../../runtime/types.ts";
import { eventually } from "../../testing/eventually.ts";
import { type ConformanceCase, POLL } from "./support.ts";
import { cause, rawJson } from "./status_assert.ts";

const gone = (p: Promise<unknown>) =>
  p.then(() => undefined, (err) => {
    if (isNotFound(err)) return true;
    throw err;
  });

/** DELETE answers, finalizers of the propagation policies, owner-reference pruning, DeleteOptions validation. */
export const deletionApiCases: ConformanceCase[] = [
  {
    name: "DELETE of an object that goes at once answers a Status Success naming it",
    async run({ client, ns }) {
      const cm = await client.create<KubeObject>(CoreTypes.ConfigMap, { metadata: { name: "del-st", namespace: ns } }, {
        namespace: ns,
      });
      const res = await rawJson(client, "DELETE", `/api/v1/namespaces/${ns}/configmaps/del-st`);
      assert.deepEqual([res.code, res.body], [200, {
        kind: "Status",
        apiVersion: "v1",
        metadata: {},
        status: "Success",
        details: { name: "del-st", kind: "configmaps", uid: cm.metadata.uid },
      }]);
      const role = await client.create<KubeObject>(
        {
          group: "rbac.authorization.k8s.io",
          version: "v1",
          plural: "roles",
          kind: "Role",
          namespaced: true,
        },
        { metadata: { name: "del-st", namespace: ns } },
        { namespace: ns },
      );
      const r = await rawJson(client, "DELETE", `/apis/rbac.authorization.k8s.io/v1/namespaces/${ns}/roles/del-st`);
      assert.deepEqual(r.body.details, {
        name: "del-st",
        group: "rbac.authorization.k8s.io",
        kind: "roles",
        uid: role.metadata.uid,
      });
    },
  },
  {
    name: "DELETE of an object a finalizer holds answers the object with deletionTimestamp, again on a second DELETE",
    async run({ client, ns }) {
      await client.create<KubeObject>(CoreTypes.ConfigMap, {
        metadata: { name: "del-fin", namespace: ns, finalizers: ["example.com/hold"] },
      }, { namespace: ns });
      const path = `/api/v1/namespaces/${ns}/configmaps/del-fin`;
      const first = await rawJson(client, "DELETE", path);
      assert.equal(first.code, 200);
      assert.equal(first.body.kind, "ConfigMap");
      assert.ok(first.body.metadata.deletionTimestamp);
      assert.deepEqual([first.body.metadata.deletionGracePeriodSeconds, first.body.metadata.finalizers], [0, [
        "example.com/hold",
      ]]);
      const second = await rawJson(client, "DELETE", path);
      assert.deepEqual([second.code, second.body.kind, second.body.metadata.resourceVersion], [
        200,
        "ConfigMap",
        first.body.metadata.resourceVersion,
      ]);
      await client.patch(CoreTypes.ConfigMap, "del-fin", { metadata: { finalizers: null } }, {
        namespace: ns,
        type: "merge",
      });
    },
  },
  {
    name: "Pods, Services and ServiceAccounts answer DELETE with the deleted object, not a Status",
    async run({ client, ns }) {
      await client.create<KubeObject>(CoreTypes.Pod, {
        metadata: { name: "del-obj", namespace: ns },
        spec: { containers: [{ name: "c", image: "busybox" }] },
      }, { namespace: ns });
      const pod = await rawJson(client, "DELETE", `/api/v1/namespaces/${ns}/pods/del-obj`);
      assert.deepEqual([pod.code, pod.body.kind, pod.body.metadata.deletionGracePeriodSeconds], [200, "Pod", 0]);
      assert.ok(pod.body.metadata.deletionTimestamp);
      await client.create<KubeObject>(CoreTypes.Service, {
        metadata: { name: "del-obj", namespace: ns },
        spec: { ports: [{ port: 80 }] },
      }, { namespace: ns });
      const svc = await rawJson(client, "DELETE", `/api/v1/namespaces/${ns}/services/del-obj`);
      assert.deepEqual([svc.code, svc.body.kind, svc.body.metadata.name], [200, "Service", "del-obj"]);
      await client.request("POST", `/api/v1/namespaces/${ns}/serviceaccounts`, {
        body: { metadata: { name: "del-obj" } },
        throwOnError: true,
      });
      const sa = await rawJson(client, "DELETE", `/api/v1/namespaces/${ns}/serviceaccounts/del-obj`);
      assert.deepEqual([sa.code, sa.body.kind], [200, "ServiceAccount"]);
    },
  },
  {
    name: "foreground deletion adds the foregroundDeletion finalizer (200), the collector then removes the object",
    async run({ client, ns }) {
      await client.create<KubeObject>(CoreTypes.ConfigMap, { metadata: { name: "del-fg", namespace: ns } }, {
        namespace: ns,
      });
      const res = await rawJson(client, "DELETE", `/api/v1/namespaces/${ns}/configmaps/del-fg`, {
        body: { propagationPolicy: "Foreground" },
      });
      assert.deepEqual([res.code, res.body.kind, res.body.metadata.finalizers], [200, "ConfigMap", [
        "foregroundDeletion",
      ]]);
      assert.ok(res.body.metadata.deletionTimestamp);
      await eventually(
        "foreground owner gone",
        () => gone(client.get(CoreTypes.ConfigMap, "del-fg", { namespace: ns })),
        {
          ...POLL,
          timeoutMs: 60_000,
        },
      );
    },
  },
  {
    name: "orphan deletion adds the orphan finalizer; dependents keep living without the ownerReference",
    async run({ client, ns }) {
      const owner = await client.create<KubeObject>(CoreTypes.ConfigMap, {
        metadata: { name: "del-orph", namespace: ns },
      }, {
        namespace: ns,
      });
      await client.create<KubeObject>(CoreTypes.ConfigMap, {
        metadata: {
          name: "del-orph-dep",
          namespace: ns,
          ownerReferences: [{ apiVersion: "v1", kind: "ConfigMap", name: "del-orph", uid: owner.metadata.uid! }],
        },
      }, { namespace: ns });
      const res = await rawJson(client, "DELETE", `/api/v1/namespaces/${ns}/configmaps/del-orph`, {
        body: { propagationPolicy: "Orphan" },
      });
      assert.deepEqual([res.code, res.body.metadata.finalizers], [200, ["orphan"]]);
      await eventually("owner gone", () => gone(client.get(CoreTypes.ConfigMap, "del-orph", { namespace: ns })), {
        ...POLL,
        timeoutMs: 60_000,
      });
      const dep = await client.get(CoreTypes.ConfigMap, "del-orph-dep", { namespace: ns });
      assert.equal(dep.metadata.ownerReferences, undefined);
    },
  },
  {
    name: "the collector removes references to vanished owners from dependents that keep a live owner",
    async run({ client, ns }) {
      const mk = (name: string, ownerReferences?: unknown[]) =>
        client.create<KubeObject>(
          CoreTypes.ConfigMap,
          { metadata: { name, namespace: ns, ownerReferences } } as KubeObject,
          {
            namespace: ns,
          },
        );
      const o1 = await mk("del-o1");
      const o2 = await mk("del-o2");
      const ref = (o: KubeObject) => ({
        apiVersion: "v1",
        kind: "ConfigMap",
        name: o.metadata.name,
        uid: o.metadata.uid,
      });
      await mk("del-two-owners", [ref(o1), ref(o2)]);
      const ghost = {
        apiVersion: "v1",
        kind: "ConfigMap",
        name: "del-ghost",
        uid: "11111111-1111-1111-1111-111111111111",
      };
      await mk("del-ghost-dep", [ghost, ref(o2)]);
      await client.delete(CoreTypes.ConfigMap, "del-o1", { namespace: ns });
      for (const name of ["del-two-owners", "del-ghost-dep"]) {
        const refs = await eventually(`${name} pruned`, async () => {
          const dep = await client.get(CoreTypes.ConfigMap, name, { namespace: ns });
          return dep.metadata.ownerReferences?.length === 1 ? dep.metadata.ownerReferences : undefined;
        }, { ...POLL, timeoutMs: 60_000 });
        assert.deepEqual(refs, [ref(o2)]);
      }
    },
  },
  {
    name: "deletecollection of namespaces is not allowed (405); of configmaps it answers the items as they were",
    async run({ client, ns }) {
      const res = await rawJson(client, "DELETE", "/api/v1/namespaces");
      assert.deepEqual([res.code, res.body], [405, {
        kind: "Status",
        apiVersion: "v1",
        metadata: {},
        status: "Failure",
        message: "the server does not allow this method on the requested resource",
        reason: "MethodNotAllowed",
        details: {},
        code: 405,
      }]);
      for (const name of ["del-coll-a", "del-coll-b"]) {
        await client.create<KubeObject>(CoreTypes.ConfigMap, {
          metadata: { name, namespace: ns, labels: { coll: "yes" } },
        }, { namespace: ns });
      }
      const coll = await rawJson(client, "DELETE", `/api/v1/namespaces/${ns}/configmaps`, {
        query: { labelSelector: "coll=yes" },
      });
      assert.equal(coll.code, 200);
      assert.equal(coll.body.kind, "ConfigMapList");
      assert.deepEqual(
        coll.body.items.map((o: KubeObject) => [o.metadata.name, o.metadata.deletionTimestamp ?? "live"]),
        [["del-coll-a", "live"], ["del-coll-b", "live"]],
      );
      assert.equal(
        (await client.list(CoreTypes.ConfigMap, { namespace: ns, labelSelector: "coll=yes" })).items.length,
        0,
      );
    },
  },
  {
    name: "delete preconditions: a uid or resourceVersion mismatch is 409 naming the kind",
    async run({ client, ns }) {
      const cm = await client.create<KubeObject>(
        CoreTypes.ConfigMap,
        { metadata: { name: "del-pre", namespace: ns } },
        {
          namespace: ns,
        },
      );
      const path = `/api/v1/namespaces/${ns}/configmaps/del-pre`;
      const wrong = "00000000-0000-0000-0000-000000000000";
      const uid = await rawJson(client, "DELETE", path, { body: { preconditions: { uid: wrong } } });
      assert.deepEqual([uid.code, uid.body.reason, uid.body.message, uid.body.details], [
        409,
        "Conflict",
        `Operation cannot be fulfilled on ConfigMap "del-pre": the UID in the precondition (${wrong}) does not match the UID in record (${cm.metadata.uid}). The object might have been deleted and then recreated`,
        { name: "del-pre", kind: "ConfigMap" },
      ]);
      const rv = await rawJson(client, "DELETE", path, { body: { preconditions: { resourceVersion: "1" } } });
      assert.deepEqual([rv.code, rv.body.message], [
        409,
        `Operation cannot be fulfilled on ConfigMap "del-pre": the ResourceVersion in the precondition (1) does not match the ResourceVersion in record (${cm.metadata.resourceVersion}). The object might have been modified`,
      ]);
      const ok = await rawJson(client, "DELETE", path, {
        body: { preconditions: { uid: cm.metadata.uid, resourceVersion: cm.metadata.resourceVersion } },
      });
      assert.deepEqual([ok.code, ok.body.status], [200, "Success"]);
    },
  },
  {
    name: "DeleteOptions: an unknown propagationPolicy, one with orphanDependents, or a bad dryRun are 422",
    async run({ client, ns }) {
      await client.create<KubeObject>(CoreTypes.ConfigMap, { metadata: { name: "del-opts", namespace: ns } }, {
        namespace: ns,
      });
      const path = `/api/v1/namespaces/${ns}/configmaps/del-opts`;
      const invalid = async (
        body: Record<string, unknown> | undefined,
        query: Record<string, string>,
        field: string,
        r: string,
        m: string,
      ) => {
        const res = await rawJson(client, "DELETE", path, { body, query });
        assert.deepEqual([res.code, res.body.reason, res.body.message, res.body.details], [
          422,
          "Invalid",
          `DeleteOptions.meta.k8s.io "" is invalid: ${field}: ${m}`,
          { group: "meta.k8s.io", kind: "DeleteOptions", causes: [cause(r, field, m)] },
        ]);
      };
      await invalid(
        { propagationPolicy: "Bogus" },
        {},
        "propagationPolicy",
        "FieldValueNotSupported",
        'Unsupported value: "Bogus": supported values: "Foreground", "Background", "Orphan", "nil"',
      );
      await invalid(
        { propagationPolicy: "Orphan", orphanDependents: true },
        {},
        "propagationPolicy",
        "FieldValueInvalid",
        'Invalid value: "Orphan": orphanDependents and deletionPropagation cannot be both set',
      );
      const badDryRun = 'Unsupported value: ["Bogus"]: supported values: "All"';
      // The query counts only without a body (kube decodes DeleteOptions from one or the other).
      await invalid(undefined, { dryRun: "Bogus" }, "dryRun", "FieldValueNotSupported", badDryRun);
      await invalid({ dryRun: ["Bogus"] }, {}, "dryRun", "FieldValueNotSupported", badDryRun);
      assert.ok(await client.get(CoreTypes.ConfigMap, "del-opts", { namespace: ns }), "still there");
    },
  },
];
