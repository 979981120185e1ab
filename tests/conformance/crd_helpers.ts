/**
 * Helpers of the CRD conformance cases (crd_cel.ts, crd_definitions.ts, crd_conversion.ts, admission_webhooks_crd.ts):
 * CRD builders, raw calls that keep the Status and Warning headers, and assertions of a failure Status. `KUBEOP_CONFORMANCE_RECORD=1` prints the answers
 * instead of asserting them (how the expectations were captured from kube-apiserver v1.37.2).
 * @module
 */
import assert from "node:assert/strict";
import type { KubeClient } from "../../runtime/client/client.ts";
import type { Unstructured as KubeObject } from "../../testing/apiserver/unstructured.ts";
import { eventually } from "../../testing/eventually.ts";

export const GROUP = "cel.conformance.kubeop.dev";
export const CRD_PATH = "/apis/apiextensions.k8s.io/v1/customresourcedefinitions";
export const POLL = { timeoutMs: 30_000, intervalMs: 50, retryErrors: true };

/** A CRD of `kind` (plural `<kind lower>s`) whose one version v1 has `spec` as its spec schema. */
export function crd(kind: string, spec: Json, extra: Json = {}): Json {
  const plural = `${kind.toLowerCase()}s`;
  return {
    apiVersion: "apiextensions.k8s.io/v1",
    kind: "CustomResourceDefinition",
    metadata: { name: `${plural}.${GROUP}` },
    spec: {
      group: GROUP,
      scope: "Namespaced",
      names: { plural, kind },
      versions: [{
        name: "v1",
        served: true,
        storage: true,
        subresources: { status: {} },
        schema: {
          openAPIV3Schema: {
            type: "object",
            properties: {
              spec,
              status: {
                type: "object",
                properties: { phase: { type: "string" } },
                "x-kubernetes-validations": [{ rule: "!has(self.phase) || self.phase != 'Bad'", message: "phase Bad" }],
              },
            },
          },
        },
        ...extra,
      }],
    },
  };
}

/**
 * A namespaced CRD of `kind` (plural `<kind lower>s`) in `group` serving v1 (storage) and v2, each with one integer
 * spec field (`fields.v1`, `fields.v2`); `conversion` when given (default None).
 */
export function twoVersionCrd(
  group: string,
  kind: string,
  fields: { v1: string; v2: string },
  conversion?: Json,
): Json {
  const plural = `${kind.toLowerCase()}s`;
  const version = (name: string, storage: boolean, field: string) => ({
    name,
    served: true,
    storage,
    schema: {
      openAPIV3Schema: {
        type: "object",
        properties: { spec: { type: "object", properties: { [field]: { type: "integer" } } } },
      },
    },
  });
  return {
    apiVersion: "apiextensions.k8s.io/v1",
    kind: "CustomResourceDefinition",
    metadata: { name: `${plural}.${group}` },
    spec: {
      group,
      scope: "Namespaced",
      names: { plural, singular: kind.toLowerCase(), kind, listKind: `${kind}List` },
      versions: [version("v1", true, fields.v1), version("v2", false, fields.v2)],
      ...(conversion ? { conversion } : {}),
    },
  };
}

export interface Answer {
  code: number;
  body: KubeObject;
  warnings: string[];
}

export async function call(
  client: KubeClient,
  method: string,
  path: string,
  body?: unknown,
  query = "",
): Promise<Answer> {
  const res = await client.request(method, path + query, {
    body,
    contentType: method === "PATCH" ? "application/merge-patch+json" : undefined,
  });
  const text = new TextDecoder().decode(res.body);
  const warnings = (res.headers.get("warning") ?? "").split(/,\s*(?=299 )/).filter((w) => w).map((w) =>
    w.replace(/^299 - "/, "").replace(/"$/, "").replaceAll('\\"', '"')
  );
  return { code: res.status, body: text ? JSON.parse(text) : {}, warnings };
}

export const RECORD = Deno.env.get("KUBEOP_CONFORMANCE_RECORD") === "1";

/** Asserts a failure Status (code, reason, message, causes) or, in record mode, prints it. */
export function expectStatus(
  what: string,
  got: Answer,
  want: { code: number; reason: string; message: string; causes?: unknown[] },
): void {
  if (RECORD) {
    console.log(`RECORD ${what}: ${JSON.stringify({ code: got.code, body: got.body, warnings: got.warnings })}`);
    return;
  }
  assert.equal(got.code, want.code, `${what}: ${JSON.stringify(got.body)}`);
  assert.equal(got.body.reason, want.reason, what);
  assert.equal(got.body.message, want.message, what);
  assert.deepEqual(got.body.details?.causes, want.causes, what);
}

export function expectOk(what: string, got: Answer): Json {
  if (RECORD) console.log(`RECORD ${what}: ${JSON.stringify({ code: got.code, warnings: got.warnings })}`);
  assert.ok(got.code < 300, `${what}: ${got.code} ${JSON.stringify(got.body)}`);
  return got.body;
}

export async function createCrd(client: KubeClient, body: Json): Promise<string> {
  expectOk(`create CRD ${body.metadata.name}`, await call(client, "POST", CRD_PATH, body));
  const plural = body.spec.names.plural;
  await eventually(`${plural} served`, async () => {
    await client.request("GET", `/apis/${GROUP}/v1/${plural}`, { throwOnError: true });
    return true;
  }, POLL);
  return plural;
}

// deno-lint-ignore no-explicit-any
export type Json = any;
