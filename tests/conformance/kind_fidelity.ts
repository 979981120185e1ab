/**
 * Conformance cases: per-kind behaviours the differential battery (tests/differential/) found. An events.k8s.io/v1
 * write's managedFields entry is in the request's version with its field names (`f:note`, an atomic `f:regarding`),
 * a write through the other group's API drops the entries kube cannot convert, an events.k8s.io/v1 update may change
 * little but metadata and the series, and errors name the internal kind (`Event "" is invalid`, no details.group).
 * @module
 */
import assert from "node:assert/strict";
import type { KubeClient } from "../../runtime/client/client.ts";
import { type ConformanceCase, sendBody, TABLE_ACCEPT } from "./support.ts";

// deno-lint-ignore no-explicit-any
type Any = any;

/** An events.k8s.io/v1 Event about a ConfigMap of `ns`. */
function eventsV1Event(ns: string, name: string): Any {
  return {
    apiVersion: "events.k8s.io/v1",
    kind: "Event",
    metadata: { name },
    eventTime: "2025-01-01T00:00:00.000000Z",
    reportingController: "kubeop.dev/conformance",
    reportingInstance: "conformance-1",
    action: "Test",
    reason: "Tested",
    type: "Normal",
    note: "a note",
    regarding: { apiVersion: "v1", kind: "ConfigMap", name, namespace: ns },
  };
}

/** POST `body` to `path` with `query`, asserting 201; the created object. */
async function created(client: KubeClient, path: string, body: unknown, query: Record<string, string> = {}) {
  const res = await sendBody(client, "POST", path, body, "application/json", query);
  assert.equal(res.code, 201, JSON.stringify(res.json));
  return res.json;
}

