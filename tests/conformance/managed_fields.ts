/**
 * Conformance cases: managedFields as kube-apiserver records them beyond a client's own writes — writes through the
 * scale and status subresources, objects stored without entries, the server's and kube-controller-manager's own
 * writes (CRD status, ClusterRole aggregation, the garbage collector), deletes, and TokenRequests.
 * @module
 */
import assert from "node:assert/strict";
import { eventually } from "../../testing/eventually.ts";
import type { ManagedFieldsEntry } from "../../runtime/apimachinery/managed_fields.ts";
import { CoreTypes, type KubeObject } from "../../runtime/types.ts";
import { rawJson } from "./status_assert.ts";
import { type ConformanceCase, POLL } from "./support.ts";

const MERGE = "application/merge-patch+json";
const deployments = (ns: string) => `/apis/apps/v1/namespaces/${ns}/deployments`;
const configMaps = (ns: string) => `/api/v1/namespaces/${ns}/configmaps`;

/** A Deployment `name` with 1 replica, created by manager `creator`. */
function deployment(name: string) {
  const labels = { app: name };
  return {
    apiVersion: "apps/v1",
    kind: "Deployment",
    metadata: { name },
    spec: {
      replicas: 1,
      selector: { matchLabels: labels },
      template: { metadata: { labels }, spec: { containers: [{ name: "c", image: "registry.k8s.io/pause:3.10" }] } },
    },
  };
}

/** `manager/operation/subresource` of each entry, in the stored order. */
const ids = (entries: ManagedFieldsEntry[] | undefined) =>
  (entries ?? []).map((e) => `${e.manager}/${e.operation}/${e.subresource ?? ""}`);

const entryOf = (entries: ManagedFieldsEntry[] | undefined, manager: string, subresource?: string) =>
  (entries ?? []).find((e) => e.manager === manager && (e.subresource ?? "") === (subresource ?? ""));

