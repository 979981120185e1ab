/**
 * Conformance cases: the resources and subresources kube-apiserver lists in discovery beyond CRUD — `bindings` and
 * pods/binding, componentstatuses, autoscaling/v1 Scale of apps workloads, and the connect subresources (pods/exec,
 * attach, portforward, log, proxy; nodes/proxy; services/proxy) as a control plane with no kubelet answers them; what
 * a status write takes from its body's metadata.
 * @module
 */
import assert from "node:assert/strict";
import type { KubeClient } from "../../runtime/client/client.ts";
import { CoreTypes, type KubeObject } from "../../runtime/types.ts";
import type { ConformanceCase } from "./support.ts";

// deno-lint-ignore no-explicit-any
type Any = any;

async function call(
  client: KubeClient,
  method: string,
  path: string,
  body?: unknown,
  headers?: Record<string, string>,
) {
  const res = await client.request(method, path, { body, headers });
  const text = new TextDecoder().decode(res.body);
  let json: Any;
  try {
    json = text ? JSON.parse(text) : undefined;
  } catch {
    json = undefined;
  }
  return { code: res.status, json, text, headers: res.headers };
}

/** Asserts a Failure Status: code, reason (undefined: none), message, and details when given. */
function assertStatus(
  res: { code: number; json: Any; text: string },
  code: number,
  reason: string | undefined,
  message: string,
  details?: unknown,
) {
  assert.equal(res.code, code, res.text);
  assert.equal(res.json.kind, "Status");
  assert.equal(res.json.code, code);
  assert.equal(res.json.reason, reason);
  assert.equal(res.json.message, message);
  if (details !== undefined) assert.deepEqual(res.json.details, details);
}

const pods = (ns: string) => `/api/v1/namespaces/${ns}/pods`;

async function pod(client: KubeClient, ns: string, name: string, extra: Record<string, unknown> = {}) {
  await client.create<KubeObject>(CoreTypes.Pod, {
    metadata: { name, namespace: ns, ...(extra.metadata as object ?? {}) },
    spec: { containers: [{ name: "c", image: "nginx" }], ...(extra.spec as object ?? {}) },
  }, { namespace: ns });
}

const binding = (name: string, node: string, metadata: Record<string, unknown> = {}) => ({
  apiVersion: "v1",
  kind: "Binding",
  metadata: { name, ...metadata },
  target: { kind: "Node", name: node },
});

/** A Node object with no kubelet behind it, removed after `fn`. */
async function withNode(client: KubeClient, name: string, fn: () => Promise<void>): Promise<void> {
  await client.create<KubeObject>(CoreTypes.Node, { metadata: { name } });
  try {
    await fn();
  } finally {
    await client.delete(CoreTypes.Node, name).catch(() => {});
  }
}

const NO_ADDRESSES = "no preferred addresses found; known addresses: []";

