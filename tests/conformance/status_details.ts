/**
 * Conformance cases: the `details` of the Status kube-apiserver answers, by error and resource kind — the resource
 * (plural) for NotFound, AlreadyExists, Conflict and delete Successes, the Kind for Invalid and failed delete
 * preconditions, `group` only outside the core group, empty details for 405 and unknown subresources.
 * @module
 */
import assert from "node:assert/strict";
import type { KubeClient } from "../../runtime/client/client.ts";
import { assertStatus, rawJson } from "./status_assert.ts";
import type { ConformanceCase } from "./support.ts";

const RBAC = "rbac.authorization.k8s.io";
const deploymentsPath = (ns: string) => `/apis/apps/v1/namespaces/${ns}/deployments`;
const deployment = (name: string) =>
  JSON.stringify({
    apiVersion: "apps/v1",
    kind: "Deployment",
    metadata: { name },
    spec: {
      selector: { matchLabels: { app: name } },
      template: { metadata: { labels: { app: name } }, spec: { containers: [{ name: "c", image: "busybox:1.36" }] } },
    },
  });

/** A request's Status (a Failure's code must equal the HTTP code). */
async function status(
  client: KubeClient,
  method: string,
  path: string,
  body?: string,
  // deno-lint-ignore no-explicit-any
): Promise<any> {
  const { code, body: answer } = await rawJson(client, method, path, { body });
  assert.equal(answer?.kind, "Status", `${method} ${path}: ${JSON.stringify(answer)}`);
  // A Success Status (a delete) carries no code.
  assert.equal(answer.code, answer.status === "Success" ? undefined : code, `${method} ${path}`);
  return answer;
}