/** managedFields of subresource writes, untracked objects and the control plane's own writes. */
export const managedFieldsCases: ConformanceCase[] = [
  {
    name: "a scale write: the writer's entry has subresource scale, no time, owns spec.replicas; others lose it",
    async run({ client, ns }) {
      const created = await rawJson(client, "POST", deployments(ns), {
        body: JSON.stringify(deployment("mf-scale")),
        query: { fieldManager: "creator" },
      });
      assert.equal(created.code, 201, JSON.stringify(created.body));
      const path = `${deployments(ns)}/mf-scale/scale`;
      const scaled = await rawJson(client, "PATCH", path, {
        body: JSON.stringify({ spec: { replicas: 3 } }),
        contentType: MERGE,
        query: { fieldManager: "scaler" },
      });
      assert.equal(scaled.code, 200, JSON.stringify(scaled.body));
      assert.equal(scaled.body.kind, "Scale");
      assert.equal(scaled.body.metadata.managedFields, undefined, "a Scale carries no managedFields");
      const got = await rawJson(client, "GET", `${deployments(ns)}/mf-scale`);
      const entries: ManagedFieldsEntry[] = got.body.metadata.managedFields;
      assert.deepEqual(ids(entries), ["scaler/Update/scale", "creator/Update/"], JSON.stringify(entries));
      const scaler = entryOf(entries, "scaler", "scale")!;
      assert.deepEqual(scaler, {
        manager: "scaler",
        operation: "Update",
        apiVersion: "apps/v1",
        fieldsType: "FieldsV1",
        fieldsV1: { "f:spec": { "f:replicas": {} } },
        subresource: "scale",
      });
      const creator = entryOf(entries, "creator")!;
      assert.equal((creator.fieldsV1 as { "f:spec": Record<string, unknown> })["f:spec"]["f:replicas"], undefined);
      // Another scale writer takes replicas over: the first scale entry, now empty, goes.
      const again = await rawJson(client, "PUT", path, {
        body: JSON.stringify({
          apiVersion: "autoscaling/v1",
          kind: "Scale",
          metadata: { name: "mf-scale", namespace: ns },
          spec: { replicas: 2 },
        }),
        query: { fieldManager: "hpa" },
      });
      assert.equal(again.code, 200, JSON.stringify(again.body));
      const after = await rawJson(client, "GET", `${deployments(ns)}/mf-scale`);
      assert.deepEqual(ids(after.body.metadata.managedFields), ["hpa/Update/scale", "creator/Update/"]);
    },
  },
  {
    name: "a status write records the writer's entry with subresource status (its time set)",
    async run({ client, ns }) {
      await rawJson(client, "POST", deployments(ns), {
        body: JSON.stringify(deployment("mf-status")),
        query: { fieldManager: "creator" },
      });
      const patched = await rawJson(client, "PATCH", `${deployments(ns)}/mf-status/status`, {
        body: JSON.stringify({ status: { observedGeneration: 1 } }),
        contentType: MERGE,
        query: { fieldManager: "statuser" },
      });
      assert.equal(patched.code, 200, JSON.stringify(patched.body));
      const entry = entryOf(patched.body.metadata.managedFields, "statuser", "status");
      assert.ok(entry, JSON.stringify(patched.body.metadata.managedFields));
      assert.deepEqual(entry.fieldsV1, { "f:status": { "f:observedGeneration": {} } });
      assert.equal(typeof entry.time, "string");
      // A subresource write's body cannot replace the entries: the stored ones are kept.
      const bogus = {
        manager: "bogus",
        operation: "Update",
        apiVersion: "apps/v1",
        fieldsType: "FieldsV1",
        fieldsV1: {},
      };
      const body = { ...patched.body, metadata: { ...patched.body.metadata, managedFields: [bogus] } };
      body.status = { ...body.status, observedGeneration: 2 };
      const put = await rawJson(client, "PUT", `${deployments(ns)}/mf-status/status`, {
        body: JSON.stringify(body),
        query: { fieldManager: "putter" },
      });
      assert.equal(put.code, 200, JSON.stringify(put.body));
      assert.deepEqual(ids(put.body.metadata.managedFields), ["creator/Update/", "putter/Update/status"]);
    },
  },
  {
    name: "a status write that changes labels owns them in its status entry (a built-in whose status keeps labels)",
    async run({ client, ns }) {
      const services = `/api/v1/namespaces/${ns}/services`;
      const created = await rawJson(client, "POST", services, {
        body: JSON.stringify({ metadata: { name: "mf-status-labels" }, spec: { ports: [{ port: 80 }] } }),
        query: { fieldManager: "creator" },
      });
      assert.equal(created.code, 201, JSON.stringify(created.body));
      const patched = await rawJson(client, "PATCH", `${services}/mf-status-labels/status`, {
        body: JSON.stringify({ metadata: { labels: { status: "patched" } } }),
        contentType: MERGE,
        query: { fieldManager: "statuser" },
      });
      assert.equal(patched.code, 200, JSON.stringify(patched.body));
      assert.equal(patched.body.metadata.labels?.status, "patched");
      const entry = entryOf(patched.body.metadata.managedFields, "statuser", "status");
      assert.ok(entry, JSON.stringify(patched.body.metadata.managedFields));
      assert.deepEqual(entry.fieldsV1, { "f:metadata": { "f:labels": { ".": {}, "f:status": {} } } });
    },
  },
  {
    name: "an object stored without managedFields stays untracked: later updates and patches record none",
    async run({ client, ns }) {
      // A ConfigMap with no fields to own is stored without entries.
      const created = await rawJson(client, "POST", configMaps(ns), {
        body: JSON.stringify({ metadata: { name: "mf-untracked" } }),
        query: { fieldManager: "creator" },
      });
      assert.equal(created.code, 201, JSON.stringify(created.body));
      assert.equal(created.body.metadata.managedFields, undefined);
      const patched = await rawJson(client, "PATCH", `${configMaps(ns)}/mf-untracked`, {
        body: JSON.stringify({ data: { a: "1" }, metadata: { finalizers: ["conformance.kubeop.dev/hold"] } }),
        contentType: MERGE,
        query: { fieldManager: "patcher" },
      });
      assert.equal(patched.code, 200, JSON.stringify(patched.body));
      assert.equal(patched.body.metadata.managedFields, undefined, JSON.stringify(patched.body.metadata));
      // A delete that adds the propagation finalizer records nothing either.
      const deleted = await rawJson(client, "DELETE", `${configMaps(ns)}/mf-untracked`, {
        body: JSON.stringify({ propagationPolicy: "Orphan" }),
      });
      assert.deepEqual(deleted.body.metadata.finalizers, ["conformance.kubeop.dev/hold", "orphan"]);
      assert.equal(deleted.body.metadata.managedFields, undefined);
      await rawJson(client, "PATCH", `${configMaps(ns)}/mf-untracked`, {
        body: JSON.stringify({ metadata: { finalizers: null } }),
        contentType: MERGE,
      });
    },
  },
  {
    name: "an empty managedFields list sent resets them: the object is stored, and stays, without entries",
    async run({ client, ns }) {
      await rawJson(client, "POST", configMaps(ns), {
        body: JSON.stringify({ metadata: { name: "mf-empty-list" }, data: { a: "1" } }),
        query: { fieldManager: "creator" },
      });
      const patched = await rawJson(client, "PATCH", `${configMaps(ns)}/mf-empty-list`, {
        body: JSON.stringify({ metadata: { managedFields: [] }, data: { b: "2" } }),
        contentType: MERGE,
        query: { fieldManager: "patcher" },
      });
      assert.equal(patched.code, 200, JSON.stringify(patched.body));
      assert.equal(patched.body.metadata.managedFields, undefined, JSON.stringify(patched.body.metadata));
      const later = await rawJson(client, "PATCH", `${configMaps(ns)}/mf-empty-list`, {
        body: JSON.stringify({ data: { c: "3" } }),
        contentType: MERGE,
        query: { fieldManager: "patcher" },
      });
      assert.equal(later.body.metadata.managedFields, undefined, JSON.stringify(later.body.metadata));
    },
  },
  {
    name: "a CRD's accepted status is kube-apiserver's entry with subresource status",
    async run({ client }) {
      const name = "mfgadgets.conformance.kubeop.dev";
      await client.create<KubeObject>(CoreTypes.CustomResourceDefinition, {
        metadata: { name },
        spec: {
          group: "conformance.kubeop.dev",
          scope: "Namespaced",
          names: { plural: "mfgadgets", singular: "mfgadget", kind: "MfGadget" },
          versions: [{
            name: "v1",
            served: true,
            storage: true,
            schema: { openAPIV3Schema: { type: "object", "x-kubernetes-preserve-unknown-fields": true } },
          }],
        },
      });
      try {
        const entry = await eventually("the CRD's status entry", async () => {
          const crd =
            (await rawJson(client, "GET", `/apis/apiextensions.k8s.io/v1/customresourcedefinitions/${name}`)).body;
          const established = (crd.status?.conditions ?? []).some((c: { type: string; status: string }) =>
            c.type === "Established" && c.status === "True"
          );
          return established && entryOf(crd.metadata.managedFields as ManagedFieldsEntry[], "kube-apiserver", "status");
        }, POLL);
        assert.equal(entry.operation, "Update");
        const status = (entry.fieldsV1 as Record<string, Record<string, Record<string, unknown>>>)["f:status"];
        assert.deepEqual(Object.keys(status).sort(), ["f:acceptedNames", "f:conditions"]);
        assert.ok(status["f:conditions"]['k:{"type":"Established"}'], JSON.stringify(status));
      } finally {
        await client.delete(CoreTypes.CustomResourceDefinition, name).catch(() => {});
      }
    },
  },
  {
    name: "ClusterRole aggregation is an Apply by clusterrole-aggregation-controller owning the rules",
    async run({ client, ns }) {
      const path = "/apis/rbac.authorization.k8s.io/v1/clusterroles";
      const label = `mf-${ns}`;
      const roles = [
        {
          metadata: { name: `${label}-agg` },
          aggregationRule: { clusterRoleSelectors: [{ matchLabels: { mf: label } }] },
        },
        {
          metadata: { name: `${label}-part`, labels: { mf: label } },
          rules: [{ apiGroups: [""], resources: ["pods"], verbs: ["get"] }],
        },
      ];
      try {
        for (const r of roles) {
          const made = await rawJson(client, "POST", path, {
            body: JSON.stringify(r),
            query: { fieldManager: "creator" },
          });
          assert.equal(made.code, 201, JSON.stringify(made.body));
        }
        const entries = await eventually("the aggregated rules", async () => {
          const got = await rawJson(client, "GET", `${path}/${label}-agg`);
          return (got.body.rules ?? []).length > 0 && got.body.metadata.managedFields as ManagedFieldsEntry[];
        }, POLL);
        assert.deepEqual(ids(entries), ["clusterrole-aggregation-controller/Apply/", "creator/Update/"]);
        assert.deepEqual(entryOf(entries, "clusterrole-aggregation-controller")!.fieldsV1, { "f:rules": {} });
      } finally {
        for (const r of roles) await rawJson(client, "DELETE", `${path}/${r.metadata.name}`);
      }
    },
  },
  {
    name: "the garbage collector's removal of an ownerReference drops it from every entry and adds none",
    async run({ client, ns }) {
      const owner = await rawJson(client, "POST", configMaps(ns), {
        body: JSON.stringify({ metadata: { name: "mf-owner" } }),
      });
      const ref = { apiVersion: "v1", kind: "ConfigMap", name: "mf-owner", uid: owner.body.metadata.uid };
      await rawJson(client, "POST", configMaps(ns), {
        body: JSON.stringify({ metadata: { name: "mf-dependent", ownerReferences: [ref] }, data: { a: "1" } }),
        query: { fieldManager: "creator" },
      });
      await rawJson(client, "DELETE", `${configMaps(ns)}/mf-owner`, {
        body: JSON.stringify({ propagationPolicy: "Orphan" }),
      });
      const dep = await eventually("the dependent orphaned", async () => {
        const got = await rawJson(client, "GET", `${configMaps(ns)}/mf-dependent`);
        return got.body.metadata.ownerReferences === undefined && got.body;
      }, POLL);
      assert.deepEqual(dep.metadata.managedFields.map((e: ManagedFieldsEntry) => [e.manager, e.fieldsV1]), [
        ["creator", { "f:data": { ".": {}, "f:a": {} } }],
      ]);
    },
  },
  {
    name: "a second delete while a graceful deletion is pending changes nothing: no propagation finalizer",
    async run({ client, ns }) {
      const pod = {
        metadata: { name: "mf-graceful" },
        spec: { nodeName: "mf-no-such-node", containers: [{ name: "c", image: "registry.k8s.io/pause:3.10" }] },
      };
      await rawJson(client, "POST", `/api/v1/namespaces/${ns}/pods`, { body: JSON.stringify(pod) });
      const path = `/api/v1/namespaces/${ns}/pods/mf-graceful`;
      const first = await rawJson(client, "DELETE", path);
      assert.equal(first.body.metadata.deletionGracePeriodSeconds, 30, JSON.stringify(first.body.metadata));
      const second = await rawJson(client, "DELETE", path, {
        body: JSON.stringify({ propagationPolicy: "Foreground" }),
      });
      assert.equal(second.code, 200, JSON.stringify(second.body));
      assert.equal(second.body.metadata.finalizers, undefined);
      assert.equal(second.body.metadata.resourceVersion, first.body.metadata.resourceVersion);
      await rawJson(client, "DELETE", path, { body: JSON.stringify({ gracePeriodSeconds: 0 }) });
    },
  },
  {
    name: "a TokenRequest answers with the requester's entry (subresource token) for the spec it sent, defaulted",
    async run({ client, ns }) {
      await rawJson(client, "POST", `/api/v1/namespaces/${ns}/serviceaccounts`, {
        body: JSON.stringify({ metadata: { name: "mf-token" } }),
      });
      const token = await rawJson(client, "POST", `/api/v1/namespaces/${ns}/serviceaccounts/mf-token/token`, {
        body: JSON.stringify({ apiVersion: "authentication.k8s.io/v1", kind: "TokenRequest", spec: {} }),
        query: { fieldManager: "requester" },
      });
      assert.equal(token.code, 201, JSON.stringify(token.body));
      const entries: ManagedFieldsEntry[] = token.body.metadata.managedFields;
      assert.deepEqual(entries.map((e) => ({ ...e, time: typeof e.time })), [{
        manager: "requester",
        operation: "Update",
        apiVersion: "authentication.k8s.io/v1",
        time: "string",
        fieldsType: "FieldsV1",
        fieldsV1: { "f:spec": { "f:expirationSeconds": {} } },
        subresource: "token",
      }]);
    },
  },
  {
    name: "the namespace controller's conditions are kube-controller-manager's status entry",
    async run({ client, ns }) {
      const name = `${ns}-mf`;
      await rawJson(client, "POST", "/api/v1/namespaces", { body: JSON.stringify({ metadata: { name } }) });
      const held = { metadata: { name: "held", finalizers: ["conformance.kubeop.dev/hold"] } };
      await rawJson(client, "POST", `/api/v1/namespaces/${name}/configmaps`, { body: JSON.stringify(held) });
      await rawJson(client, "DELETE", `/api/v1/namespaces/${name}`);
      const entry = await eventually("the controller's entry", async () => {
        const got = await rawJson(client, "GET", `/api/v1/namespaces/${name}`);
        const remaining = (got.body.status?.conditions ?? []).some((c: { type: string; status: string }) =>
          c.type === "NamespaceFinalizersRemaining" && c.status === "True"
        );
        return remaining && entryOf(got.body.metadata.managedFields, "kube-controller-manager", "status");
      }, { ...POLL, timeoutMs: 60_000 });
      const condition = {
        ".": {},
        "f:lastTransitionTime": {},
        "f:message": {},
        "f:reason": {},
        "f:status": {},
        "f:type": {},
      };
      const types = [
        "NamespaceContentRemaining",
        "NamespaceDeletionContentFailure",
        "NamespaceDeletionDiscoveryFailure",
        "NamespaceDeletionGroupVersionParsingFailure",
        "NamespaceFinalizersRemaining",
      ];
      assert.deepEqual(entry.fieldsV1, {
        "f:status": {
          "f:conditions": {
            ".": {},
            ...Object.fromEntries(types.map((t) => [`k:{"type":"${t}"}`, condition])),
          },
        },
      });
      assert.equal(entry.operation, "Update");
      await rawJson(client, "PATCH", `/api/v1/namespaces/${name}/configmaps/held`, {
        body: JSON.stringify({ metadata: { finalizers: null } }),
        contentType: MERGE,
      });
    },
  },
  {
    name: "objects the server bootstraps carry kube-apiserver's Update entry (aggregated roles the controller's Apply)",
    async run({ client }) {
      const get = async (path: string) => ids((await rawJson(client, "GET", path)).body.metadata.managedFields);
      assert.deepEqual(await get("/api/v1/namespaces/default"), ["kube-apiserver/Update/"]);
      assert.deepEqual(await get("/apis/scheduling.k8s.io/v1/priorityclasses/system-node-critical"), [
        "kube-apiserver/Update/",
      ]);
      assert.deepEqual(await get("/apis/rbac.authorization.k8s.io/v1/clusterroles/admin"), [
        "clusterrole-aggregation-controller/Apply/",
        "kube-apiserver/Update/",
      ]);
    },
  },
];
