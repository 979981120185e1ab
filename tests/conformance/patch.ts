/**
 * Conformance cases: Patch and apply: JSON patch failures, server-side apply's checks of the applied object, apply
 * through /status, the FieldsV1 shape kube writes, and the strategic merge patch directives kubectl relies on.
 * @module
 */
import assert from "node:assert/strict";
import type { KubeClient } from "../../runtime/client/client.ts";
import { CoreTypes, type KubeObject } from "../../runtime/types.ts";
import { eventually } from "../../testing/eventually.ts";
import { type ConformanceCase, POLL, type RawAnswer, sendBody, Widget } from "./support.ts";

const JSON_PATCH = "application/json-patch+json";
const MERGE = "application/merge-patch+json";
const STRATEGIC = "application/strategic-merge-patch+json";
const APPLY = "application/apply-patch+yaml";

// deno-lint-ignore no-explicit-any
type Any = any;

/** A raw write: the HTTP code and the decoded JSON answer. */
function send(
  client: KubeClient,
  method: string,
  path: string,
  contentType: string,
  body: unknown,
  query: Record<string, string> = {},
): Promise<RawAnswer> {
  return sendBody(client, method, path, body, contentType, query);
}

/** Asserts a Failure Status: code, reason (undefined: none, as kube sends for unclassified errors) and message. */
function assertStatus(res: { code: number; json: Any }, code: number, reason: string | undefined, message: string) {
  assert.equal(res.code, code, JSON.stringify(res.json));
  assert.equal(res.json.kind, "Status");
  assert.equal(res.json.code, code);
  assert.equal(res.json.reason, reason);
  assert.equal(res.json.message, message);
}

const cmPath = (ns: string, name: string) => `/api/v1/namespaces/${ns}/configmaps/${name}`;
const deployPath = (ns: string, name: string) => `/apis/apps/v1/namespaces/${ns}/deployments/${name}`;
const REJECTED = "the server rejected our request due to an error in our request";

async function configMap(client: KubeClient, ns: string, name: string, data: Record<string, string> = { a: "1" }) {
  return await client.create<KubeObject>(CoreTypes.ConfigMap, { metadata: { name, namespace: ns }, data }, {
    namespace: ns,
  });
}

/** A Deployment with two containers (ports, env) to strategic-merge into. */
async function deployment(client: KubeClient, ns: string, name: string): Promise<void> {
  const res = await send(client, "POST", `/apis/apps/v1/namespaces/${ns}/deployments`, "application/json", {
    apiVersion: "apps/v1",
    kind: "Deployment",
    metadata: { name },
    spec: {
      replicas: 1,
      selector: { matchLabels: { app: name } },
      strategy: { type: "RollingUpdate", rollingUpdate: { maxSurge: 1 } },
      template: {
        metadata: { labels: { app: name } },
        spec: {
          containers: [
            {
              name: "a",
              image: "nginx",
              ports: [{ containerPort: 80 }, { containerPort: 81 }],
              env: [{ name: "A", value: "1" }, { name: "B", value: "2" }],
            },
            { name: "b", image: "busybox" },
          ],
        },
      },
    },
  });
  assert.equal(res.code, 201, JSON.stringify(res.json));
}

const containersOf = (d: Any) =>
  d.spec.template.spec.containers.map((c: Any) => ({
    name: c.name,
    image: c.image,
    ports: (c.ports ?? []).map((p: Any) => p.containerPort),
    env: (c.env ?? []).map((e: Any) => `${e.name}=${e.value}`),
  }));

