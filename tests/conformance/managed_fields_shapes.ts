/**
 * Conformance cases: the field sets kube-apiserver records for built-in kinds' structure (found by the differential
 * battery, tests/differential/): an atomic struct (a binding's `roleRef`, `+structType=atomic`) is owned whole as
 * `f:roleRef: {}`; a webhook configuration's `webhooks` is a map list keyed by name; an empty template ObjectMeta is
 * Go's omitted zero value, owned by no one. A value (non-pointer) struct is in the Go zero value the write is compared
 * with, so filling it adds no FieldsV1 "." (a PVC's `resources`); a pointer struct is added with everything in it (a
 * ReplicationController's `*PodTemplateSpec`: its metadata, spec and containers all get "."). Defaults of the decoder
 * are the writer's (a Job's `manualSelector`), what the REST create allocates is no one's (a Service's `clusterIPs`,
 * `ipFamilies`, `ipFamilyPolicy`); `+listType=set` string lists own their members (a CSIDriver's
 * `volumeLifecycleModes`), and a PDB's LabelSelector is atomic. A DeviceTaintRule's `timeAdded`, stamped on create when
 * the taint has none, is the creator's. An events.k8s.io Event (stored as a core Event) is recorded in events.k8s.io's
 * own field names, its `regarding` atomic.
 * @module
 */
import assert from "node:assert/strict";
import type { KubeClient } from "../../runtime/client/client.ts";
import type { ConformanceCase } from "./support.ts";

// deno-lint-ignore no-explicit-any
type Any = any;

/** Creates `body` at `path`, returns its only managedFields entry's set, deletes it. */
async function ownedFields(client: KubeClient, path: string, body: Any): Promise<Any> {
  const res = await client.request("POST", path, { body: JSON.stringify(body) });
  const made = JSON.parse(new TextDecoder().decode(res.body));
  assert.equal(res.status, 201, JSON.stringify(made));
  await client.request("DELETE", `${path}/${body.metadata.name}`);
  assert.equal(made.metadata.managedFields.length, 1, JSON.stringify(made.metadata.managedFields));
  return made.metadata.managedFields[0].fieldsV1;
}