export const kindFidelityCases: ConformanceCase[] = [
  {
    name: "an events.k8s.io/v1 write records its entry in that version, with its field names",
    async run({ noRetry, ns }) {
      const path = `/apis/events.k8s.io/v1/namespaces/${ns}/events`;
      const ev = await created(noRetry, path, eventsV1Event(ns, "kf-ev-a"), { fieldManager: "kf-a" });
      assert.equal(ev.metadata.managedFields.length, 1, JSON.stringify(ev.metadata.managedFields));
      const [entry] = ev.metadata.managedFields;
      assert.equal(entry.apiVersion, "events.k8s.io/v1");
      // ObjectReference is `+structType=atomic`: owned whole.
      assert.deepEqual(entry.fieldsV1["f:regarding"], {}, JSON.stringify(entry.fieldsV1));
      assert.deepEqual(entry.fieldsV1["f:note"], {});
      assert.equal(entry.fieldsV1["f:message"], undefined);
      assert.equal(entry.fieldsV1["f:involvedObject"], undefined);
    },
  },
  {
    name: "a write through one Event API drops the managers of the other (kube converts within a group only)",
    async run({ noRetry, ns }) {
      const byManager = (obj: Any) => Object.fromEntries(obj.metadata.managedFields.map((e: Any) => [e.manager, e]));
      const patch = (path: string, manager: string) =>
        sendBody(
          noRetry,
          "PATCH",
          path,
          { metadata: { labels: { [manager]: "yes" } } },
          "application/merge-patch+json",
          {
            fieldManager: manager,
          },
        );
      const eventsPath = `/apis/events.k8s.io/v1/namespaces/${ns}/events`;
      await created(noRetry, eventsPath, eventsV1Event(ns, "kf-ev-b"), { fieldManager: "kf-events" });
      const throughCore = await patch(`/api/v1/namespaces/${ns}/events/kf-ev-b`, "kf-core");
      assert.equal(throughCore.code, 200, JSON.stringify(throughCore.json));
      assert.deepEqual(Object.keys(byManager(throughCore.json)), ["kf-core"], JSON.stringify(throughCore.json));
      const throughEvents = await patch(`${eventsPath}/kf-ev-b`, "kf-events-2");
      assert.equal(throughEvents.code, 200, JSON.stringify(throughEvents.json));
      const entries = byManager(throughEvents.json);
      assert.deepEqual(Object.keys(entries), ["kf-events-2"], JSON.stringify(throughEvents.json));
      assert.equal(entries["kf-events-2"].apiVersion, "events.k8s.io/v1");
    },
  },
  {
    name: "an events.k8s.io/v1 update may not change the note (core `message`); a label it may",
    async run({ noRetry, ns }) {
      const path = `/apis/events.k8s.io/v1/namespaces/${ns}/events`;
      await created(noRetry, path, eventsV1Event(ns, "kf-ev-c"));
      const res = await sendBody(
        noRetry,
        "PATCH",
        `${path}/kf-ev-c`,
        { note: "changed", metadata: { labels: { changed: "yes" } } },
        "application/merge-patch+json",
      );
      assert.equal(res.code, 422, JSON.stringify(res.json));
      assert.equal(
        res.json.message,
        'Event "kf-ev-c" is invalid: message: Invalid value: "changed": field is immutable',
      );
      const labelOnly = await sendBody(noRetry, "PATCH", `${path}/kf-ev-c`, {
        metadata: { labels: { changed: "yes" } },
      }, "application/merge-patch+json");
      assert.equal(labelOnly.code, 200, JSON.stringify(labelOnly.json));
    },
  },
  {
    name: "an invalid events.k8s.io/v1 Event is an invalid core `Event` (no details.group)",
    async run({ noRetry, ns }) {
      const body = eventsV1Event(ns, "");
      delete body.metadata.name;
      const res = await sendBody(noRetry, "POST", `/apis/events.k8s.io/v1/namespaces/${ns}/events`, body);
      assert.equal(res.code, 422, JSON.stringify(res.json));
      assert.equal(
        res.json.message,
        'Event "" is invalid: metadata.name: Required value: name or generateName is required',
      );
      assert.equal(res.json.details.group, undefined);
      assert.equal(res.json.details.kind, "Event");
    },
  },
  {
    name: "a value scalar sent as its zero (a GroupResource's `group`, an Event's `count: 0`) is no field of anyone's",
    async run({ noRetry, ns }) {
      const path = "/apis/storagemigration.k8s.io/v1/storageversionmigrations";
      const svm = await created(noRetry, path, {
        metadata: { generateName: "kf-svm-" },
        spec: { resource: { group: "", resource: "configmaps" } },
      }, { fieldManager: "kf-svm" });
      await noRetry.request("DELETE", `${path}/${svm.metadata.name}`);
      assert.equal(svm.spec.resource.group, "");
      assert.deepEqual(svm.metadata.managedFields[0].fieldsV1["f:spec"], { "f:resource": { "f:resource": {} } });
      // With omitempty too (`count: 0`): the typed object drops it.
      const ev = await created(noRetry, `/api/v1/namespaces/${ns}/events`, {
        metadata: { name: "kf-ev-zero" },
        involvedObject: { apiVersion: "v1", kind: "ConfigMap", name: "kf-ev-zero", namespace: ns },
        reason: "Tested",
        message: "m",
        type: "Normal",
        reportingComponent: "",
        count: 0,
      }, { fieldManager: "kf-core" });
      assert.deepEqual(Object.keys(ev.metadata.managedFields[0].fieldsV1).sort(), [
        "f:involvedObject",
        "f:message",
        "f:reason",
        "f:type",
      ]);
    },
  },
  {
    name: "a namespace's name label is its creator's, unless the name was generated (set after decoding)",
    async run({ noRetry, ns }) {
      const path = "/api/v1/namespaces";
      const named = await created(noRetry, path, { metadata: { name: `${ns}-kf` } }, { fieldManager: "kf-ns" });
      const generated = await created(noRetry, path, { metadata: { generateName: "kf-ns-" } }, {
        fieldManager: "kf-ns",
      });
      await noRetry.request("DELETE", `${path}/${named.metadata.name}`);
      await noRetry.request("DELETE", `${path}/${generated.metadata.name}`);
      const label = "f:kubernetes.io/metadata.name";
      assert.deepEqual(named.metadata.managedFields[0].fieldsV1["f:metadata"], {
        "f:labels": { ".": {}, [label]: {} },
      });
      assert.equal(generated.metadata.labels["kubernetes.io/metadata.name"], generated.metadata.name);
      assert.deepEqual(generated.metadata.managedFields[0].fieldsV1["f:metadata"], { "f:generateName": {} });
    },
  },
  {
    name: "componentstatuses are listed through the label and field selectors, which are parsed and checked",
    async run({ noRetry }) {
      const list = async (query: Record<string, string>) => {
        const res = await sendBody(noRetry, "GET", "/api/v1/componentstatuses", undefined, "application/json", query);
        return res;
      };
      const byLabel = await list({ labelSelector: "kf=none" });
      assert.equal(byLabel.code, 200, JSON.stringify(byLabel.json));
      assert.deepEqual(byLabel.json.items, []);
      const byName = await list({ fieldSelector: "metadata.name=kf-none" });
      assert.deepEqual(byName.json.items, []);
      const badLabel = await list({ labelSelector: "a in (" });
      assert.equal(badLabel.code, 400, JSON.stringify(badLabel.json));
      assert.equal(badLabel.json.message, "unable to parse requirement: found '', expected: ',', ')' or identifier");
      const badField = await list({ fieldSelector: "spec.bogus=x" });
      assert.equal(badField.code, 400, JSON.stringify(badField.json));
      assert.equal(
        badField.json.message,
        '"spec.bogus" is not a known field selector: only "metadata.name", "metadata.namespace"',
      );
    },
  },
  {
    name: "a LimitRange sent without a name is named by a UUID (its PrepareForCreate), other kinds need one",
    async run({ noRetry, ns }) {
      const lr = await created(noRetry, `/api/v1/namespaces/${ns}/limitranges`, {
        metadata: { labels: { kf: "yes" } },
      });
      await noRetry.request("DELETE", `/api/v1/namespaces/${ns}/limitranges/${lr.metadata.name}`);
      assert.match(lr.metadata.name, /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/);
      assert.notEqual(lr.metadata.name, lr.metadata.uid);
      assert.equal(lr.spec.limits, null);
      const cm = await sendBody(noRetry, "POST", `/api/v1/namespaces/${ns}/configmaps`, { metadata: {} });
      assert.equal(cm.code, 422, JSON.stringify(cm.json));
    },
  },
  {
    name: "an invalid create of an existing name is 422, not 409 (validation comes before the storage)",
    async run({ noRetry, ns }) {
      const path = `/apis/apps/v1/namespaces/${ns}/controllerrevisions`;
      await created(noRetry, path, { metadata: { name: "kf-cr" }, data: { a: 1 }, revision: 1 });
      const again = await sendBody(noRetry, "POST", path, { metadata: { name: "kf-cr" } });
      assert.equal(again.code, 422, JSON.stringify(again.json));
      assert.equal(
        again.json.message,
        'ControllerRevision.apps "kf-cr" is invalid: data: Required value: data is mandatory',
      );
      const duplicate = await sendBody(noRetry, "POST", path, { metadata: { name: "kf-cr" }, data: {}, revision: 2 });
      assert.equal(duplicate.code, 409, JSON.stringify(duplicate.json));
      await noRetry.request("DELETE", `${path}/kf-cr`);
    },
  },
  {
    name: "RBAC: a role without rules has `rules: null`; a binding's roleRef.apiGroup defaults to rbac's",
    async run({ noRetry, ns }) {
      const group = "/apis/rbac.authorization.k8s.io/v1";
      const role = await created(noRetry, `${group}/namespaces/${ns}/roles`, { metadata: { name: "kf-role" } });
      assert.equal(role.rules, null);
      assert.ok("rules" in role);
      const bad = await sendBody(noRetry, "POST", `${group}/namespaces/${ns}/rolebindings`, {
        metadata: { name: "kf-rb" },
      });
      assert.equal(bad.code, 422, JSON.stringify(bad.json));
      assert.deepEqual(bad.json.details.causes.map((c: Any) => c.field), ["roleRef.kind", "roleRef.name"]);
      const binding = await created(noRetry, `${group}/namespaces/${ns}/rolebindings`, {
        metadata: { name: "kf-rb" },
        roleRef: { kind: "Role", name: "kf-role" },
      });
      assert.equal(binding.roleRef.apiGroup, "rbac.authorization.k8s.io");
    },
  },
  {
    name: "a Service name is a DNS-1123 label (a leading digit is fine), worded as one",
    async run({ noRetry, ns }) {
      const path = `/api/v1/namespaces/${ns}/services`;
      const spec = { ports: [{ port: 80 }] };
      const bad = await sendBody(noRetry, "POST", path, { metadata: { name: "Bad_Name" }, spec });
      assert.equal(bad.code, 422, JSON.stringify(bad.json));
      assert.match(bad.json.details.causes[0].message, /^Invalid value: "Bad_Name": a lowercase RFC 1123 label must/);
      const digit = await created(noRetry, path, { metadata: { name: "1kf-svc" }, spec });
      await noRetry.request("DELETE", `${path}/${digit.metadata.name}`);
    },
  },
  {
    name: "a dry-run delete of an unscheduled pod answers it marked (deletionTimestamp, grace 0, generation + 1)",
    async run({ noRetry, ns }) {
      const path = `/api/v1/namespaces/${ns}/pods`;
      const pod = await created(noRetry, path, {
        metadata: { name: "kf-pod" },
        spec: { containers: [{ name: "c", image: "busybox:1.36" }], schedulerName: "kf-no-such-scheduler" },
      });
      const res = await sendBody(noRetry, "DELETE", `${path}/kf-pod`, undefined, "application/json", {
        dryRun: "All",
      });
      assert.equal(res.code, 200, JSON.stringify(res.json));
      assert.equal(res.json.metadata.deletionGracePeriodSeconds, 0);
      assert.ok(res.json.metadata.deletionTimestamp);
      assert.equal(res.json.metadata.generation, pod.metadata.generation + 1);
      const after = await sendBody(noRetry, "GET", `${path}/kf-pod`);
      assert.equal(after.json.metadata.deletionTimestamp, undefined);
      await noRetry.request("DELETE", `${path}/kf-pod`, { query: { gracePeriodSeconds: 0 } });
    },
  },
  {
    name: "a Node without nodeInfo prints <unknown> for its OS image, kernel and container runtime",
    async run({ noRetry, ns }) {
      const path = "/api/v1/nodes";
      await created(noRetry, path, { metadata: { name: `${ns}-kf-node` } });
      const res = await noRetry.request("GET", `${path}/${ns}-kf-node`, {
        accept: TABLE_ACCEPT,
      });
      const table = JSON.parse(new TextDecoder().decode(res.body));
      await noRetry.request("DELETE", `${path}/${ns}-kf-node`);
      assert.deepEqual(table.rows[0].cells.slice(7), ["<unknown>", "<unknown>", "<unknown>"]);
    },
  },
  {
    name: "an empty PartialObjectMetadataList has `items: null` (componentstatuses and stored kinds alike)",
    async run({ noRetry, ns }) {
      const accept = "application/json;as=PartialObjectMetadataList;v=v1;g=meta.k8s.io";
      for (const path of ["/api/v1/componentstatuses", `/api/v1/namespaces/${ns}/configmaps`]) {
        const res = await noRetry.request("GET", path, { accept, query: { labelSelector: "kf=none" } });
        const list = JSON.parse(new TextDecoder().decode(res.body));
        assert.equal(res.status, 200, JSON.stringify(list));
        assert.equal(list.kind, "PartialObjectMetadataList");
        assert.equal(list.items, null, `${path}: ${JSON.stringify(list)}`);
      }
    },
  },
  {
    name: "a core v1 Event's name is any path segment (`Bad_Name`); an events.k8s.io/v1 one is a DNS subdomain",
    async run({ noRetry, ns }) {
      const core = await created(noRetry, `/api/v1/namespaces/${ns}/events`, {
        metadata: { name: "Kf_Bad_Name" },
        involvedObject: { apiVersion: "v1", kind: "ConfigMap", name: "x", namespace: ns },
        reason: "Tested",
        type: "Normal",
      });
      assert.equal(core.metadata.name, "Kf_Bad_Name");
      const path = `/apis/events.k8s.io/v1/namespaces/${ns}/events`;
      const strict = await sendBody(noRetry, "POST", path, eventsV1Event(ns, "Kf_Bad_Name2"));
      assert.equal(strict.code, 422, JSON.stringify(strict.json));
      assert.deepEqual(strict.json.details.causes.map((c: Any) => c.field), ["metadata.name"]);
    },
  },
];
