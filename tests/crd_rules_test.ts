// Our CRDs' CEL rules (controllers/*/schema.ts `rules` and schema-level x-kubernetes-validations), enforced by the
// fake API server as kube-apiserver enforces them.
import assert from "node:assert/strict";
import { type At, atCrds, AtType } from "../controllers/at/schema.ts";
import { type Netperf, netperfCrds, NetperfType } from "../controllers/netperf/schema.ts";
import { KubeClient } from "../runtime/client/client.ts";
import { type ApiError, isInvalid } from "../runtime/client/errors.ts";
import { parseKubeconfig } from "../runtime/client/kubeconfig.ts";
import { CoreTypes } from "../runtime/types.ts";
import type { Unstructured as KubeObject } from "../testing/apiserver/unstructured.ts";
import { startFakeApiServer } from "../testing/mod.ts";

async function withClient(fn: (client: KubeClient) => Promise<void>): Promise<void> {
  const server = await startFakeApiServer();
  const client = new KubeClient({ config: await parseKubeconfig(server.kubeconfig) });
  try {
    for (const crd of [...atCrds(), ...netperfCrds()]) await client.create(CoreTypes.CustomResourceDefinition, crd);
    await fn(client);
  } finally {
    client.close();
    await server.stop();
  }
}

async function invalid(p: Promise<unknown>): Promise<ApiError> {
  const err = await p.then(() => undefined, (e) => e);
  assert.ok(isInvalid(err), `expected 422, got ${err}`);
  return err as ApiError;
}

Deno.test("At: spec may change while PENDING, not once the At has run", async () => {
  await withClient(async (client) => {
    const ns = { namespace: "default" };
    const spec = { schedule: "2030-01-01T00:00:00Z", command: "echo hi" };
    await client.create<At>(AtType, { metadata: { name: "a" }, spec } as At, ns);
    await client.patch(AtType, "a", { status: { phase: "PENDING" } }, { ...ns, type: "merge", subresource: "status" });
    await client.patch(AtType, "a", { spec: { command: "echo later" } }, { ...ns, type: "merge" });
    await client.patch(AtType, "a", { status: { phase: "DONE" } }, { ...ns, type: "merge", subresource: "status" });
    const err = await invalid(client.patch(AtType, "a", { spec: { command: "echo again" } }, { ...ns, type: "merge" }));
    assert.deepEqual(err.status.details?.causes, [{
      reason: "FieldValueInvalid",
      message: "Invalid value: spec is immutable once the At has run (phase RUNNING, DONE or FAILED): create a new At",
      field: "spec",
    }]);
    // Status writes and metadata changes stay possible.
    await client.patch(AtType, "a", { metadata: { labels: { x: "y" } } }, { ...ns, type: "merge" });
  });
});

Deno.test("Netperf: spec may change while Initial, not once it has started", async () => {
  await withClient(async (client) => {
    const ns = { namespace: "default" };
    const status = (s: string) =>
      client.patch(NetperfType, "n", { status: { status: s } }, {
        ...ns,
        type: "merge",
        subresource: "status",
      });
    await client.create<Netperf>(NetperfType, { metadata: { name: "n" }, spec: { duration: 5 } } as Netperf, ns);
    await client.patch(NetperfType, "n", { spec: { duration: 6 } }, { ...ns, type: "merge" });
    await status("Initial");
    await client.patch(NetperfType, "n", { spec: { serverNode: "node-a" } }, { ...ns, type: "merge" });
    await status("Server");
    const err = await invalid(client.patch(NetperfType, "n", { spec: { duration: 7 } }, { ...ns, type: "merge" }));
    assert.equal(
      err.status.details?.causes?.[0].message,
      "Invalid value: spec is immutable once the Netperf has started (Server, Test, Done or Error): create a new Netperf",
    );
    const unchanged = await client.get<KubeObject>(NetperfType, "n", ns);
    assert.equal(unchanged.spec.duration, 6);
  });
});