export const managedFieldShapeCases: ConformanceCase[] = [
  {
    name: "an events.k8s.io Event is recorded in its own fields (note, an atomic regarding), not the stored core ones",
    async run({ noRetry, ns }) {
      const owned = await ownedFields(noRetry, `/apis/events.k8s.io/v1/namespaces/${ns}/events`, {
        metadata: { name: "mfs-ev" },
        eventTime: "2026-01-02T03:04:05.000000Z",
        regarding: { apiVersion: "v1", kind: "ConfigMap", name: "x", namespace: ns },
        reportingController: "example.com/conformance",
        reportingInstance: "i-1",
        action: "Tested",
        reason: "Tested",
        note: "a note",
        type: "Normal",
      });
      assert.deepEqual(Object.keys(owned).sort(), [
        "f:action",
        "f:eventTime",
        "f:note",
        "f:reason",
        "f:regarding",
        "f:reportingController",
        "f:reportingInstance",
        "f:type",
      ]);
      assert.deepEqual(owned["f:regarding"], {});
    },
  },
  {
    name: "a RoleBinding owns its atomic roleRef whole; a CronJob's empty template metadata is no one's",
    async run({ noRetry, ns }) {
      const binding = await ownedFields(noRetry, `/apis/rbac.authorization.k8s.io/v1/namespaces/${ns}/rolebindings`, {
        metadata: { name: "mfs-rb" },
        roleRef: { apiGroup: "rbac.authorization.k8s.io", kind: "ClusterRole", name: "view" },
        subjects: [{ kind: "User", apiGroup: "rbac.authorization.k8s.io", name: "someone" }],
      });
      assert.deepEqual([binding["f:roleRef"], binding["f:subjects"]], [{}, {}]);
      const cron = await ownedFields(noRetry, `/apis/batch/v1/namespaces/${ns}/cronjobs`, {
        metadata: { name: "mfs-cj" },
        spec: {
          schedule: "*/5 * * * *",
          jobTemplate: {
            spec: {
              template: { spec: { containers: [{ name: "c", image: "busybox:1.36" }], restartPolicy: "Never" } },
            },
          },
        },
      });
      const jobTemplate = cron["f:spec"]["f:jobTemplate"];
      assert.equal(jobTemplate["f:metadata"], undefined, JSON.stringify(jobTemplate));
      assert.equal(jobTemplate["f:spec"]["f:template"]["f:metadata"], undefined, JSON.stringify(jobTemplate));
    },
  },
  {
    name: "a ValidatingWebhookConfiguration's webhooks are owned one by one, keyed by name",
    async run({ noRetry, ns }) {
      const owned = await ownedFields(
        noRetry,
        "/apis/admissionregistration.k8s.io/v1/validatingwebhookconfigurations",
        {
          metadata: { name: `mfs-${ns}` },
          webhooks: [{
            name: "nothing.mfs.example.com",
            clientConfig: { url: "https://127.0.0.1:9/none" },
            rules: [{
              apiGroups: ["none.mfs.example.com"],
              apiVersions: ["v1"],
              operations: ["CREATE"],
              resources: ["nothings"],
            }],
            sideEffects: "None",
            admissionReviewVersions: ["v1"],
          }],
        },
      );
      const hook = owned["f:webhooks"]['k:{"name":"nothing.mfs.example.com"}'];
      assert.ok(hook, JSON.stringify(owned));
      assert.deepEqual(hook["f:clientConfig"], { ".": {}, "f:url": {} });
      assert.deepEqual(hook["f:rules"], {});
    },
  },
  {
    name: "value structs are not marked '.' when filled, a pointer struct's whole subtree is",
    async run({ noRetry, ns }) {
      const pvc = await ownedFields(noRetry, `/api/v1/namespaces/${ns}/persistentvolumeclaims`, {
        metadata: { name: "mfs-pvc" },
        spec: { accessModes: ["ReadWriteOnce"], resources: { requests: { storage: "1Gi" } } },
      });
      assert.deepEqual(pvc["f:spec"]["f:resources"], { "f:requests": { ".": {}, "f:storage": {} } });
      const rc = await ownedFields(noRetry, `/api/v1/namespaces/${ns}/replicationcontrollers`, {
        metadata: { name: "mfs-rc" },
        spec: {
          replicas: 0,
          selector: { app: "mfs" },
          template: {
            metadata: { labels: { app: "mfs" } },
            spec: { containers: [{ name: "c", image: "busybox:1.36" }] },
          },
        },
      });
      const template = rc["f:spec"]["f:template"];
      assert.deepEqual(
        [template["."], template["f:metadata"]["."], template["f:spec"]["."], template["f:spec"]["f:containers"]["."]],
        [{}, {}, {}, {}],
        JSON.stringify(template),
      );
    },
  },
  {
    name:
      "decoder defaults are the writer's, REST allocations no one's; set lists own members; a PDB selector is atomic",
    async run({ noRetry, ns }) {
      const job = await ownedFields(noRetry, `/apis/batch/v1/namespaces/${ns}/jobs`, {
        metadata: { name: "mfs-job" },
        spec: {
          suspend: true,
          template: { spec: { containers: [{ name: "c", image: "busybox:1.36" }], restartPolicy: "Never" } },
        },
      });
      assert.deepEqual(job["f:spec"]["f:manualSelector"], {}, JSON.stringify(job));
      const svc = await ownedFields(noRetry, `/api/v1/namespaces/${ns}/services`, {
        metadata: { name: "mfs-svc" },
        spec: { ports: [{ port: 80 }], selector: { app: "mfs" } },
      });
      assert.deepEqual(
        ["f:clusterIP", "f:clusterIPs", "f:ipFamilies", "f:ipFamilyPolicy"].filter((f) => f in svc["f:spec"]),
        [],
        JSON.stringify(svc),
      );
      const pdb = await ownedFields(noRetry, `/apis/policy/v1/namespaces/${ns}/poddisruptionbudgets`, {
        metadata: { name: "mfs-pdb" },
        spec: { minAvailable: 1, selector: { matchLabels: { app: "mfs" } } },
      });
      assert.deepEqual(pdb["f:spec"]["f:selector"], {});
      const driver = await ownedFields(noRetry, "/apis/storage.k8s.io/v1/csidrivers", {
        metadata: { name: `mfs-${ns}.example.com` },
        spec: {},
      });
      assert.deepEqual(driver["f:spec"]["f:volumeLifecycleModes"], { ".": {}, 'v:"Persistent"': {} });
      const rule = await ownedFields(noRetry, "/apis/resource.k8s.io/v1/devicetaintrules", {
        metadata: { name: `mfs-${ns}` },
        spec: { taint: { key: "example.com/mfs", effect: "NoSchedule" } },
      });
      assert.deepEqual(rule["f:spec"]["f:taint"]["f:timeAdded"], {}, JSON.stringify(rule));
    },
  },
];
