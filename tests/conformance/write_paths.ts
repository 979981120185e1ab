/**
 * Conformance cases: generic write paths the differential battery (tests/differential/) found differing — what a
 * merge patch of labels through `/status` records (the writer owns them, `subresource: status`) unless the kind's status
 * strategy puts metadata back (a Deployment's labels, a ServiceCIDR's labels and annotations); PUT of a missing
 * object creating it where the kind's strategy allows it (AllowCreateOnUpdate); an apply that changes nothing
 * stamping no time on the applier's entry, and an applied empty keyed list naming no field; a strict merge patch's
 * refused object quoted in Go's struct order; a namespace's own delete preconditions; field-label refusals.
 * @module
 */
import assert from "node:assert/strict";
import type { KubeClient } from "../../runtime/client/client.ts";
import { sendBody } from "./support.ts";
import type { ConformanceCase } from "./support.ts";

// deno-lint-ignore no-explicit-any
type Any = any;

const MERGE = "application/merge-patch+json";
const APPLY = "application/apply-patch+yaml";

/** A raw write's answer, asserting its code. */
async function write(
  client: KubeClient,
  method: string,
  path: string,
  body: unknown,
  code: number,
  contentType = "application/json",
  query: Record<string, string> = {},
): Promise<Any> {
  const answer = await sendBody(client, method, path, body, contentType, query);
  assert.equal(answer.code, code, `${method} ${path}: ${JSON.stringify(answer.json)}`);
  return answer.json;
}

/** The managedFields entry of `manager` (and subresource), or undefined. */
function entryOf(obj: Any, manager: string, subresource?: string): Any {
  return (obj.metadata.managedFields ?? []).find((e: Any) =>
    e.manager === manager && (e.subresource ?? "") === (subresource ?? "")
  );
}