/** Status details. */
export const statusDetailCases: ConformanceCase[] = [
  {
    name: "NotFound details name the resource (plural) and, outside the core group, its group",
    async run({ client, ns }) {
      const cases: Array<[string, Record<string, string>, string]> = [
        [`/api/v1/namespaces/${ns}/configmaps/sd-none`, { name: "sd-none", kind: "configmaps" }, "configmaps"],
        [`${deploymentsPath(ns)}/sd-none`, { name: "sd-none", group: "apps", kind: "deployments" }, "deployments.apps"],
        [
          `/apis/${RBAC}/v1/clusterroles/sd-none`,
          { name: "sd-none", group: RBAC, kind: "clusterroles" },
          `clusterroles.${RBAC}`,
        ],
        ["/api/v1/nodes/sd-none", { name: "sd-none", kind: "nodes" }, "nodes"],
      ];
      for (const [path, details, resource] of cases) {
        const got = await status(client, "GET", path);
        assertStatus(got, { code: 404, reason: "NotFound", message: `${resource} "sd-none" not found` }, path);
        assert.deepEqual(got.details, details, path);
      }
    },
  },
  {
    name: "a create in a namespace that does not exist: NotFound details name the namespace",
    async run({ client, ns }) {
      const missing = `${ns}-absent`;
      const got = await status(
        client,
        "POST",
        `/api/v1/namespaces/${missing}/configmaps`,
        JSON.stringify({ metadata: { name: "x" } }),
      );
      assertStatus(got, { code: 404, reason: "NotFound", message: `namespaces "${missing}" not found` }, "create");
      assert.deepEqual(got.details, { name: missing, kind: "namespaces" });
    },
  },
  {
    name: "AlreadyExists and a stale-resourceVersion Conflict name the resource and group (deployments.apps)",
    async run({ client, ns }) {
      const created = await rawJson(client, "POST", deploymentsPath(ns), { body: deployment("sd-dup") });
      assert.equal(created.code, 201, JSON.stringify(created.body));
      const dup = await status(client, "POST", deploymentsPath(ns), deployment("sd-dup"));
      assertStatus(
        dup,
        { code: 409, reason: "AlreadyExists", message: 'deployments.apps "sd-dup" already exists' },
        "dup",
      );
      assert.deepEqual(dup.details, { name: "sd-dup", group: "apps", kind: "deployments" });
      const stale = JSON.parse(deployment("sd-dup"));
      stale.metadata.resourceVersion = "1";
      const conflict = await status(client, "PUT", `${deploymentsPath(ns)}/sd-dup`, JSON.stringify(stale));
      assertStatus(conflict, {
        code: 409,
        reason: "Conflict",
        message: 'Operation cannot be fulfilled on deployments.apps "sd-dup": the object has been modified; please ' +
          "apply your changes to the latest version and try again",
      }, "stale");
      assert.deepEqual(conflict.details, { name: "sd-dup", group: "apps", kind: "deployments" });
    },
  },
  {
    name: "a stale-resourceVersion Conflict of a core object names the resource without a group",
    async run({ client, ns }) {
      const path = `/api/v1/namespaces/${ns}/configmaps`;
      const made = await rawJson(client, "POST", path, { body: JSON.stringify({ metadata: { name: "sd-stale" } }) });
      assert.equal(made.code, 201, JSON.stringify(made.body));
      const got = await status(
        client,
        "PUT",
        `${path}/sd-stale`,
        JSON.stringify({ metadata: { name: "sd-stale", resourceVersion: "1" } }),
      );
      assertStatus(got, {
        code: 409,
        reason: "Conflict",
        message: 'Operation cannot be fulfilled on configmaps "sd-stale": the object has been modified; please apply ' +
          "your changes to the latest version and try again",
      }, "stale");
      assert.deepEqual(got.details, { name: "sd-stale", kind: "configmaps" });
    },
  },
  {
    name: "a failed delete precondition names the Kind (Deployment) and group; a delete Success the resource and uid",
    async run({ client, ns }) {
      const created = await rawJson(client, "POST", deploymentsPath(ns), { body: deployment("sd-del") });
      const uid = created.body.metadata.uid;
      const refused = await status(
        client,
        "DELETE",
        `${deploymentsPath(ns)}/sd-del`,
        JSON.stringify({ preconditions: { uid: "not-it" } }),
      );
      assertStatus(refused, {
        code: 409,
        reason: "Conflict",
        message:
          `Operation cannot be fulfilled on Deployment.apps "sd-del": the UID in the precondition (not-it) does ` +
          `not match the UID in record (${uid}). The object might have been deleted and then recreated`,
      }, "precondition");
      assert.deepEqual(refused.details, { name: "sd-del", group: "apps", kind: "Deployment" });
      const deleted = await status(client, "DELETE", `${deploymentsPath(ns)}/sd-del`);
      assert.equal(deleted.status, "Success");
      assert.deepEqual(deleted.details, { name: "sd-del", group: "apps", kind: "deployments", uid });
    },
  },
  {
    name: "Invalid details carry the Kind, the group and the causes (a ClusterRole rule without groups or verbs)",
    async run({ client }) {
      const got = await status(
        client,
        "POST",
        `/apis/${RBAC}/v1/clusterroles`,
        JSON.stringify({ metadata: { name: "sd-bad" }, rules: [{ verbs: [] }] }),
      );
      assertStatus(got, {
        code: 422,
        reason: "Invalid",
        message: `ClusterRole.${RBAC} "sd-bad" is invalid: [rules[0].apiGroups: Required value: resource rules must ` +
          "supply at least one api group, rules[0].resources: Required value: resource rules must supply at least " +
          "one resource, rules[0].verbs: Required value]",
      }, "invalid");
      assert.deepEqual(got.details, {
        name: "sd-bad",
        group: RBAC,
        kind: "ClusterRole",
        causes: [
          {
            reason: "FieldValueRequired",
            message: "Required value: resource rules must supply at least one api group",
            field: "rules[0].apiGroups",
          },
          {
            reason: "FieldValueRequired",
            message: "Required value: resource rules must supply at least one resource",
            field: "rules[0].resources",
          },
          { reason: "FieldValueRequired", message: "Required value", field: "rules[0].verbs" },
        ],
      });
    },
  },
  {
    name: "a cluster-scoped delete Success and AlreadyExists name the group and resource (clusterroles)",
    async run({ client }) {
      const path = `/apis/${RBAC}/v1/clusterroles`;
      const body = JSON.stringify({ metadata: { name: "sd-cr" }, rules: [] });
      const created = await rawJson(client, "POST", path, { body });
      assert.equal(created.code, 201, JSON.stringify(created.body));
      const dup = await status(client, "POST", path, body);
      assert.deepEqual(dup.details, { name: "sd-cr", group: RBAC, kind: "clusterroles" });
      const deleted = await status(client, "DELETE", `${path}/sd-cr`);
      assert.deepEqual(deleted.details, {
        name: "sd-cr",
        group: RBAC,
        kind: "clusterroles",
        uid: created.body.metadata.uid,
      });
    },
  },
  {
    name:
      "405 MethodNotAllowed has empty details: PUT on a collection, POST on an object, GET of serviceaccounts/token",
    async run({ client, ns }) {
      const cases: Array<[string, string, string | undefined]> = [
        ["PUT", `/api/v1/namespaces/${ns}/configmaps`, "{}"],
        ["POST", `/api/v1/namespaces/${ns}/configmaps/sd-any`, "{}"],
        ["GET", `/api/v1/namespaces/${ns}/serviceaccounts/default/token`, undefined],
      ];
      for (const [method, path, body] of cases) {
        const got = await status(client, method, path, body);
        assertStatus(got, {
          code: 405,
          reason: "MethodNotAllowed",
          message: "the server does not allow this method on the requested resource",
        }, `${method} ${path}`);
        assert.deepEqual(got.details, {}, `${method} ${path}`);
      }
    },
  },
  {
    name: "a subresource a resource lacks (configmaps/x/status) is a NotFound with empty details",
    async run({ client, ns }) {
      const got = await status(client, "GET", `/api/v1/namespaces/${ns}/configmaps/sd-any/status`);
      assertStatus(
        got,
        { code: 404, reason: "NotFound", message: "the server could not find the requested resource" },
        "",
      );
      assert.deepEqual(got.details, {});
    },
  },
  {
    name: "an eviction of a pod that does not exist is NotFound naming the pod",
    async run({ client, ns }) {
      const got = await status(
        client,
        "POST",
        `/api/v1/namespaces/${ns}/pods/sd-none/eviction`,
        JSON.stringify({ apiVersion: "policy/v1", kind: "Eviction", metadata: { name: "sd-none" } }),
      );
      assertStatus(got, { code: 404, reason: "NotFound", message: 'pods "sd-none" not found' }, "eviction");
      assert.deepEqual(got.details, { name: "sd-none", kind: "pods" });
    },
  },
  {
    name: "an unknown field selector is 400 without details: configmaps name the two fields they take, pods refuse it",
    async run({ client, ns }) {
      const cases: Array<[string, string]> = [
        ["configmaps", '"spec.nope" is not a known field selector: only "metadata.name", "metadata.namespace"'],
        ["pods", "field label not supported: spec.nope"],
      ];
      for (const [plural, message] of cases) {
        const { code, body } = await rawJson(client, "GET", `/api/v1/namespaces/${ns}/${plural}`, {
          query: { fieldSelector: "spec.nope=1" },
        });
        assert.equal(code, 400, JSON.stringify(body));
        assertStatus(body, { code: 400, reason: "BadRequest", message }, plural);
        assert.equal(body.details, undefined);
      }
    },
  },
];
