/**
 * Conformance cases: what watch events carry and which resourceVersions are accepted, as kube-apiserver v1.37 answers:
 * a DELETED event holds the object's last stored state (etcd's previous value, under the delete's resourceVersion), a
 * pod deleted with grace 0 is marked first, a WatchList stream sends its end BOOKMARK only when bookmarks are allowed,
 * resourceVersion values that are not uint64 are refused in kube's words, and a custom resource's generation moves with
 * its status only when status is not a subresource.
 * @module
 */
import assert from "node:assert/strict";
import type { KubeClient } from "../../runtime/client/client.ts";
import { CoreTypes, type KubeObject, type ResourceType, type WatchEvent } from "../../runtime/types.ts";
import { eventually } from "../../testing/eventually.ts";
import { withObjects } from "./admission_webhooks_support.ts";
import { call, CRD_PATH, type Json } from "./crd_helpers.ts";
import { boundedWatch, type ConformanceCase, POLL, readEvents } from "./support.ts";

const cmPath = (ns: string) => `/api/v1/namespaces/${ns}/configmaps`;

/** Creates ConfigMap `name` (with `metadata` merged in) and answers it. */
async function made(client: KubeClient, ns: string, name: string, metadata: Json = {}): Promise<KubeObject> {
  return await client.create<KubeObject>(CoreTypes.ConfigMap, {
    metadata: { name, namespace: ns, ...metadata },
    data: { a: "1" },
  }, { namespace: ns });
}

/** The events of ConfigMap `name` a watch from `rv` sees while `act` runs, until `count` arrived. */
async function eventsOf(
  client: KubeClient,
  ns: string,
  rv: string,
  count: number,
  act: () => Promise<void>,
  rt: ResourceType = CoreTypes.ConfigMap,
): Promise<WatchEvent[]> {
  const events = readEvents(client, rt, { namespace: ns, resourceVersion: rv }, count);
  await act();
  return await events;
}

/** A raw request's code and parsed body. */
async function raw(
  client: KubeClient,
  path: string,
  query: Record<string, string>,
): Promise<{ code: number; json: Json }> {
  const res = await client.request("GET", path, { query });
  return { code: res.status, json: JSON.parse(new TextDecoder().decode(res.body)) };
}

const parseUint = (v: string, why = "invalid syntax") =>
  `resourceVersion: Invalid value: ${JSON.stringify(v)}: strconv.ParseUint: parsing ${JSON.stringify(v)}: ${why}`;

/** A namespaced CRD `<plural>.watch.conformance.kubeop.dev` whose schema keeps any field; `status` subresource or not. */
function looseCrd(kind: string, withStatus: boolean): Json {
  const plural = `${kind.toLowerCase()}s`;
  return {
    apiVersion: "apiextensions.k8s.io/v1",
    kind: "CustomResourceDefinition",
    metadata: { name: `${plural}.watch.conformance.kubeop.dev` },
    spec: {
      group: "watch.conformance.kubeop.dev",
      scope: "Namespaced",
      names: { plural, kind },
      versions: [{
        name: "v1",
        served: true,
        storage: true,
        ...(withStatus ? { subresources: { status: {} } } : {}),
        schema: { openAPIV3Schema: { type: "object", "x-kubernetes-preserve-unknown-fields": true } },
      }],
    },
  };
}