/** Patch and apply. */
export const patchCases: ConformanceCase[] = [
  {
    name: "JSON patch: a failed test, a missing path or an unknown op is 422 Invalid with the generic message",
    async run({ noRetry, ns }) {
      await configMap(noRetry, ns, "jp-fail");
      for (
        const ops of [
          [{ op: "test", path: "/data/a", value: "2" }],
          [{ op: "remove", path: "/data/missing" }],
          [{ op: "bogus", path: "/data/a" }],
        ]
      ) {
        assertStatus(await send(noRetry, "PATCH", cmPath(ns, "jp-fail"), JSON_PATCH, ops), 422, "Invalid", REJECTED);
      }
    },
  },
  {
    name: "JSON patch: a body that is not a list is 400 BadRequest (decode error)",
    async run({ noRetry, ns }) {
      await configMap(noRetry, ns, "jp-notlist");
      assertStatus(
        await send(noRetry, "PATCH", cmPath(ns, "jp-notlist"), JSON_PATCH, { op: "add" }),
        400,
        "BadRequest",
        "error decoding patch: json: cannot unmarshal object into Go value of type []handlers.jsonPatchOp",
      );
    },
  },
  {
    name: "merge and strategic merge patches must be objects (400 BadRequest)",
    async run({ noRetry, ns }) {
      await configMap(noRetry, ns, "mp-array");
      assertStatus(
        await send(noRetry, "PATCH", cmPath(ns, "mp-array"), MERGE, [1]),
        400,
        "BadRequest",
        "error decoding patch: json: cannot unmarshal array into Go value of type map[string]interface {}",
      );
      assertStatus(
        await send(noRetry, "PATCH", cmPath(ns, "mp-array"), STRATEGIC, [1]),
        400,
        "BadRequest",
        "json: cannot unmarshal array into Go value of type map[string]interface {}",
      );
    },
  },
  {
    name: "apply: a missing or other kind/apiVersion is 400 invalid object type",
    async run({ noRetry, ns }) {
      const q = { fieldManager: "conf" };
      const cases: Array<[unknown, string]> = [
        [{ apiVersion: "v1", metadata: { name: "ap-kind" } }, "invalid object type: /v1, Kind="],
        [{ kind: "ConfigMap", metadata: { name: "ap-kind" } }, "invalid object type: /, Kind=ConfigMap"],
        [{ apiVersion: "v1", kind: "Secret", metadata: { name: "ap-kind" } }, "invalid object type: /v1, Kind=Secret"],
      ];
      for (const [body, message] of cases) {
        assertStatus(await send(noRetry, "PATCH", cmPath(ns, "ap-kind"), APPLY, body, q), 400, "BadRequest", message);
      }
      assertStatus(
        await send(noRetry, "PATCH", deployPath(ns, "ap-kind"), APPLY, {
          apiVersion: "apps/v1beta1",
          kind: "Deployment",
          metadata: { name: "ap-kind" },
        }, q),
        400,
        "BadRequest",
        "invalid object type: apps/v1beta1, Kind=Deployment",
      );
    },
  },
  {
    name: "apply: a name other than the URL's, or none, is 400 BadRequest",
    async run({ noRetry, ns }) {
      const q = { fieldManager: "conf" };
      assertStatus(
        await send(noRetry, "PATCH", cmPath(ns, "ap-name"), APPLY, {
          apiVersion: "v1",
          kind: "ConfigMap",
          metadata: { name: "other" },
        }, q),
        400,
        "BadRequest",
        "the name of the object (other) does not match the name on the URL (ap-name)",
      );
      assertStatus(
        await send(noRetry, "PATCH", cmPath(ns, "ap-name"), APPLY, { apiVersion: "v1", kind: "ConfigMap" }, q),
        400,
        "BadRequest",
        "the name of the object (ap-name based on URL) was undeterminable: name must be provided",
      );
    },
  },
  {
    name: "apply: managedFields in the body is 400 metadata.managedFields must be nil",
    async run({ noRetry, ns }) {
      const body = {
        apiVersion: "v1",
        kind: "ConfigMap",
        metadata: {
          name: "ap-mf",
          managedFields: [{ manager: "x", operation: "Apply", apiVersion: "v1", fieldsType: "FieldsV1", fieldsV1: {} }],
        },
      };
      assertStatus(
        await send(noRetry, "PATCH", cmPath(ns, "ap-mf"), APPLY, body, { fieldManager: "conf" }),
        400,
        "BadRequest",
        "metadata.managedFields must be nil",
      );
    },
  },
  {
    name: "apply: another namespace than the URL's is 400; no fieldManager is 422",
    async run({ noRetry, ns }) {
      const body = { apiVersion: "v1", kind: "ConfigMap", metadata: { name: "ap-ns", namespace: "elsewhere" } };
      assertStatus(
        await send(noRetry, "PATCH", cmPath(ns, "ap-ns"), APPLY, body, { fieldManager: "conf" }),
        400,
        "BadRequest",
        "the namespace of the provided object does not match the namespace sent on the request",
      );
      const noManager = await send(noRetry, "PATCH", cmPath(ns, "ap-ns"), APPLY, {
        apiVersion: "v1",
        kind: "ConfigMap",
        metadata: { name: "ap-ns" },
      });
      assertStatus(
        noManager,
        422,
        "Invalid",
        'PatchOptions.meta.k8s.io "" is invalid: fieldManager: Required value: is required for apply patch',
      );
    },
  },
  {
    name: "FieldsV1 of a create: added maps and objects carry '.', managedFields sorted Apply before Update",
    async run({ noRetry, ns }) {
      const created = await send(noRetry, "POST", `/api/v1/namespaces/${ns}/configmaps`, "application/json", {
        metadata: { name: "fv1", labels: { a: "b" } },
        data: { k: "v" },
      }, { fieldManager: "creator" });
      assert.equal(created.code, 201);
      assert.deepEqual(created.json.metadata.managedFields.map((e: Any) => [e.manager, e.operation, e.fieldsV1]), [
        ["creator", "Update", {
          "f:data": { ".": {}, "f:k": {} },
          "f:metadata": { "f:labels": { ".": {}, "f:a": {} } },
        }],
      ]);
      const applied = await send(noRetry, "PATCH", cmPath(ns, "fv1"), APPLY, {
        apiVersion: "v1",
        kind: "ConfigMap",
        metadata: { name: "fv1", labels: { z: "1" } },
        data: { j: "w" },
      }, { fieldManager: "applier" });
      assert.equal(applied.code, 200, JSON.stringify(applied.json));
      assert.deepEqual(applied.json.metadata.managedFields.map((e: Any) => [e.manager, e.operation, e.fieldsV1]), [
        ["applier", "Apply", { "f:data": { "f:j": {} }, "f:metadata": { "f:labels": { "f:z": {} } } }],
        ["creator", "Update", {
          "f:data": { ".": {}, "f:k": {} },
          "f:metadata": { "f:labels": { ".": {}, "f:a": {} } },
        }],
      ]);
    },
  },
  {
    name: "FieldsV1: atomic maps (a Service's selector) and ownerReference elements are owned whole",
    async run({ noRetry, ns }) {
      const svc = await send(noRetry, "POST", `/api/v1/namespaces/${ns}/services`, "application/json", {
        metadata: { name: "fv1-svc" },
        spec: { selector: { app: "x" }, ports: [{ port: 80, targetPort: 8080 }] },
      }, { fieldManager: "creator" });
      assert.equal(svc.code, 201, JSON.stringify(svc.json));
      const spec = svc.json.metadata.managedFields[0].fieldsV1["f:spec"];
      assert.deepEqual(spec["f:selector"], {});
      assert.deepEqual(spec["f:ports"], {
        ".": {},
        'k:{"port":80,"protocol":"TCP"}': { ".": {}, "f:port": {}, "f:protocol": {}, "f:targetPort": {} },
      });
      // A live owner, so the real garbage collector leaves the dependent alone.
      const uid = (await configMap(noRetry, ns, "fv1-owner")).metadata.uid!;
      const owned = await send(noRetry, "POST", `/api/v1/namespaces/${ns}/configmaps`, "application/json", {
        metadata: {
          name: "fv1-owned",
          ownerReferences: [{ apiVersion: "v1", kind: "ConfigMap", name: "fv1-owner", uid }],
          finalizers: ["example.com/f"],
        },
      }, { fieldManager: "creator" });
      assert.equal(owned.code, 201, JSON.stringify(owned.json));
      assert.deepEqual(owned.json.metadata.managedFields[0].fieldsV1, {
        "f:metadata": {
          "f:finalizers": { ".": {}, 'v:"example.com/f"': {} },
          "f:ownerReferences": { ".": {}, [`k:{"uid":"${uid}"}`]: {} },
        },
      });
      const cleared = await send(noRetry, "PATCH", cmPath(ns, "fv1-owned"), MERGE, { metadata: { finalizers: null } });
      assert.equal(cleared.code, 200, JSON.stringify(cleared.json));
    },
  },
  {
    name: "apply through /status records a manager with subresource status; stopping to apply a field removes it",
    async run({ client, noRetry, ns }) {
      const base = `/apis/${Widget.group}/${Widget.version}/namespaces/${ns}/widgets`;
      const created = await eventually("Widget served", async () => {
        const res = await send(noRetry, "POST", base, "application/json", {
          apiVersion: `${Widget.group}/v1`,
          kind: "Widget",
          metadata: { name: "st-apply", labels: { a: "b" } },
          spec: { size: 1 },
        }, { fieldManager: "creator" });
        if (res.code === 404) throw new Error("not served yet");
        return res;
      }, POLL);
      assert.equal(created.code, 201, JSON.stringify(created.json));
      assert.deepEqual(created.json.metadata.managedFields[0].fieldsV1, {
        "f:metadata": { "f:labels": { ".": {}, "f:a": {} } },
        "f:spec": { ".": {}, "f:color": {}, "f:size": {} },
      });
      const apply = (body: Record<string, unknown>) =>
        send(noRetry, "PATCH", `${base}/st-apply/status`, APPLY, {
          apiVersion: `${Widget.group}/v1`,
          kind: "Widget",
          metadata: { name: "st-apply" },
          ...body,
        }, { fieldManager: "status-writer" });
      const first = await apply({ status: { phase: "Ready" } });
      assert.equal(first.code, 200, JSON.stringify(first.json));
      assert.equal(first.json.status.phase, "Ready");
      const entry = first.json.metadata.managedFields.find((e: Any) => e.manager === "status-writer");
      assert.deepEqual(
        { ...entry, time: undefined },
        {
          manager: "status-writer",
          operation: "Apply",
          apiVersion: `${Widget.group}/v1`,
          time: undefined,
          fieldsType: "FieldsV1",
          fieldsV1: { "f:status": { "f:phase": {} } },
          subresource: "status",
        },
      );
      // The same manager applies only spec through /status: spec is ignored, its status field is removed.
      const second = await apply({ spec: { size: 5 } });
      assert.equal(second.code, 200, JSON.stringify(second.json));
      assert.equal(second.json.spec.size, 1);
      assert.equal(second.json.status, undefined);
      assert.deepEqual(second.json.metadata.managedFields.map((e: Any) => e.manager), ["creator"]);
      await client.delete(Widget, "st-apply", { namespace: ns });
      // An apply through /status does not create the object.
      const missing = await send(noRetry, "PATCH", `${base}/st-missing/status`, APPLY, {
        apiVersion: `${Widget.group}/v1`,
        kind: "Widget",
        metadata: { name: "st-missing" },
        status: { phase: "Ready" },
      }, { fieldManager: "status-writer" });
      assertStatus(missing, 404, "NotFound", `widgets.${Widget.group} "st-missing" not found`);
    },
  },
  {
    name: "strategic merge: containers merge by name, ports by containerPort, env by name; new elements first",
    async run({ noRetry, ns }) {
      await deployment(noRetry, ns, "smp-merge");
      const first = await send(noRetry, "PATCH", deployPath(ns, "smp-merge"), STRATEGIC, {
        spec: { template: { spec: { containers: [{ name: "c", image: "redis" }, { name: "a", image: "nginx:2" }] } } },
      });
      assert.equal(first.code, 200, JSON.stringify(first.json));
      assert.deepEqual(containersOf(first.json).map((c: Any) => `${c.name}:${c.image}`), [
        "c:redis",
        "a:nginx:2",
        "b:busybox",
      ]);
      const second = await send(noRetry, "PATCH", deployPath(ns, "smp-merge"), STRATEGIC, {
        spec: {
          template: {
            spec: {
              containers: [{
                name: "a",
                env: [{ name: "B", value: "22" }, { name: "C", value: "3" }],
                ports: [{ containerPort: 82 }],
              }],
            },
          },
        },
      });
      assert.equal(second.code, 200, JSON.stringify(second.json));
      const a = containersOf(second.json).find((c: Any) => c.name === "a");
      assert.deepEqual(a.ports, [82, 80, 81]);
      assert.deepEqual(a.env, ["A=1", "B=22", "C=3"]);
    },
  },
  {
    name: "strategic merge: $patch delete removes a container and an env entry; $patch replace replaces a list",
    async run({ noRetry, ns }) {
      await deployment(noRetry, ns, "smp-delete");
      const del = await send(noRetry, "PATCH", deployPath(ns, "smp-delete"), STRATEGIC, {
        spec: {
          template: {
            spec: {
              containers: [{ name: "b", $patch: "delete" }, { name: "a", env: [{ name: "A", $patch: "delete" }] }],
            },
          },
        },
      });
      assert.equal(del.code, 200, JSON.stringify(del.json));
      assert.deepEqual(containersOf(del.json).map((c: Any) => [c.name, c.env]), [["a", ["B=2"]]]);
      const replace = await send(noRetry, "PATCH", deployPath(ns, "smp-delete"), STRATEGIC, {
        spec: { template: { spec: { containers: [{ name: "z", image: "z" }, { $patch: "replace" }] } } },
      });
      assert.equal(replace.code, 200, JSON.stringify(replace.json));
      assert.deepEqual(containersOf(replace.json).map((c: Any) => c.name), ["z"]);
    },
  },
  {
    name: "strategic merge: $retainKeys drops the other fields; a patch key outside them is 400",
    async run({ noRetry, ns }) {
      await deployment(noRetry, ns, "smp-retain");
      const ok = await send(noRetry, "PATCH", deployPath(ns, "smp-retain"), STRATEGIC, {
        spec: { strategy: { $retainKeys: ["type"], type: "Recreate" } },
      });
      assert.equal(ok.code, 200, JSON.stringify(ok.json));
      assert.deepEqual(ok.json.spec.strategy, { type: "Recreate" });
      assertStatus(
        await send(noRetry, "PATCH", deployPath(ns, "smp-retain"), STRATEGIC, {
          spec: { strategy: { $retainKeys: ["type"], rollingUpdate: { maxSurge: 2 } } },
        }),
        400,
        "BadRequest",
        "invalid patch format of retainKeys",
      );
    },
  },
  {
    name: "strategic merge: $setElementOrder reorders a list, $deleteFromPrimitiveList removes finalizers",
    async run({ noRetry, ns }) {
      await deployment(noRetry, ns, "smp-order");
      const ordered = await send(noRetry, "PATCH", deployPath(ns, "smp-order"), STRATEGIC, {
        spec: { template: { spec: { "$setElementOrder/containers": [{ name: "b" }, { name: "a" }] } } },
      });
      assert.equal(ordered.code, 200, JSON.stringify(ordered.json));
      assert.deepEqual(containersOf(ordered.json).map((c: Any) => c.name), ["b", "a"]);
      await configMap(noRetry, ns, "smp-fin");
      const withFinalizers = await send(noRetry, "PATCH", cmPath(ns, "smp-fin"), STRATEGIC, {
        metadata: { finalizers: ["example.com/a", "example.com/b"] },
      });
      assert.deepEqual(withFinalizers.json.metadata.finalizers, ["example.com/a", "example.com/b"]);
      const removed = await send(noRetry, "PATCH", cmPath(ns, "smp-fin"), STRATEGIC, {
        metadata: { "$deleteFromPrimitiveList/finalizers": ["example.com/a"] },
      });
      assert.deepEqual(removed.json.metadata.finalizers, ["example.com/b"]);
      const cleared = await send(noRetry, "PATCH", cmPath(ns, "smp-fin"), MERGE, { metadata: { finalizers: null } });
      assert.equal(cleared.json.metadata.finalizers, undefined);
    },
  },
  {
    name: "strategic merge: an unknown $patch or a list element without its merge key is a 500 without reason",
    async run({ noRetry, ns }) {
      await deployment(noRetry, ns, "smp-bad");
      assertStatus(
        await send(noRetry, "PATCH", deployPath(ns, "smp-bad"), STRATEGIC, { spec: { strategy: { $patch: "bogus" } } }),
        500,
        undefined,
        "unknown patch type: bogus in map: map[$patch:bogus]",
      );
      assertStatus(
        await send(noRetry, "PATCH", deployPath(ns, "smp-bad"), STRATEGIC, {
          spec: { template: { spec: { containers: [{ image: "q" }] } } },
        }),
        500,
        undefined,
        "map: map[image:q] does not contain declared merge key: name",
      );
    },
  },
  {
    name: "strategic merge patch of a custom resource is 415 with the patch types it serves",
    async run({ noRetry, ns }) {
      const path = `/apis/${Widget.group}/${Widget.version}/namespaces/${ns}/widgets/any`;
      const res = await send(noRetry, "PATCH", path, STRATEGIC, {});
      assert.equal(res.code, 415);
      assert.equal(res.json.reason, "UnsupportedMediaType");
      assert.equal(
        res.json.message,
        "the body of the request was in an unknown format - accepted media types include: " +
          "application/json-patch+json, application/merge-patch+json, application/apply-patch+yaml",
      );
    },
  },
];
