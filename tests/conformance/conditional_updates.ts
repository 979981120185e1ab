/**
 * Conformance cases: the kinds whose strategy refuses unconditional updates (found by the differential battery,
 * tests/differential/). A PUT without `metadata.resourceVersion` of a Lease, a CSIDriver or a custom resource is 422,
 * and the store's error names the resource (`leases.coordination.k8s.io "x" is invalid`) with the value `0`; a
 * ConfigMap's is applied.
 * @module
 */
import assert from "node:assert/strict";
import type { KubeClient } from "../../runtime/client/client.ts";
import type { ConformanceCase } from "./support.ts";

// deno-lint-ignore no-explicit-any
type Any = any;

async function call(client: KubeClient, method: string, path: string, body: unknown): Promise<[number, Any]> {
  const res = await client.request(method, path, { body: JSON.stringify(body) });
  return [res.status, JSON.parse(new TextDecoder().decode(res.body))];
}

export const conditionalUpdateCases: ConformanceCase[] = [
  {
    name: "an update without a resourceVersion: 422 naming the resource for Leases, CSIDrivers, custom resources",
    async run({ noRetry, ns }) {
      const targets: Array<[string, string, string, Any]> = [
        [`/apis/coordination.k8s.io/v1/namespaces/${ns}/leases`, "leases", "coordination.k8s.io", {
          apiVersion: "coordination.k8s.io/v1",
          kind: "Lease",
          spec: { holderIdentity: "a" },
        }],
        ["/apis/storage.k8s.io/v1/csidrivers", "csidrivers", "storage.k8s.io", {
          apiVersion: "storage.k8s.io/v1",
          kind: "CSIDriver",
          spec: {},
        }],
        [`/apis/conformance.kubeop.dev/v1/namespaces/${ns}/widgets`, "widgets", "conformance.kubeop.dev", {
          apiVersion: "conformance.kubeop.dev/v1",
          kind: "Widget",
          spec: { size: 1 },
        }],
      ];
      for (const [collection, plural, group, body] of targets) {
        const name = `cu-${plural}-${ns}`.slice(0, 60);
        const [created, createdBody] = await call(noRetry, "POST", collection, { ...body, metadata: { name } });
        assert.equal(created, 201, JSON.stringify(createdBody));
        try {
          const [code, status] = await call(noRetry, "PUT", `${collection}/${name}`, { ...body, metadata: { name } });
          assert.equal(code, 422, JSON.stringify(status));
          const why = "metadata.resourceVersion: Invalid value: 0: must be specified for an update";
          assert.equal(status.message, `${plural}.${group} "${name}" is invalid: ${why}`);
          assert.deepEqual([status.details.kind, status.details.group], [plural, group]);
        } finally {
          await noRetry.request("DELETE", `${collection}/${name}`);
        }
      }
      const cms = `/api/v1/namespaces/${ns}/configmaps`;
      assert.equal((await call(noRetry, "POST", cms, { metadata: { name: "cu-cm" } }))[0], 201);
      const [code] = await call(noRetry, "PUT", `${cms}/cu-cm`, { metadata: { name: "cu-cm" }, data: { a: "b" } });
      assert.equal(code, 200);
    },
  },
];