export const watchFidelityCases: ConformanceCase[] = [
  {
    name: "DELETED of an object without finalizers is its last stored state: no deletionTimestamp, the delete's RV",
    async run({ client, ns }) {
      const obj = await made(client, ns, "wf-plain", { labels: { keep: "me" } });
      const [ev] = await eventsOf(client, ns, obj.metadata.resourceVersion!, 1, async () => {
        await client.delete(CoreTypes.ConfigMap, "wf-plain", { namespace: ns });
      });
      assert.equal(ev.type, "DELETED");
      const m = ev.object.metadata;
      assert.equal(m.deletionTimestamp, undefined, JSON.stringify(m));
      assert.equal(m.deletionGracePeriodSeconds, undefined);
      assert.deepEqual(m.labels, { keep: "me" });
      assert.ok(BigInt(m.resourceVersion!) > BigInt(obj.metadata.resourceVersion!), "the delete's resourceVersion");
    },
  },
  {
    name: "removing the last finalizer deletes: DELETED carries the state before that update, the answer the update",
    async run({ client, ns }) {
      const obj = await made(client, ns, "wf-final", {
        finalizers: ["conformance.kubeop.dev/hold"],
        labels: { v: "1" },
      });
      const path = `${cmPath(ns)}/wf-final`;
      let answer: Json;
      const events = await eventsOf(client, ns, obj.metadata.resourceVersion!, 2, async () => {
        await client.delete(CoreTypes.ConfigMap, "wf-final", { namespace: ns });
        answer = (await call(client, "PATCH", path, { metadata: { finalizers: null, labels: { v: "2" } } })).body;
      });
      assert.deepEqual(events.map((e) => e.type), ["MODIFIED", "DELETED"]);
      const marked = events[0].object.metadata;
      const gone = events[1].object.metadata;
      assert.ok(marked.deletionTimestamp, "the delete marked it");
      assert.deepEqual(gone.finalizers, ["conformance.kubeop.dev/hold"], JSON.stringify(gone));
      assert.deepEqual(gone.labels, { v: "1" }, "the update's change is not in the DELETED object");
      assert.equal(gone.deletionTimestamp, marked.deletionTimestamp);
      assert.equal(gone.deletionGracePeriodSeconds, 0);
      assert.ok(BigInt(gone.resourceVersion!) > BigInt(marked.resourceVersion!));
      assert.deepEqual(answer.metadata.labels, { v: "2" }, "the PATCH answers the object as updated");
      assert.equal(answer.metadata.finalizers, undefined);
      assert.equal(answer.metadata.resourceVersion, marked.resourceVersion, "the resourceVersion it was read at");
    },
  },
  {
    name: "a pod deleted with grace 0 is first marked (MODIFIED, deletionTimestamp, grace 0), then DELETED as marked",
    async run({ client, ns }) {
      const pod = await client.create<KubeObject>(CoreTypes.Pod, {
        metadata: { name: "wf-pod", namespace: ns },
        spec: { containers: [{ name: "c", image: "registry.k8s.io/pause:3.10" }] },
      }, { namespace: ns });
      const events = await eventsOf(client, ns, pod.metadata.resourceVersion!, 2, async () => {
        const res = await client.request("DELETE", `/api/v1/namespaces/${ns}/pods/wf-pod`, {
          query: { gracePeriodSeconds: "0" },
        });
        const body = JSON.parse(new TextDecoder().decode(res.body));
        assert.equal(res.status, 200, JSON.stringify(body));
        assert.equal(body.metadata.deletionGracePeriodSeconds, 0, "the answer is the marked pod");
      }, CoreTypes.Pod);
      assert.deepEqual(events.map((e) => e.type), ["MODIFIED", "DELETED"]);
      for (const e of events) {
        assert.ok(e.object.metadata.deletionTimestamp, e.type);
        assert.equal(e.object.metadata.deletionGracePeriodSeconds, 0, e.type);
      }
    },
  },
  {
    name: "a bound pod: a delete marks it for 30 s, a second with grace 0 is stored (MODIFIED) before DELETED",
    async run({ client, ns }) {
      const pods = `/api/v1/namespaces/${ns}/pods`;
      // Bound to a node no kubelet serves (neither target runs one here): the delete waits for its grace period.
      const pod = await client.create<KubeObject>(CoreTypes.Pod, {
        metadata: { name: "wf-bound", namespace: ns },
        spec: { nodeName: "wf-no-such-node", containers: [{ name: "c", image: "registry.k8s.io/pause:3.10" }] },
      }, { namespace: ns });
      const events = await eventsOf(client, ns, pod.metadata.resourceVersion!, 3, async () => {
        assert.equal((await client.request("DELETE", `${pods}/wf-bound`)).status, 200);
        const now = await client.request("DELETE", `${pods}/wf-bound`, { query: { gracePeriodSeconds: "0" } });
        assert.equal(now.status, 200);
      }, CoreTypes.Pod);
      assert.deepEqual(events.map((e) => e.type), ["MODIFIED", "MODIFIED", "DELETED"]);
      assert.deepEqual(events.map((e) => e.object.metadata.deletionGracePeriodSeconds), [30, 0, 0]);
    },
  },
  {
    name: "a WatchList stream without allowWatchBookmarks: the initial ADDED events and no BOOKMARK",
    async run({ client, ns }) {
      await made(client, ns, "wf-list", { labels: { wl: "1" } });
      const { status, events } = await boundedWatch(client, cmPath(ns), {
        watch: true,
        sendInitialEvents: true,
        resourceVersionMatch: "NotOlderThan",
        labelSelector: "wl=1",
        timeoutSeconds: 2,
      });
      assert.equal(status, 200);
      assert.deepEqual(events.map((e) => [e.type, e.object.metadata?.name]), [["ADDED", "wf-list"]]);
      const withBookmarks = await boundedWatch(client, cmPath(ns), {
        watch: true,
        sendInitialEvents: true,
        resourceVersionMatch: "NotOlderThan",
        allowWatchBookmarks: true,
        labelSelector: "wl=1",
        timeoutSeconds: 2,
      });
      const end = withBookmarks.events.find((e) => e.type === "BOOKMARK");
      assert.equal(end?.object.metadata.annotations?.["k8s.io/initial-events-end"], "true");
    },
  },
  {
    name: "a kubelet's WatchList (fieldSelector spec.nodeName) sends that node's pods in name order, then the bookmark",
    async run({ client, ns }) {
      const pods = `/api/v1/namespaces/${ns}/pods`;
      for (const [name, node] of [["wf-n2", "wf-node-a"], ["wf-n1", "wf-node-a"], ["wf-n3", "wf-node-b"]]) {
        const body = { metadata: { name }, spec: { nodeName: node, containers: [{ name: "c", image: "x" }] } };
        const res = await client.request("POST", pods, { body: JSON.stringify(body) });
        assert.equal(res.status, 201, new TextDecoder().decode(res.body));
      }
      const { status, events } = await boundedWatch(client, pods, {
        watch: true,
        sendInitialEvents: true,
        resourceVersionMatch: "NotOlderThan",
        allowWatchBookmarks: true,
        fieldSelector: "spec.nodeName=wf-node-a",
        timeoutSeconds: 2,
      });
      assert.equal(status, 200);
      const initial = events.slice(0, events.findIndex((e) => e.type === "BOOKMARK"));
      assert.deepEqual(initial.map((e) => [e.type, e.object.metadata?.name]), [["ADDED", "wf-n1"], ["ADDED", "wf-n2"]]);
      const end = events[initial.length];
      assert.equal(end?.object.metadata.annotations?.["k8s.io/initial-events-end"], "true");
      for (const name of ["wf-n1", "wf-n2", "wf-n3"]) {
        await client.request("DELETE", `${pods}/${name}`, { body: JSON.stringify({ gracePeriodSeconds: 0 }) });
      }
    },
  },
  {
    name: "a resourceVersion that is not a uint64: a list is 400 'invalid resource version', a get or watch a bare 500",
    async run({ client, ns }) {
      const big = "99999999999999999999";
      for (const [v, why] of [["abc", undefined], ["-5", undefined], [big, "value out of range"]] as const) {
        const list = await raw(client, cmPath(ns), { resourceVersion: v });
        assert.equal(list.code, 400, JSON.stringify(list.json));
        assert.equal(list.json.reason, "BadRequest");
        assert.equal(list.json.message, `invalid resource version: ${parseUint(v, why)}`);
        for (const [path, query] of [[cmPath(ns), { watch: "1" }], [`${cmPath(ns)}/any`, {}]] as const) {
          const got = await raw(client, path, { ...query, resourceVersion: v });
          assert.equal(got.code, 500, JSON.stringify(got.json));
          assert.equal(got.json.reason, undefined, "no reason: the storage error passes through");
          assert.equal(got.json.message, parseUint(v, why));
        }
      }
    },
  },
  {
    name: "a get at a resourceVersion the server has not reached is 504 Timeout: Too large resource version",
    async run({ client, noRetry, ns }) {
      const obj = await made(client, ns, "wf-future");
      const got = await raw(noRetry, `${cmPath(ns)}/wf-future`, { resourceVersion: "999999999999" });
      assert.equal(got.code, 504, JSON.stringify(got.json));
      assert.equal(got.json.reason, "Timeout");
      assert.match(got.json.message, /^Timeout: Too large resource version: 999999999999, current: \d+$/);
      assert.deepEqual(got.json.details.causes, [{
        reason: "ResourceVersionTooLarge",
        message: "Too large resource version",
      }]);
      const older = await raw(client, `${cmPath(ns)}/wf-future`, { resourceVersion: obj.metadata.resourceVersion! });
      assert.equal(older.code, 200, "a reached resourceVersion is served");
    },
  },
  {
    name: "an Exact list at a compacted resourceVersion is 410 'The resourceVersion for the provided list is too old.'",
    only: {
      target: "fake",
      reason: "a real server answers it only once etcd has compacted that revision (every 5 min); a short test " +
        "cannot force a compaction",
    },
    async run({ client, ns }) {
      const got = await raw(client, cmPath(ns), { resourceVersion: "1", resourceVersionMatch: "Exact" });
      assert.equal(got.code, 410, JSON.stringify(got.json));
      assert.equal(got.json.reason, "Expired");
      assert.equal(got.json.message, "The resourceVersion for the provided list is too old.");
    },
  },
  {
    name: "a custom resource's generation: status counts as spec without a status subresource, metadata never does",
    async run({ client, ns }) {
      const crds: Array<[string, Json]> = [[CRD_PATH, looseCrd("Plain", false)], [CRD_PATH, looseCrd("Split", true)]];
      await withObjects(client, crds, async () => {
        for (const [plural, withStatus] of [["plains", false], ["splits", true]] as const) {
          const path = `/apis/watch.conformance.kubeop.dev/v1/namespaces/${ns}/${plural}`;
          await eventually(`${plural} served`, async () => (await call(client, "GET", path)).code === 200, POLL);
          const kind = withStatus ? "Split" : "Plain";
          const made = await call(client, "POST", path, {
            apiVersion: "watch.conformance.kubeop.dev/v1",
            kind,
            metadata: { name: "g" },
            spec: { x: 1 },
          });
          assert.equal(made.code, 201, JSON.stringify(made.body));
          const generation = async (patch: Json) =>
            (await call(client, "PATCH", `${path}/g`, patch)).body.metadata.generation;
          assert.equal(await generation({ metadata: { labels: { l: "1" }, annotations: { a: "1" } } }), 1, kind);
          assert.equal(await generation({ status: { s: 1 } }), withStatus ? 1 : 2, `${kind}: status`);
          assert.equal(await generation({ other: 1 }), withStatus ? 2 : 3, `${kind}: another top-level field`);
        }
      });
    },
  },
];
