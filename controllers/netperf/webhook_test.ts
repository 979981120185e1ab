import assert from "node:assert/strict";
import { CoreTypes } from "../../runtime/types.ts";
import type { AdmissionResponse } from "../../runtime/webhook/review_types.ts";
import { webhookRoutes } from "../../runtime/webhook/webhook.ts";
import { reviewThroughRoute } from "../../testing/apiserver/admission_review.ts";
import { FakeCluster } from "../../testing/mod.ts";
import { netperfWebhook } from "./webhook.ts";
import { type Netperf, netperfCrds, NetperfType } from "./schema.ts";

function netperf(spec: Netperf["spec"]): Netperf {
  return { apiVersion: "app.example.com/v1alpha1", kind: "Netperf", metadata: { name: "np", namespace: "ns" }, spec };
}

async function admit(
  cluster: FakeCluster,
  operation: "CREATE" | "UPDATE",
  object: Netperf,
  oldObject?: Netperf,
): Promise<AdmissionResponse> {
  const [route] = webhookRoutes([netperfWebhook({ client: cluster.client })]);
  assert.equal(route.path, "/validate-app-example-com-v1alpha1-netperf");
  return await reviewThroughRoute(route, NetperfType, { operation, object, oldObject });
}

Deno.test("netperf webhook refuses a Netperf naming a Node that does not exist, and allows existing ones", async () => {
  const cluster = new FakeCluster({ crds: netperfCrds() });
  await cluster.client.create(CoreTypes.Node, { metadata: { name: "node-a" } });
  assert.equal((await admit(cluster, "CREATE", netperf({ serverNode: "node-a" }))).allowed, true);
  assert.equal((await admit(cluster, "CREATE", netperf({}))).allowed, true);
  const refused = await admit(cluster, "CREATE", netperf({ serverNode: "node-a", clientNode: "node-x" }));
  assert.equal(refused.allowed, false);
  assert.equal(refused.status?.code, 422);
  assert.equal(refused.status?.message, 'spec.clientNode: Node "node-x" not found');
});

Deno.test("netperf webhook checks only a changed node name on UPDATE (a Node that left does not block edits)", async () => {
  const cluster = new FakeCluster({ crds: netperfCrds() });
  const gone = netperf({ serverNode: "node-gone" });
  assert.equal(
    (await admit(cluster, "UPDATE", { ...gone, metadata: { ...gone.metadata, labels: { a: "b" } } }, gone)).allowed,
    true,
  );
  const moved = await admit(cluster, "UPDATE", netperf({ serverNode: "node-other" }), gone);
  assert.equal(moved.allowed, false);
  assert.match(moved.status!.message!, /spec.serverNode: Node "node-other" not found/);
});