export const writePathCases: ConformanceCase[] = [
  {
    name: "a merge patch of labels through /status: the writer owns them; Deployments and ServiceCIDRs put them back",
    async run({ noRetry, ns }) {
      const services = `/api/v1/namespaces/${ns}/services`;
      await write(noRetry, "POST", services, {
        metadata: { name: "wp-svc" },
        spec: { ports: [{ port: 80 }], selector: { app: "wp" } },
      }, 201);
      const patch = { metadata: { labels: { status: "patched" }, annotations: { note: "n" } } };
      const query = { fieldManager: "wp-status" };
      const svc = await write(noRetry, "PATCH", `${services}/wp-svc/status`, patch, 200, MERGE, query);
      assert.equal(svc.metadata.labels?.status, "patched");
      const owned = entryOf(svc, "wp-status", "status");
      assert.deepEqual(
        [owned?.operation, owned?.fieldsV1],
        ["Update", {
          "f:metadata": { "f:annotations": { ".": {}, "f:note": {} }, "f:labels": { ".": {}, "f:status": {} } },
        }],
        JSON.stringify(svc.metadata.managedFields),
      );

      const deployments = `/apis/apps/v1/namespaces/${ns}/deployments`;
      await write(noRetry, "POST", deployments, {
        metadata: { name: "wp-deploy", labels: { app: "wp" } },
        spec: {
          replicas: 0,
          selector: { matchLabels: { app: "wp" } },
          template: {
            metadata: { labels: { app: "wp" } },
            spec: { containers: [{ name: "c", image: "busybox:1.36" }] },
          },
        },
      }, 201);
      const deploy = await write(noRetry, "PATCH", `${deployments}/wp-deploy/status`, patch, 200, MERGE, query);
      assert.deepEqual(deploy.metadata.labels, { app: "wp" }, "a Deployment's status write keeps its labels");
      assert.equal(deploy.metadata.annotations?.note, "n", "but not its annotations");
      const deployOwned = entryOf(deploy, "wp-status", "status")?.fieldsV1?.["f:metadata"];
      assert.deepEqual(
        [deployOwned?.["f:labels"], deployOwned?.["f:annotations"]?.["f:note"]],
        [undefined, {}],
        JSON.stringify(deploy.metadata.managedFields),
      );

      const cidrs = "/apis/networking.k8s.io/v1/servicecidrs";
      const name = `wp-${ns}`;
      await write(noRetry, "POST", cidrs, { metadata: { name }, spec: { cidrs: ["10.251.0.0/24"] } }, 201);
      try {
        const cidr = await write(noRetry, "PATCH", `${cidrs}/${name}/status`, patch, 200, MERGE, query);
        assert.equal(cidr.metadata.labels?.status, undefined, "ResetObjectMetaForStatus keeps the labels");
        assert.equal(cidr.metadata.annotations?.note, undefined, "and the annotations");
        assert.equal(entryOf(cidr, "wp-status", "status"), undefined, JSON.stringify(cidr.metadata.managedFields));
      } finally {
        await noRetry.request("DELETE", `${cidrs}/${name}`);
        await noRetry.request("DELETE", `${services}/wp-svc`);
        await noRetry.request("DELETE", `${deployments}/wp-deploy`);
      }
    },
  },
  {
    name: "PUT of a missing object creates it where the kind's strategy allows it, else it is 404",
    async run({ noRetry, ns }) {
      const creates: Array<[string, Any]> = [
        [`/api/v1/namespaces/${ns}/limitranges/wp-lr`, { metadata: { name: "wp-lr" }, spec: { limits: [] } }],
        [`/api/v1/namespaces/${ns}/services/wp-put`, { metadata: { name: "wp-put" }, spec: { ports: [{ port: 80 }] } }],
        [`/apis/rbac.authorization.k8s.io/v1/namespaces/${ns}/roles/wp-role`, { metadata: { name: "wp-role" } }],
        [`/apis/node.k8s.io/v1/runtimeclasses/wp-${ns}`, { metadata: { name: `wp-${ns}` }, handler: "runc" }],
      ];
      for (const [path, body] of creates) {
        const made = await write(noRetry, "PUT", path, body, 201);
        assert.equal(made.metadata.name, body.metadata.name, path);
      }
      for (const [path] of creates) await noRetry.request("DELETE", path);
      const missing = await write(noRetry, "PUT", `/api/v1/namespaces/${ns}/configmaps/wp-cm`, {
        metadata: { name: "wp-cm" },
      }, 404);
      assert.equal(missing.message, 'configmaps "wp-cm" not found');
    },
  },
  {
    name: "an apply that changes nothing stamps no time; an applied empty keyed list names no field",
    async run({ noRetry, ns }) {
      const policies = `/apis/networking.k8s.io/v1/namespaces/${ns}/networkpolicies`;
      const policy = { metadata: { name: "wp-np" }, spec: { podSelector: {} } };
      await write(noRetry, "POST", policies, policy, 201, "application/json", { fieldManager: "wp-create" });
      const applied = { apiVersion: "networking.k8s.io/v1", kind: "NetworkPolicy", ...policy };
      const same = await write(noRetry, "PATCH", `${policies}/wp-np`, applied, 200, APPLY, { fieldManager: "wp-a" });
      const noop = entryOf(same, "wp-a");
      assert.deepEqual([noop?.operation, noop?.fieldsV1], ["Apply", { "f:spec": { "f:podSelector": {} } }]);
      assert.equal(noop.time, undefined, JSON.stringify(noop));
      const labelled = { ...applied, metadata: { ...applied.metadata, labels: { a: "1" } } };
      const changed = await write(noRetry, "PATCH", `${policies}/wp-np`, labelled, 200, APPLY, {
        fieldManager: "wp-a",
      });
      assert.equal(typeof entryOf(changed, "wp-a")?.time, "string", "a change stamps the time");
      await noRetry.request("DELETE", `${policies}/wp-np`);

      const nodes = "/apis/storage.k8s.io/v1/csinodes";
      const [created, appliedName] = [`wp-b-${ns}`, `wp-c-${ns}`];
      try {
        const made = await write(noRetry, "POST", nodes, { metadata: { name: created }, spec: { drivers: [] } }, 201);
        assert.deepEqual(made.metadata.managedFields[0].fieldsV1["f:spec"], { "f:drivers": {} }, "an update owns it");
        const node = await write(
          noRetry,
          "PATCH",
          `${nodes}/${appliedName}`,
          {
            apiVersion: "storage.k8s.io/v1",
            kind: "CSINode",
            metadata: { name: appliedName },
            spec: { drivers: [] },
          },
          201,
          APPLY,
          { fieldManager: "wp-a" },
        );
        assert.equal(entryOf(node, "wp-a")?.fieldsV1["f:spec"], undefined, JSON.stringify(node.metadata));
      } finally {
        await noRetry.request("DELETE", `${nodes}/${created}`);
        await noRetry.request("DELETE", `${nodes}/${appliedName}`);
      }
    },
  },
  {
    name: "a strict merge patch's refused object is quoted in Go's struct order below the top level",
    async run({ noRetry, ns }) {
      const roles = `/apis/rbac.authorization.k8s.io/v1/namespaces/${ns}/roles`;
      await write(noRetry, "POST", roles, {
        metadata: { name: "wp-strict" },
        rules: [{ apiGroups: [""], resources: ["configmaps"], verbs: ["get"] }],
      }, 201);
      const events = `/api/v1/namespaces/${ns}/events`;
      await write(noRetry, "POST", events, {
        metadata: { name: "wp-strict" },
        involvedObject: { apiVersion: "v1", name: "x", namespace: ns, kind: "ConfigMap" },
        message: "m",
      }, 201);
      const quoted: Array<[string, string]> = [
        [`${roles}/wp-strict`, '"rules":[{"verbs":["get"],"apiGroups":[""],"resources":["configmaps"]}]'],
        [
          `${events}/wp-strict`,
          `"involvedObject":{"kind":"ConfigMap","namespace":"${ns}","name":"x","apiVersion":"v1"}`,
        ],
      ];
      for (const [path, text] of quoted) {
        const refused = await write(noRetry, "PATCH", path, { bogusField: 1 }, 422, MERGE, {
          fieldValidation: "Strict",
        });
        assert.ok(String(refused.message).includes(JSON.stringify(text).slice(1, -1)), refused.message);
        await noRetry.request("DELETE", path);
      }
    },
  },
  {
    name: "a namespace's failed delete precondition names the resource; kinds refuse unknown field labels their way",
    async run({ noRetry, ns }) {
      const name = `wp-${ns}`;
      const made = await write(noRetry, "POST", "/api/v1/namespaces", { metadata: { name } }, 201);
      try {
        const refused = await write(noRetry, "DELETE", `/api/v1/namespaces/${name}`, {
          preconditions: { uid: "00000000-0000-0000-0000-000000000000" },
        }, 409);
        assert.deepEqual(refused.details, { name, kind: "namespaces" });
        assert.equal(
          refused.message,
          `Operation cannot be fulfilled on namespaces "${name}": Precondition failed: UID in precondition: ` +
            `00000000-0000-0000-0000-000000000000, UID in object meta: ${made.metadata.uid}`,
        );
      } finally {
        await noRetry.request("DELETE", `/api/v1/namespaces/${name}`);
      }
      const refusals: Array<[string, string]> = [
        ["/apis/certificates.k8s.io/v1/clustertrustbundles", "field label not supported: spec.bogus"],
        [`/apis/batch/v1/namespaces/${ns}/jobs`, 'field label "spec.bogus" not supported for Job'],
        [
          "/apis/rbac.authorization.k8s.io/v1/clusterroles",
          '"spec.bogus" is not a known field selector: only ' +
          '"metadata.name", "metadata.namespace"',
        ],
      ];
      for (const [path, message] of refusals) {
        const res = await noRetry.request("GET", path, { query: { fieldSelector: "spec.bogus=x" } });
        const status = JSON.parse(new TextDecoder().decode(res.body));
        assert.deepEqual([res.status, status.message], [400, message], path);
      }
    },
  },
];
