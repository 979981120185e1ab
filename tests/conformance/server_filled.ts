/**
 * Conformance cases: fields kube-apiserver itself fills (found by the differential battery, tests/differential/). A
 * CertificateSigningRequest records its requester (the authenticated user, whatever the body said) in a spec no
 * manager owns, and its name is not validated; a local APIService is Available (`Local`) from its create on, and its
 * name must be `<version>.<group>`; kube-apiserver's API Priority and Fairness consumer writes each FlowSchema's
 * `Dangling` condition through the status subresource by server-side apply. A write through /status of either keeps the
 * stored metadata.
 * @module
 */
import assert from "node:assert/strict";
import type { KubeClient } from "../../runtime/client/client.ts";
import { eventually } from "../../testing/eventually.ts";
import { CSR_BASE64 } from "../differential/samples.ts";
import { type ConformanceCase, POLL, sendBody, TABLE_ACCEPT } from "./support.ts";

// deno-lint-ignore no-explicit-any
type Any = any;

const CSRS = "/apis/certificates.k8s.io/v1/certificatesigningrequests";
const APISERVICES = "/apis/apiregistration.k8s.io/v1/apiservices";
const FLOWCONTROL = "/apis/flowcontrol.apiserver.k8s.io/v1";
const APF_CONSUMER = "api-priority-and-fairness-config-consumer-v1";

async function getJson(client: KubeClient, path: string, accept = "application/json"): Promise<Any> {
  const res = await client.request("GET", path, { accept });
  assert.equal(res.status, 200, `GET ${path}: ${res.status}`);
  return JSON.parse(new TextDecoder().decode(res.body));
}

/** The Dangling condition of a FlowSchema, once the APF consumer wrote one saying `status`. */
function dangling(client: KubeClient, name: string, status: string): Promise<Any> {
  return eventually(`FlowSchema ${name} Dangling=${status}`, async () => {
    const fs = await getJson(client, `${FLOWCONTROL}/flowschemas/${name}`);
    const c = (fs.status?.conditions ?? []).find((x: Any) => x.type === "Dangling");
    return c?.status === status ? { fs, c } : undefined;
  }, POLL);
}