/** bindings, componentstatuses, scale, connect subresources. */
export const subresourceCases: ConformanceCase[] = [
  {
    name: "bindings: POST binds the pod (nodeName, annotations, PodScheduled), a second binding is 409, GET is 405",
    async run({ client, noRetry, ns }) {
      await pod(client, ns, "bind-a");
      const ok = await call(
        noRetry,
        "POST",
        `/api/v1/namespaces/${ns}/bindings`,
        binding("bind-a", "node-1", { annotations: { "scheduler.example/why": "test" } }),
      );
      assert.equal(ok.code, 201, ok.text);
      assert.deepEqual(ok.json, { kind: "Status", apiVersion: "v1", metadata: {}, status: "Success", code: 201 });
      const bound = await client.get<Any>(CoreTypes.Pod, "bind-a", { namespace: ns });
      assert.equal(bound.spec.nodeName, "node-1");
      assert.equal(bound.metadata.annotations["scheduler.example/why"], "test");
      const scheduled = bound.status.conditions.find((c: Any) => c.type === "PodScheduled");
      assert.equal(scheduled.status, "True");
      assert.ok(scheduled.lastTransitionTime);
      assertStatus(
        await call(noRetry, "POST", `/api/v1/namespaces/${ns}/bindings`, binding("bind-a", "node-2")),
        409,
        "Conflict",
        'Operation cannot be fulfilled on pods/binding "bind-a": pod bind-a is already assigned to node "node-1"',
        { name: "bind-a", kind: "pods/binding" },
      );
      assertStatus(
        await call(noRetry, "POST", `/api/v1/namespaces/${ns}/bindings`, binding("bind-none", "node-1")),
        404,
        "NotFound",
        'pods "bind-none" not found',
        { name: "bind-none", kind: "pods" },
      );
      assertStatus(
        await call(noRetry, "GET", `/api/v1/namespaces/${ns}/bindings`),
        405,
        "MethodNotAllowed",
        "the server does not allow this method on the requested resource",
      );
    },
  },
  {
    name:
      "pods/binding: the URL's name must be the Binding's, target.name is required (500 aggregate), gated pods are 409",
    async run({ client, noRetry, ns }) {
      await pod(client, ns, "bind-b");
      assertStatus(
        await call(noRetry, "POST", `${pods(ns)}/bind-b/binding`, binding("other", "node-1")),
        400,
        "BadRequest",
        "name in URL does not match name in Binding object",
      );
      assertStatus(
        await call(noRetry, "POST", `${pods(ns)}/bind-b/binding`, { ...binding("bind-b", ""), target: {} }),
        500,
        undefined,
        "target.name: Required value",
      );
      await pod(client, ns, "bind-gated", { spec: { schedulingGates: [{ name: "example.com/wait" }] } });
      assertStatus(
        await call(noRetry, "POST", `${pods(ns)}/bind-gated/binding`, binding("bind-gated", "node-1")),
        409,
        "Conflict",
        'Operation cannot be fulfilled on pods/binding "bind-gated": pod bind-gated has non-empty .spec.schedulingGates',
      );
      const ok = await call(noRetry, "POST", `${pods(ns)}/bind-b/binding`, binding("bind-b", "node-1"));
      assert.equal(ok.code, 201, ok.text);
    },
  },
  {
    name:
      "componentstatuses: scheduler, controller-manager, etcd-0 with one Healthy condition each; Table; 404; warning",
    async run({ noRetry }) {
      const list = await call(noRetry, "GET", "/api/v1/componentstatuses");
      assert.equal(list.code, 200);
      assert.equal(list.json.kind, "ComponentStatusList");
      // kube probes the components in parallel: the order of the first two varies.
      assert.deepEqual(list.json.items.map((i: Any) => i.metadata.name).sort(), [
        "controller-manager",
        "etcd-0",
        "scheduler",
      ]);
      for (const item of list.json.items) {
        assert.equal(item.conditions.length, 1);
        assert.equal(item.conditions[0].type, "Healthy");
      }
      assert.equal(list.headers.get("warning"), '299 - "v1 ComponentStatus is deprecated in v1.19+"');
      const etcd = await call(noRetry, "GET", "/api/v1/componentstatuses/etcd-0");
      assert.deepEqual(etcd.json, {
        kind: "ComponentStatus",
        apiVersion: "v1",
        metadata: { name: "etcd-0" },
        conditions: [{ type: "Healthy", status: "True", message: "ok" }],
      });
      const table = await noRetry.request("GET", "/api/v1/componentstatuses/etcd-0", {
        accept: "application/json;as=Table;v=v1;g=meta.k8s.io, application/json",
      });
      const t = JSON.parse(new TextDecoder().decode(table.body));
      assert.equal(t.kind, "Table");
      assert.deepEqual(t.columnDefinitions.map((c: Any) => c.name), ["Name", "Status", "Message", "Error"]);
      assert.deepEqual(t.rows[0].cells, ["etcd-0", "Healthy", "ok", ""]);
      assertStatus(
        await call(noRetry, "GET", "/api/v1/componentstatuses/nope"),
        404,
        "NotFound",
        'componentstatus "nope" not found',
        { name: "nope", kind: "componentstatus" },
      );
    },
  },
  {
    name: "scale: apps workloads answer autoscaling/v1 Scale; an apps/v1 Scale body is 400; a wrong name is 400",
    async run({ client, noRetry, ns }) {
      const deployments = { group: "apps", version: "v1", plural: "deployments", kind: "Deployment", namespaced: true };
      await client.create<KubeObject>(deployments, {
        metadata: { name: "scale-subres", namespace: ns },
        spec: {
          selector: { matchLabels: { app: "scale-subres" } },
          template: {
            metadata: { labels: { app: "scale-subres" } },
            spec: { containers: [{ name: "c", image: "nginx" }] },
          },
        },
      }, { namespace: ns });
      const path = `/apis/apps/v1/namespaces/${ns}/deployments/scale-subres/scale`;
      const got = await call(noRetry, "GET", path);
      assert.equal(got.json.apiVersion, "autoscaling/v1");
      assert.equal(got.json.kind, "Scale");
      assert.equal(got.json.status.selector, "app=scale-subres");
      const scale = (apiVersion: string, name = "scale-subres") => ({
        apiVersion,
        kind: "Scale",
        metadata: { name, namespace: ns },
        spec: { replicas: 2 },
      });
      assertStatus(
        await call(noRetry, "PUT", path, scale("apps/v1")),
        400,
        "BadRequest",
        'Scale in version "v1" cannot be handled as a Scale: no kind "Scale" is registered for version "apps/v1" in scheme "pkg/runtime/scheme.go:111"',
      );
      assertStatus(
        await call(noRetry, "PUT", path, scale("autoscaling/v1", "other")),
        400,
        "BadRequest",
        "the name of the object (other) does not match the name on the URL (scale-subres)",
      );
      const put = await call(noRetry, "PUT", path, scale("autoscaling/v1"));
      assert.equal(put.code, 200, put.text);
      assert.equal(put.json.spec.replicas, 2);
    },
  },
  {
    name: "connect subresources of an unscheduled pod: exec/attach/portforward 400 no host, log 204, container errors",
    async run({ client, noRetry, ns }) {
      await pod(client, ns, "conn-a");
      await client.create<KubeObject>(CoreTypes.Pod, {
        metadata: { name: "conn-two", namespace: ns },
        spec: {
          initContainers: [{ name: "i", image: "busybox" }],
          containers: [{ name: "a", image: "nginx" }, { name: "b", image: "nginx" }],
        },
      }, { namespace: ns });
      for (const [method, sub] of [["GET", "exec"], ["POST", "exec"], ["POST", "attach"], ["GET", "portforward"]]) {
        assertStatus(
          await call(noRetry, method, `${pods(ns)}/conn-a/${sub}?command=ls&stdout=true`),
          400,
          "BadRequest",
          "pod conn-a does not have a host assigned",
        );
      }
      const log = await call(noRetry, "GET", `${pods(ns)}/conn-a/log`);
      assert.equal(log.code, 204);
      assert.equal(log.text, "");
      for (const sub of ["log", "exec", "attach"]) {
        assertStatus(
          await call(noRetry, "GET", `${pods(ns)}/conn-two/${sub}`),
          400,
          "BadRequest",
          "a container name must be specified for pod conn-two, choose one of: [i a b]",
        );
      }
      assertStatus(
        await call(noRetry, "GET", `${pods(ns)}/conn-two/exec?container=zz`),
        400,
        "BadRequest",
        "container zz is not valid for pod conn-two",
      );
      assertStatus(
        await call(noRetry, "PUT", `${pods(ns)}/conn-a/exec`),
        405,
        "MethodNotAllowed",
        "the server does not allow this method on the requested resource",
      );
      assertStatus(
        await call(noRetry, "GET", `${pods(ns)}/conn-none/exec`),
        404,
        "NotFound",
        'pods "conn-none" not found',
      );
    },
  },
  {
    name: "connect subresources of a pod on a missing Node: 404 naming the node as a pod (kube's node getter)",
    async run({ client, noRetry, ns }) {
      const node = `${ns}-gone`;
      await pod(client, ns, "conn-gone", { spec: { nodeName: node } });
      for (const sub of ["exec", "log", "portforward"]) {
        assertStatus(
          await call(noRetry, "GET", `${pods(ns)}/conn-gone/${sub}`),
          404,
          "NotFound",
          `pods "${node}" not found`,
          { name: node, kind: "pods" },
        );
      }
      assertStatus(
        await call(noRetry, "GET", `/api/v1/nodes/${node}/proxy/metrics`),
        404,
        "NotFound",
        `nodes "${node}" not found`,
        { name: node, kind: "nodes" },
      );
    },
  },
  {
    name: "connect subresources through a Node without a kubelet: no addresses 500, loopback not allowed, dial refused",
    async run({ client, noRetry, ns }) {
      const node = `${ns}-idle`;
      await withNode(client, node, async () => {
        await pod(client, ns, "conn-idle", { spec: { nodeName: node } });
        for (
          const path of [`${pods(ns)}/conn-idle/exec`, `${pods(ns)}/conn-idle/log`, `/api/v1/nodes/${node}/proxy/x`]
        ) {
          assertStatus(await call(noRetry, "GET", path), 500, undefined, NO_ADDRESSES);
        }
        await client.patch(CoreTypes.Node, node, {
          status: {
            addresses: [{ type: "InternalIP", address: "127.0.0.1" }],
            daemonEndpoints: { kubeletEndpoint: { Port: 1 } },
          },
        }, { type: "merge", subresource: "status" });
        assertStatus(
          await call(noRetry, "GET", `${pods(ns)}/conn-idle/exec?command=ls`),
          400,
          "BadRequest",
          "Upgrade request required",
        );
        assertStatus(
          await call(noRetry, "GET", `${pods(ns)}/conn-idle/log`),
          500,
          undefined,
          `Get "https://127.0.0.1:1/containerLogs/${ns}/conn-idle/c": dial tcp 127.0.0.1:1: connect: connection refused`,
        );
        assertStatus(
          await call(noRetry, "GET", `/api/v1/nodes/${node}/proxy/x`),
          400,
          "BadRequest",
          "address not allowed",
        );
      });
    },
  },
  {
    name: "proxy: a pod without an IP is 400 address not allowed; a Service without endpoints (or none) is 503",
    async run({ client, noRetry, ns }) {
      await pod(client, ns, "proxy-a");
      assertStatus(
        await call(noRetry, "GET", `${pods(ns)}/proxy-a/proxy/healthz`),
        400,
        "BadRequest",
        "address not allowed",
      );
      await client.create<KubeObject>(CoreTypes.Service, {
        metadata: { name: "proxied", namespace: ns },
        spec: { ports: [{ name: "80-80", port: 80 }], selector: { app: "none" } },
      }, { namespace: ns });
      for (const name of ["proxied", "proxied:80", "absent"]) {
        for (const method of ["GET", "POST"]) {
          assertStatus(
            await call(noRetry, method, `/api/v1/namespaces/${ns}/services/${name}/proxy/a/b`),
            503,
            "ServiceUnavailable",
            `no endpoints available for service "${name.split(":")[0]}"`,
          );
        }
      }
    },
  },
  {
    name: "a status write takes the body's labels and annotations, except where the status strategy keeps them",
    async run({ noRetry, ns }) {
      const labels = { app: "st-meta" };
      const objects: Array<[string, Any, Record<string, string>, Record<string, string> | undefined]> = [
        // A Deployment's status strategy keeps its labels (not its annotations).
        [
          `/apis/apps/v1/namespaces/${ns}/deployments`,
          {
            metadata: { name: "st-meta", labels: { keep: "1" } },
            spec: {
              replicas: 0,
              selector: { matchLabels: labels },
              template: { metadata: { labels }, spec: { containers: [{ name: "c", image: "busybox:1.36" }] } },
            },
          },
          { keep: "1" },
          { status: "patched" },
        ],
        // A ReplicaSet's takes both.
        [
          `/apis/apps/v1/namespaces/${ns}/replicasets`,
          {
            metadata: { name: "st-meta", labels: { keep: "1" } },
            spec: {
              replicas: 0,
              selector: { matchLabels: labels },
              template: { metadata: { labels }, spec: { containers: [{ name: "c", image: "busybox:1.36" }] } },
            },
          },
          { keep: "1", status: "patched" },
          { status: "patched" },
        ],
        // A FlowSchema's keeps its whole metadata (metav1.ResetObjectMetaForStatus).
        [
          "/apis/flowcontrol.apiserver.k8s.io/v1/flowschemas",
          {
            metadata: { name: `st-meta-${ns}`, labels: { keep: "1" } },
            spec: { priorityLevelConfiguration: { name: "global-default" }, matchingPrecedence: 9000 },
          },
          { keep: "1" },
          undefined,
        ],
      ];
      for (const [collection, body, wantLabels, wantAnnotations] of objects) {
        const created = await call(noRetry, "POST", collection, JSON.stringify(body));
        assert.equal(created.code, 201, created.text);
        const patch = { metadata: { labels: { status: "patched" }, annotations: { status: "patched" } } };
        const res = await noRetry.request("PATCH", `${collection}/${body.metadata.name}/status`, {
          body: JSON.stringify(patch),
          contentType: "application/merge-patch+json",
        });
        const patched = { code: res.status, text: new TextDecoder().decode(res.body) };
        const json = JSON.parse(patched.text);
        assert.equal(patched.code, 200, patched.text);
        assert.deepEqual(json.metadata.labels, wantLabels, collection);
        assert.deepEqual(json.metadata.annotations, wantAnnotations, collection);
        await call(noRetry, "DELETE", `${collection}/${body.metadata.name}`);
      }
    },
  },
];
