/**
 * Conformance cases: a Pod's `ephemeralcontainers` and `resize` subresources (found by the differential battery,
 * tests/differential/). GET answers the Pod; a write through `ephemeralcontainers` adds ephemeral containers and
 * drops every other change, refuses a change to or the removal of an existing one, validates new ones as kube does
 * (no ports, names unique across all containers) and records its writer's managedFields entry with the subresource;
 * a write through `resize` changes containers' resources only and refuses adding containers or other resources.
 * @module
 */
import assert from "node:assert/strict";
import type { KubeClient } from "../../runtime/client/client.ts";
import { type ConformanceCase, POLL } from "./support.ts";
import { bindingTo, Role, RoleBinding, serviceAccountClient } from "./authz_support.ts";
import { eventually } from "../../testing/eventually.ts";

// deno-lint-ignore no-explicit-any
type Any = any;

async function send(
  client: KubeClient,
  method: string,
  path: string,
  body?: unknown,
  contentType = "application/strategic-merge-patch+json",
): Promise<[number, Any]> {
  const res = await client.request(method, path, body === undefined ? {} : { body: JSON.stringify(body), contentType });
  return [res.status, JSON.parse(new TextDecoder().decode(res.body))];
}

/** The first cause of a 422, as `field: message`. */
const cause = (status: Any) => `${status.details?.causes?.[0]?.field}: ${status.details?.causes?.[0]?.message}`;