export const serverFilledCases: ConformanceCase[] = [
  {
    name: "a CertificateSigningRequest records its requester; spec is no manager's; its name is not validated",
    async run({ client, noRetry, ns }) {
      const review = await sendBody(noRetry, "POST", "/apis/authentication.k8s.io/v1/selfsubjectreviews", {
        apiVersion: "authentication.k8s.io/v1",
        kind: "SelfSubjectReview",
      });
      const me = review.json.status.userInfo;
      const name = `Conf_${ns}`;
      const created = await sendBody(
        noRetry,
        "POST",
        CSRS,
        {
          apiVersion: "certificates.k8s.io/v1",
          kind: "CertificateSigningRequest",
          metadata: { name, labels: { conformance: ns } },
          spec: {
            request: CSR_BASE64,
            signerName: "example.com/conformance",
            usages: ["client auth"],
            username: "someone-else",
            groups: ["not-mine"],
          },
        },
        "application/json",
        { fieldManager: "conf" },
      );
      try {
        assert.equal(created.code, 201, JSON.stringify(created.json));
        const spec = created.json.spec;
        assert.deepEqual([spec.username, spec.uid, spec.groups], [me.username, me.uid, me.groups]);
        assert.deepEqual(created.json.status, {});
        const entries = created.json.metadata.managedFields;
        assert.deepEqual(entries.map((e: Any) => [e.manager, Object.keys(e.fieldsV1)]), [["conf", ["f:metadata"]]]);
        // An update keeps the spec (kube: PrepareForUpdate), the requester included.
        const patched = await sendBody(noRetry, "PATCH", `${CSRS}/${name}`, {
          spec: { username: "someone-else" },
          metadata: { labels: { patched: "yes" } },
        }, "application/merge-patch+json");
        assert.equal(patched.code, 200, JSON.stringify(patched.json));
        assert.equal(patched.json.spec.username, me.username);
        assert.equal(patched.json.metadata.labels.patched, "yes");
        // A condition written through /status gets its timestamps (kube: populateConditionTimestamps).
        const failed = await sendBody(noRetry, "PUT", `${CSRS}/${name}/status`, {
          ...patched.json,
          status: { conditions: [{ type: "Failed", status: "True", reason: "Conformance", message: "no" }] },
        });
        assert.equal(failed.code, 200, JSON.stringify(failed.json));
        const [condition] = failed.json.status.conditions;
        assert.equal(typeof condition.lastUpdateTime, "string");
        assert.equal(condition.lastTransitionTime, condition.lastUpdateTime);
        const table = await getJson(client, `${CSRS}/${name}`, TABLE_ACCEPT);
        const column = table.columnDefinitions.findIndex((c: Any) => c.name === "Requestor");
        assert.equal(table.rows[0].cells[column], me.username);
      } finally {
        await noRetry.request("DELETE", `${CSRS}/${name}`);
      }
    },
  },
  {
    name: "a local APIService is Available (Local) from its create on; its name must be <version>.<group>",
    async run({ noRetry, ns }) {
      const group = `${ns}.conf.example.com`;
      const spec = { group, version: "v1", groupPriorityMinimum: 100, versionPriority: 10 };
      const body = (name: string, s: unknown) => ({
        apiVersion: "apiregistration.k8s.io/v1",
        kind: "APIService",
        metadata: { name },
        ...(s === undefined ? {} : { spec: s }),
      });
      const created = await sendBody(noRetry, "POST", APISERVICES, body(`v1.${group}`, spec));
      try {
        assert.equal(created.code, 201, JSON.stringify(created.json));
        const [c] = created.json.status.conditions;
        assert.deepEqual([c.type, c.status, c.reason, c.message], [
          "Available",
          "True",
          "Local",
          "Local APIServices are always available",
        ]);
        assert.equal(typeof c.lastTransitionTime, "string");
        const labelled = await sendBody(noRetry, "PATCH", `${APISERVICES}/v1.${group}/status`, {
          metadata: { labels: { "via-status": "yes" } },
        }, "application/merge-patch+json");
        assert.equal(labelled.code, 200, JSON.stringify(labelled.json));
        assert.equal(labelled.json.metadata.labels?.["via-status"], undefined);
        const wrong = await sendBody(noRetry, "POST", APISERVICES, body(`v2.${group}`, spec));
        assert.equal(wrong.code, 422);
        assert.deepEqual(wrong.json.details.causes, [{
          reason: "FieldValueInvalid",
          message: `Invalid value: "v2.${group}": must be \`spec.version+"."+spec.group\`: "v1.${group}"`,
          field: "metadata.name",
        }]);
        const empty = await sendBody(noRetry, "POST", APISERVICES, body(`v1.spec-less.${group}`, undefined));
        assert.equal(empty.code, 422);
        assert.deepEqual(empty.json.details.causes.map((x: Any) => x.field), [
          "metadata.name",
          "spec.group",
          "spec.version",
          "spec.groupPriorityMinimum",
          "spec.versionPriority",
        ]);
        // A missing name is one cause among the others (kube: ValidateObjectMeta inside ValidateAPIService).
        const { version: _, ...noVersion } = spec;
        const nameless = await sendBody(noRetry, "POST", APISERVICES, { ...body("", noVersion), metadata: {} });
        assert.equal(nameless.code, 422);
        assert.deepEqual(nameless.json.details.causes.map((x: Any) => [x.field, x.reason]), [
          ["metadata.name", "FieldValueRequired"],
          ["spec.version", "FieldValueInvalid"],
        ]);
      } finally {
        await noRetry.request("DELETE", `${APISERVICES}/v1.${group}`);
      }
    },
  },
  {
    name: "a FlowSchema's Dangling condition says whether its priority level exists (APF consumer, apply on status)",
    async run({ client, noRetry, ns }) {
      const level = `conf-${ns}`;
      const flowSchema = (name: string, pl: string) => ({
        apiVersion: "flowcontrol.apiserver.k8s.io/v1",
        kind: "FlowSchema",
        metadata: { name },
        spec: { matchingPrecedence: 9000, priorityLevelConfiguration: { name: pl } },
      });
      const names = [`conf-found-${ns}`, `conf-missing-${ns}`];
      try {
        for (const [name, pl] of [[names[0], "global-default"], [names[1], level]]) {
          const res = await sendBody(noRetry, "POST", `${FLOWCONTROL}/flowschemas`, flowSchema(name, pl));
          assert.equal(res.code, 201, JSON.stringify(res.json));
        }
        const found = await dangling(client, names[0], "False");
        assert.deepEqual([found.c.reason, found.c.message], [
          "Found",
          'This FlowSchema references the PriorityLevelConfiguration object named "global-default" and it exists',
        ]);
        const entry = found.fs.metadata.managedFields.find((e: Any) => e.manager === APF_CONSUMER);
        assert.deepEqual([
          entry?.operation,
          entry?.subresource,
          Object.keys(entry?.fieldsV1["f:status"]?.["f:conditions"] ?? {}),
        ], [
          "Apply",
          "status",
          ['k:{"type":"Dangling"}'],
        ]);
        const missing = await dangling(client, names[1], "True");
        assert.deepEqual([missing.c.reason, missing.c.message], [
          "NotFound",
          `This FlowSchema references the PriorityLevelConfiguration object named "${level}" but there is no such object`,
        ]);
        const table = await getJson(client, `${FLOWCONTROL}/flowschemas/${names[1]}`, TABLE_ACCEPT);
        const column = table.columnDefinitions.findIndex((c: Any) => c.name === "MissingPL");
        assert.equal(table.rows[0].cells[column], "True");
        const pl = await sendBody(noRetry, "POST", `${FLOWCONTROL}/prioritylevelconfigurations`, {
          apiVersion: "flowcontrol.apiserver.k8s.io/v1",
          kind: "PriorityLevelConfiguration",
          metadata: { name: level },
          spec: { type: "Limited", limited: { nominalConcurrencyShares: 1, limitResponse: { type: "Reject" } } },
        });
        assert.equal(pl.code, 201, JSON.stringify(pl.json));
        const now = await dangling(client, names[1], "False");
        assert.equal(now.c.reason, "Found");
        // A status write keeps the stored metadata (kube: the status strategy copies the old ObjectMeta).
        const labelled = await sendBody(noRetry, "PATCH", `${FLOWCONTROL}/flowschemas/${names[0]}/status`, {
          metadata: { labels: { "via-status": "yes" } },
        }, "application/merge-patch+json");
        assert.equal(labelled.code, 200, JSON.stringify(labelled.json));
        assert.equal(labelled.json.metadata.labels?.["via-status"], undefined);
      } finally {
        for (const name of names) await noRetry.request("DELETE", `${FLOWCONTROL}/flowschemas/${name}`);
        await noRetry.request("DELETE", `${FLOWCONTROL}/prioritylevelconfigurations/${level}`);
      }
    },
  },
];
