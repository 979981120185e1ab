/**
 * Conformance cases: per-kind registry behaviour kube-apiserver v1.37 keeps in each kind's store and strategy (found
 * by the differential battery, tests/differential/) — which DELETEs answer with the object (ReturnDeletedObject),
 * which kinds orphan dependents when a delete names no policy (DefaultGarbageCollectionPolicy), which status writes
 * keep the stored labels and annotations (ResetObjectMetaForStatus), when an EndpointSlice's generation moves, what a
 * DaemonSet's metadata-only views show, the structs a ResourceClaimTemplate is answered with, the
 * PodCertificateRequest printer, an empty metadata-only list's `items: null`, and how the reviews are answered.
 * @module
 */
import assert from "node:assert/strict";
import type { KubeClient } from "../../runtime/client/client.ts";
import { type ConformanceCase, sendBody, TABLE_ACCEPT } from "./support.ts";
import { rawJson } from "./status_assert.ts";

// deno-lint-ignore no-explicit-any
type Any = any;

const JOB_WARNING = "child pods are preserved by default when jobs are deleted; set propagationPolicy=Background to " +
  "remove them or set propagationPolicy=Orphan to suppress this warning";
const podSpec = { containers: [{ name: "c", image: "busybox:1.36" }] };
const template = (app: string) => ({ metadata: { labels: { app } }, spec: podSpec });

async function create(client: KubeClient, path: string, body: Any): Promise<Any> {
  const { code, body: json } = await rawJson(client, "POST", path, { body });
  assert.equal(code, 201, `POST ${path}: ${JSON.stringify(json)}`);
  return json;
}

/** DELETE with a JSON DeleteOptions body (or none), answering the code and JSON body. */
function remove(client: KubeClient, path: string, options?: Any): Promise<{ code: number; body: Any }> {
  return rawJson(
    client,
    "DELETE",
    path,
    options ? { body: { kind: "DeleteOptions", apiVersion: "v1", ...options } } : {},
  );
}

