// End to end through the fake API server's aggregation proxy over the network: the proxy presents its front-proxy
// client certificate and X-Remote-User; the farm server trusts the CA from kube-system/extension-apiserver-
// authentication, authorizes with a SubjectAccessReview on the same server, and kubectl sees the result.
import assert from "node:assert/strict";
import { join } from "node:path";
import { KubeFarmCluster } from "../apiservice/kube_cluster.ts";
import { FarmApiServer } from "../apiservice/mod.ts";
import { startRunnable } from "../runtime/manager/runnable.ts";
import { KubeClient } from "../runtime/client/client.ts";
import { parseKubeconfig } from "../runtime/client/kubeconfig.ts";
import { startFakeApiServer } from "../testing/mod.ts";
import type { KubeObject } from "../runtime/types.ts";
import { ClusterRole, ClusterRoleBinding } from "./conformance/authz_support.ts";

Deno.test("delegated auth through the aggregator: front-proxy cert + SubjectAccessReview", async () => {
  const fake = await startFakeApiServer({ port: 0 });
  const dir = await Deno.makeTempDir({ prefix: "farm-agg-" });
  const client = new KubeClient({ config: await parseKubeconfig(fake.kubeconfig) });
  const farm = new FarmApiServer({
    port: 0,
    bindAddress: "127.0.0.1",
    certDir: join(dir, "certs"),
    cluster: new KubeFarmCluster({ client }),
    auth: "delegated",
    log: () => {},
  });
  const stopFarm = new AbortController();
  const serving = startRunnable(farm, stopFarm.signal);
  await serving.ready;
  fake.registerAggregatedApi("farm.example.com", "v1alpha", { url: farm.url, caPEM: farm.caPEM });
  const get = async (path: string) => {
    const res = await client.request("GET", path);
    return { status: res.status, body: JSON.parse(new TextDecoder().decode(res.body)) };
  };
  try {
    const allowed = await get("/apis/farm.example.com/v1alpha/namespaces/default/llamas/dolly");
    assert.equal(allowed.status, 200, JSON.stringify(allowed.body));
    assert.equal(allowed.body.spec.weight, 31.4);

    // The admin (system:masters) is always allowed without a review, as k8s.io/apiserver's AlwaysAllowGroups: act as
    // alice, whom the fake's RBAC lets get llamas, so the farm server asks the fake with a SubjectAccessReview.
    await client.create(ClusterRole, {
      metadata: { name: "llama-reader" },
      rules: [{ apiGroups: ["farm.example.com"], resources: ["llamas"], verbs: ["get"] }],
    } as KubeObject);
    await client.create(ClusterRoleBinding, {
      metadata: { name: "alice-reads-llamas" },
      roleRef: { apiGroup: "rbac.authorization.k8s.io", kind: "ClusterRole", name: "llama-reader" },
      subjects: [{ apiGroup: "rbac.authorization.k8s.io", kind: "User", name: "alice" }],
    } as KubeObject);
    const getAsAlice = async (path: string) => {
      const res = await fetch(`${fake.url}${path}`, {
        headers: { authorization: `Bearer ${fake.adminToken}`, "impersonate-user": "alice" },
      });
      return { status: res.status, body: await res.json() };
    };
    const reviewed: string[] = [];
    fake.faults.denySubjectAccess((review) => {
      reviewed.push(
        `${review.spec?.user} ${review.spec?.resourceAttributes?.verb} ${review.spec?.resourceAttributes?.name}`,
      );
      return review.spec?.resourceAttributes?.name === "secret-llama";
    });
    const denied = await getAsAlice("/apis/farm.example.com/v1alpha/namespaces/default/llamas/secret-llama");
    assert.equal(denied.status, 403, JSON.stringify(denied.body));
    assert.equal(denied.body.reason, "Forbidden");
    assert.ok(reviewed.some((r) => r === "alice get secret-llama"), reviewed.join("; "));
    assert.equal((await getAsAlice("/apis/farm.example.com/v1alpha/namespaces/default/llamas/dolly")).status, 200);

    // Without the proxy's certificate the same headers are worthless.
    const direct = Deno.createHttpClient({ caCerts: [farm.caPEM] });
    try {
      const res = await fetch(`${farm.url}/apis/farm.example.com/v1alpha/namespaces/default/llamas/dolly`, {
        client: direct,
        headers: { "X-Remote-User": "system:admin", "X-Remote-Group": "system:masters" },
      });
      assert.equal(res.status, 403, "no certificate: the headers are ignored, the caller is system:anonymous");
      assert.match((await res.json()).message, /User "system:anonymous" cannot get resource "llamas"/);
    } finally {
      direct.close();
    }
  } finally {
    stopFarm.abort();
    await serving.done;
    client.close();
    await fake.stop();
    await Deno.remove(dir, { recursive: true });
  }
});