export const podSubresourceWriteCases: ConformanceCase[] = [
  {
    name: "pods/ephemeralcontainers: GET is the Pod; a patch adds one and drops other changes; existing ones are fixed",
    async run({ noRetry, ns }) {
      const pods = `/api/v1/namespaces/${ns}/pods`;
      const pod = { metadata: { name: "eph" }, spec: { containers: [{ name: "c", image: "busybox:1.36" }] } };
      const [created, body] = await send(noRetry, "POST", pods, pod, "application/json");
      assert.equal(created, 201, JSON.stringify(body));
      const at = `${pods}/eph/ephemeralcontainers`;
      const [code, got] = await send(noRetry, "GET", at);
      assert.equal(code, 200, JSON.stringify(got));
      assert.deepEqual([got.kind, got.metadata.name], ["Pod", "eph"]);
      // What `kubectl debug` sends, with a change of the containers and labels the subresource drops.
      const add = {
        metadata: { labels: { through: "ephemeral" } },
        spec: {
          containers: [{ name: "c", image: "busybox:1.37" }],
          ephemeralContainers: [{ name: "dbg", image: "busybox:1.36", stdin: true, tty: true }],
        },
      };
      const [addCode, added] = await send(noRetry, "PATCH", `${at}?fieldManager=conf-debug`, add);
      assert.equal(addCode, 200, JSON.stringify(added));
      assert.equal(added.spec.containers[0].image, "busybox:1.36");
      assert.equal(added.metadata.labels, undefined);
      const dbg = added.spec.ephemeralContainers[0];
      assert.deepEqual(
        [dbg.name, dbg.terminationMessagePolicy, dbg.imagePullPolicy, dbg.stdin],
        ["dbg", "File", "IfNotPresent", true],
      );
      const entry = added.metadata.managedFields.find((e: Any) => e.manager === "conf-debug");
      assert.deepEqual([entry?.operation, entry?.subresource], ["Update", "ephemeralcontainers"]);
      // kube's field manager records the request as sent, dropped changes included.
      assert.deepEqual(entry.fieldsV1["f:metadata"], { "f:labels": { ".": {}, "f:through": {} } });
      assert.deepEqual(entry.fieldsV1["f:spec"]["f:containers"], { 'k:{"name":"c"}': { "f:image": {} } });
      assert.deepEqual(Object.keys(entry.fieldsV1["f:spec"]["f:ephemeralContainers"]['k:{"name":"dbg"}']).sort(), [
        ".",
        "f:image",
        "f:imagePullPolicy",
        "f:name",
        "f:resources",
        "f:stdin",
        "f:terminationMessagePath",
        "f:terminationMessagePolicy",
        "f:tty",
      ]);

      const changed = { spec: { ephemeralContainers: [{ name: "dbg", image: "busybox:1.37" }] } };
      const [changeCode, refused] = await send(noRetry, "PATCH", at, changed);
      assert.equal(changeCode, 422, JSON.stringify(refused));
      assert.match(
        cause(refused),
        /^spec\.ephemeralContainers: Forbidden: existing ephemeral containers "dbg" may not be changed\n/,
      );
      const removed = { spec: { ephemeralContainers: [] } };
      const [removeCode, kept] = await send(noRetry, "PATCH", at, removed, "application/merge-patch+json");
      assert.equal(removeCode, 422, JSON.stringify(kept));
      assert.equal(
        cause(kept),
        'spec.ephemeralContainers: Forbidden: existing ephemeral containers "dbg" may not be removed\n',
      );
      const bad = {
        spec: { ephemeralContainers: [dbg, { name: "c", image: "busybox", ports: [{ containerPort: 80 }] }] },
      };
      const [badCode, invalid] = await send(noRetry, "PATCH", at, bad);
      assert.equal(badCode, 422, JSON.stringify(invalid));
      const causes = invalid.details.causes.map((c: Any) => `${c.field}: ${c.message}`).sort();
      assert.deepEqual(causes, [
        'spec.ephemeralContainers[1].name: Duplicate value: "c"',
        "spec.ephemeralContainers[1].ports: Forbidden: cannot be set for an Ephemeral Container",
      ]);
    },
  },
  {
    name:
      "pods/resize: GET is the Pod; a patch changes a container's resources only; other resources and containers are refused",
    async run({ noRetry, ns }) {
      const pods = `/api/v1/namespaces/${ns}/pods`;
      const resources = { requests: { cpu: "100m" }, limits: { cpu: "200m" } };
      const pod = {
        metadata: { name: "rsz" },
        spec: { containers: [{ name: "c", image: "busybox:1.36", resources }] },
      };
      const [created, body] = await send(noRetry, "POST", pods, pod, "application/json");
      assert.equal(created, 201, JSON.stringify(body));
      const at = `${pods}/rsz/resize`;
      const [code, got] = await send(noRetry, "GET", at);
      assert.equal(code, 200, JSON.stringify(got));
      assert.deepEqual([got.kind, got.metadata.name], ["Pod", "rsz"]);
      const resize = {
        metadata: { labels: { through: "resize" } },
        spec: { containers: [{ name: "c", image: "busybox:1.37", resources: { requests: { cpu: "150m" } } }] },
      };
      const [resizeCode, resized] = await send(noRetry, "PATCH", `${at}?fieldManager=conf-resize`, resize);
      assert.equal(resizeCode, 200, JSON.stringify(resized));
      assert.deepEqual(resized.spec.containers[0].resources, { requests: { cpu: "150m" }, limits: { cpu: "200m" } });
      assert.equal(resized.spec.containers[0].image, "busybox:1.36");
      assert.equal(resized.metadata.labels, undefined);
      const entry = resized.metadata.managedFields.find((e: Any) => e.manager === "conf-resize");
      assert.deepEqual([entry?.operation, entry?.subresource], ["Update", "resize"]);

      const more = { spec: { containers: [{ name: "d", image: "busybox" }] } };
      const [moreCode, refused] = await send(noRetry, "PATCH", at, more);
      assert.equal(moreCode, 422, JSON.stringify(refused));
      assert.equal(cause(refused), "spec.containers: Forbidden: containers may not be added or removed on resize");
      const storage = {
        spec: { containers: [{ name: "c", resources: { requests: { "ephemeral-storage": "1Gi" } } }] },
      };
      const [storageCode, other] = await send(noRetry, "PATCH", at, storage);
      assert.equal(storageCode, 422, JSON.stringify(other));
      assert.equal(cause(other), "spec: Forbidden: only cpu and memory resources are mutable");
    },
  },
  {
    name: "pods/ephemeralcontainers is its own resource for RBAC: patching pods does not allow it",
    async run({ client, ns }) {
      const sa = await serviceAccountClient(client, ns, "eph-debugger");
      const rules = (resources: string[]) => [{ apiGroups: [""], resources, verbs: ["get", "patch"] }];
      await client.create(Role, { metadata: { name: "eph-debugger", namespace: ns }, rules: rules(["pods"]) }, {
        namespace: ns,
      });
      const subject = { kind: "ServiceAccount", name: "eph-debugger", namespace: ns };
      await client.create(RoleBinding, bindingTo("eph-debugger", ns, "Role", "eph-debugger", subject), {
        namespace: ns,
      });
      const at = `/api/v1/namespaces/${ns}/pods/eph/ephemeralcontainers`;
      const add = { spec: { ephemeralContainers: [{ name: "dbg2", image: "busybox:1.36" }] } };
      // RBAC changes reach the authorizer's cache after a moment on kube-apiserver.
      const [code, refused] = await eventually("the pods rule in force", async () => {
        const answer = await send(sa.client, "PATCH", at, add);
        return answer[0] === 403 && (await send(sa.client, "GET", `/api/v1/namespaces/${ns}/pods/eph`))[0] === 200
          ? answer
          : undefined;
      }, POLL);
      assert.equal(code, 403, JSON.stringify(refused));
      assert.equal(
        refused.message,
        `pods "eph" is forbidden: User "${sa.user}" cannot patch resource "pods/ephemeralcontainers" in API group "" ` +
          `in the namespace "${ns}"`,
      );
      await client.update(Role, {
        metadata: { name: "eph-debugger", namespace: ns },
        rules: rules(["pods", "pods/ephemeralcontainers"]),
      }, { namespace: ns });
      const allowed = await eventually("the pods/ephemeralcontainers rule in force", async () => {
        const answer = await send(sa.client, "PATCH", at, add);
        return answer[0] === 200 ? answer[1] : undefined;
      }, POLL);
      assert.deepEqual(allowed.spec.ephemeralContainers.map((c: Any) => c.name).sort(), ["dbg", "dbg2"]);
    },
  },
];