export const kindStrategyCases: ConformanceCase[] = [
  {
    name:
      "a DELETE of a PodTemplate, CSIDriver, CSINode, VolumeAttachment, StorageClass or DRA kind answers the object",
    async run({ noRetry, ns }) {
      const kinds: Array<[string, string, Any]> = [
        [`/api/v1/namespaces/${ns}/podtemplates`, "PodTemplate", { template: template("ks") }],
        ["/apis/storage.k8s.io/v1/csidrivers", "CSIDriver", { spec: {} }],
        ["/apis/storage.k8s.io/v1/csinodes", "CSINode", { spec: { drivers: [] } }],
        ["/apis/storage.k8s.io/v1/volumeattachments", "VolumeAttachment", {
          spec: { attacher: "ks.example.com", nodeName: "node-ks", source: { persistentVolumeName: "pv-ks" } },
        }],
        ["/apis/storage.k8s.io/v1/storageclasses", "StorageClass", { provisioner: "example.com/ks" }],
        ["/apis/resource.k8s.io/v1/deviceclasses", "DeviceClass", { spec: {} }],
        [`/apis/resource.k8s.io/v1/namespaces/${ns}/resourceclaims`, "ResourceClaim", { spec: { devices: {} } }],
        [`/apis/resource.k8s.io/v1/namespaces/${ns}/resourceclaimtemplates`, "ResourceClaimTemplate", {
          spec: { spec: { devices: {} } },
        }],
        ["/apis/resource.k8s.io/v1/resourceslices", "ResourceSlice", {
          spec: { driver: "ks.example.com", pool: { name: "p", generation: 1, resourceSliceCount: 1 }, allNodes: true },
        }],
      ];
      for (const [path, kind, body] of kinds) {
        const name = `ks-deleted-${kind.toLowerCase()}`;
        await create(noRetry, path, { metadata: { name }, ...body });
        const dry = await rawJson(noRetry, "DELETE", `${path}/${name}`, { query: { dryRun: "All" } });
        assert.deepEqual([dry.code, dry.body.kind, dry.body.metadata?.name], [200, kind, name], `dry run: ${kind}`);
        const gone = await remove(noRetry, `${path}/${name}`);
        assert.deepEqual([gone.code, gone.body.kind, gone.body.metadata?.name], [200, kind, name], kind);
      }
      // A kind without ReturnDeletedObject still answers a Status.
      const cm = `/api/v1/namespaces/${ns}/configmaps`;
      await create(noRetry, cm, { metadata: { name: "ks-deleted-cm" } });
      const status = await remove(noRetry, `${cm}/ks-deleted-cm`);
      assert.deepEqual([status.body.kind, status.body.status], ["Status", "Success"]);
    },
  },
  {
    name: "a Job or RC deleted without a policy gets the orphan finalizer (a Job warns); a Deployment does not",
    async run({ noRetry, ns }) {
      const job = `/apis/batch/v1/namespaces/${ns}/jobs`;
      const rc = `/api/v1/namespaces/${ns}/replicationcontrollers`;
      const deploy = `/apis/apps/v1/namespaces/${ns}/deployments`;
      await create(noRetry, job, {
        metadata: { name: "ks-job" },
        spec: { template: { spec: { ...podSpec, restartPolicy: "Never" } } },
      });
      await create(noRetry, rc, {
        metadata: { name: "ks-rc" },
        spec: { replicas: 0, selector: { app: "ks-rc" }, template: template("ks-rc") },
      });
      await create(noRetry, deploy, {
        metadata: { name: "ks-deploy" },
        spec: { replicas: 0, selector: { matchLabels: { app: "ks-deploy" } }, template: template("ks-deploy") },
      });
      for (const path of [`${job}/ks-job`, `${rc}/ks-rc`]) {
        const dry = await remove(noRetry, path, { dryRun: ["All"] });
        assert.equal(dry.code, 200, JSON.stringify(dry.body));
        assert.deepEqual(dry.body.metadata.finalizers, ["orphan"], path);
        assert.equal(dry.body.metadata.deletionGracePeriodSeconds, 0, path);
        assert.ok(dry.body.metadata.deletionTimestamp, path);
        // orphanDependents=false overrides the kind's default: the object would go at once.
        const notOrphaned = await remove(noRetry, path, { dryRun: ["All"], orphanDependents: false });
        assert.deepEqual([notOrphaned.body.kind, notOrphaned.body.status], ["Status", "Success"], path);
      }
      // The Job's REST warns when a delete leaves its pods to the orphaning default.
      const options = (extra: Any) => ({ kind: "DeleteOptions", apiVersion: "v1", dryRun: ["All"], ...extra });
      const warned = await sendBody(noRetry, "DELETE", `${job}/ks-job`, options({}));
      assert.deepEqual(warned.warnings, [JOB_WARNING]);
      assert.deepEqual((await sendBody(noRetry, "DELETE", `${rc}/ks-rc`, options({}))).warnings, []);
      const background = await sendBody(
        noRetry,
        "DELETE",
        `${job}/ks-job`,
        options({ propagationPolicy: "Background" }),
      );
      assert.deepEqual(background.warnings, []);
      const deployment = await remove(noRetry, `${deploy}/ks-deploy`, { dryRun: ["All"] });
      assert.deepEqual([deployment.body.kind, deployment.body.status], ["Status", "Success"]);
      for (const path of [`${job}/ks-job`, `${rc}/ks-rc`, `${deploy}/ks-deploy`]) {
        const gone = await remove(noRetry, path, { propagationPolicy: "Background" });
        assert.equal(gone.code, 200, JSON.stringify(gone.body));
      }
    },
  },
  {
    name: "a status write keeps the labels of a Deployment, and the labels and annotations of a VolumeAttachment",
    async run({ noRetry, ns }) {
      const deploy = `/apis/apps/v1/namespaces/${ns}/deployments`;
      const va = "/apis/storage.k8s.io/v1/volumeattachments";
      const sts = `/apis/apps/v1/namespaces/${ns}/statefulsets`;
      await create(noRetry, deploy, {
        metadata: { name: "ks-status", labels: { keep: "yes" } },
        spec: { replicas: 0, selector: { matchLabels: { app: "ks-status" } }, template: template("ks-status") },
      });
      await create(noRetry, va, {
        metadata: { name: "ks-status", labels: { keep: "yes" } },
        spec: { attacher: "ks.example.com", nodeName: "node-ks", source: { persistentVolumeName: "pv-ks" } },
      });
      await create(noRetry, sts, {
        metadata: { name: "ks-status", labels: { keep: "yes" } },
        spec: {
          replicas: 0,
          serviceName: "ks-status",
          selector: { matchLabels: { app: "ks-status" } },
          template: template("ks-status"),
        },
      });
      const patch = { metadata: { labels: { status: "patched" }, annotations: { status: "patched" } } };
      const patchStatus = async (path: string) => {
        const { code, body } = await rawJson(noRetry, "PATCH", `${path}/ks-status/status`, {
          body: patch,
          contentType: "application/merge-patch+json",
        });
        assert.equal(code, 200, JSON.stringify(body));
        return [body.metadata.labels, body.metadata.annotations];
      };
      try {
        const [deployLabels, deployAnnotations] = await patchStatus(deploy);
        assert.deepEqual(deployLabels, { keep: "yes" });
        assert.deepEqual(deployAnnotations?.status, "patched");
        assert.deepEqual(await patchStatus(va), [{ keep: "yes" }, undefined]);
        const [stsLabels, stsAnnotations] = await patchStatus(sts);
        assert.deepEqual([stsLabels, stsAnnotations], [{ keep: "yes", status: "patched" }, { status: "patched" }]);
      } finally {
        for (const path of [deploy, va, sts]) await remove(noRetry, `${path}/ks-status`);
      }
    },
  },
  {
    name: "an EndpointSlice's generation moves with its labels, not with zero values a PUT leaves out",
    async run({ noRetry, ns }) {
      const path = `/apis/discovery.k8s.io/v1/namespaces/${ns}/endpointslices`;
      const body = (labels: Record<string, string>, annotations?: Record<string, string>) => ({
        apiVersion: "discovery.k8s.io/v1",
        kind: "EndpointSlice",
        metadata: { name: "ks-eps", labels, annotations },
        addressType: "IPv4",
        endpoints: [{ addresses: ["10.1.2.3"] }],
        ports: [{ port: 80 }],
      });
      const created = await create(noRetry, path, body({ a: "1" }));
      assert.deepEqual(created.endpoints[0].conditions, {});
      const put = async (sent: Any) => {
        const { code, body: json } = await rawJson(noRetry, "PUT", `${path}/ks-eps`, { body: sent });
        assert.equal(code, 200, JSON.stringify(json));
        return json.metadata.generation;
      };
      try {
        assert.equal(await put(body({ a: "1" })), 1, "the same slice, conditions left out");
        assert.equal(await put(body({ a: "2" })), 2, "a label changed");
        assert.equal(await put(body({ a: "2" }, { note: "x" })), 2, "an annotation changed");
      } finally {
        await remove(noRetry, `${path}/ks-eps`);
      }
    },
  },
  {
    name: "a DaemonSet's metadata-only views and Table rows leave out its template-generation annotation",
    async run({ noRetry, ns }) {
      const path = `/apis/apps/v1/namespaces/${ns}/daemonsets`;
      const created = await create(noRetry, path, {
        metadata: { name: "ks-ds", annotations: { keep: "yes" } },
        spec: { selector: { matchLabels: { app: "ks-ds" } }, template: template("ks-ds") },
      });
      try {
        assert.deepEqual(created.metadata.annotations, {
          keep: "yes",
          "deprecated.daemonset.template.generation": "1",
        });
        const as = async (accept: string) =>
          JSON.parse(new TextDecoder().decode((await noRetry.request("GET", `${path}/ks-ds`, { accept })).body));
        const partial = await as("application/json;as=PartialObjectMetadata;v=v1;g=meta.k8s.io");
        assert.deepEqual(partial.metadata.annotations, { keep: "yes" }, JSON.stringify(partial));
        const table = await as(TABLE_ACCEPT);
        assert.deepEqual(table.rows[0].object.metadata.annotations, { keep: "yes" });
      } finally {
        await remove(noRetry, `${path}/ks-ds`);
      }
    },
  },
  {
    name: "a ResourceClaimTemplate created without spec answers its structs: metadata {} and devices.requests null",
    async run({ noRetry, ns }) {
      const path = `/apis/resource.k8s.io/v1/namespaces/${ns}/resourceclaimtemplates`;
      const created = await create(noRetry, path, { metadata: { name: "ks-rct", labels: { a: "b" } } });
      try {
        assert.deepEqual(created.spec, { metadata: {}, spec: { devices: { requests: null } } });
        assert.equal(created.metadata.managedFields[0].fieldsV1["f:spec"], undefined);
      } finally {
        await remove(noRetry, `${path}/ks-rct`);
      }
    },
  },
  {
    name:
      "PodCertificateRequests: an empty list as Table has the printer's columns, as PartialObjectMetadataList null items",
    async run({ noRetry, ns }) {
      const path = `/apis/certificates.k8s.io/v1/namespaces/${ns}/podcertificaterequests`;
      const get = async (accept: string) =>
        JSON.parse(new TextDecoder().decode((await noRetry.request("GET", path, { accept })).body));
      const table = await get(TABLE_ACCEPT);
      assert.deepEqual(table.columnDefinitions.map((c: Any) => c.name), [
        "Name",
        "PodName",
        "ServiceAccountName",
        "NodeName",
        "SignerName",
        "State",
        "UnverifiedUserAnnotations",
      ]);
      const partial = await get("application/json;as=PartialObjectMetadataList;v=v1;g=meta.k8s.io");
      assert.equal(partial.items, null, JSON.stringify(partial));
    },
  },
  {
    name:
      "reviews: a TokenReview answers its metadata and managedFields, a SelfSubjectRulesReview neither metadata nor spec",
    async run({ noRetry, ns }) {
      const token = await rawJson(noRetry, "POST", "/apis/authentication.k8s.io/v1/tokenreviews", {
        body: { metadata: { name: "ks-tr", labels: { a: "b" } }, spec: { token: "not-a-token" } },
        query: { fieldManager: "ks" },
      });
      assert.equal(token.code, 201, JSON.stringify(token.body));
      const meta = token.body.metadata;
      assert.deepEqual([meta.name, meta.labels, meta.creationTimestamp], ["ks-tr", { a: "b" }, undefined]);
      assert.deepEqual(meta.managedFields.map((e: Any) => [e.manager, e.operation, e.fieldsV1]), [[
        "ks",
        "Update",
        { "f:metadata": { "f:labels": { ".": {}, "f:a": {} } }, "f:spec": { "f:token": {} } },
      ]]);
      const rules = await rawJson(noRetry, "POST", "/apis/authorization.k8s.io/v1/selfsubjectrulesreviews", {
        body: { metadata: { name: "ks-ssrr", labels: { a: "b" } }, spec: { namespace: ns } },
      });
      assert.equal(rules.code, 201, JSON.stringify(rules.body));
      assert.deepEqual([rules.body.metadata, rules.body.spec], [{}, {}]);
      assert.equal(rules.body.status.incomplete, false);
      const self = await rawJson(noRetry, "POST", "/apis/authentication.k8s.io/v1/selfsubjectreviews", {
        body: { metadata: { name: "ks-ssr", labels: { a: "b" } } },
      });
      assert.equal(self.code, 201, JSON.stringify(self.body));
      assert.deepEqual(Object.keys(self.body.metadata), ["creationTimestamp"]);
      assert.match(self.body.metadata.creationTimestamp, /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/);
    },
  },
];
