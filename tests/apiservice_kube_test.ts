// The farm server against the fake API server through the runtime's KubeClient and Informer: FarmPods from the
// pod informer, SubjectAccessReview against the cluster, ConfigMap storage surviving a restart.
import { eventually } from "../testing/eventually.ts";
import assert from "node:assert/strict";
import { KubeClient } from "../runtime/client.ts";
import { InformerRegistry } from "../runtime/informers.ts";
import { parseKubeconfig } from "../runtime/kubeconfig.ts";
import { CoreTypes, type KubeObject } from "../runtime/types.ts";
import { KubeFarmCluster, podCacheFromInformer } from "../apiservice/kube_cluster.ts";
import { startFarmFixture } from "../apiservice/test_support.ts";
import { createCA } from "../runtime/pki.ts";
import { startFakeApiServer } from "../testing/mod.ts";

const LLAMAS = "/apis/farm.example.com/v1alpha/namespaces/default/llamas";

Deno.test("farm server on the fake cluster: farmpods from the informer, SAR via the cluster, ConfigMap restart", async () => {
  const fake = await startFakeApiServer({ port: 0 });
  // As on a real cluster, the farm's SubjectAccessReviews for "alice" (the fixture's front-proxy user) need RBAC.
  const rbac = { group: "rbac.authorization.k8s.io", version: "v1" };
  fake.store.create({ ...rbac, plural: "clusterroles" }, {
    metadata: { name: "farm-user" },
    rules: [{ apiGroups: ["farm.example.com"], resources: ["*"], verbs: ["*"] }],
  });
  fake.store.create({ ...rbac, plural: "clusterrolebindings" }, {
    metadata: { name: "farm-user-alice" },
    roleRef: { apiGroup: "rbac.authorization.k8s.io", kind: "ClusterRole", name: "farm-user" },
    subjects: [{ apiGroup: "rbac.authorization.k8s.io", kind: "User", name: "alice" }],
  });
  const client = new KubeClient({ config: await parseKubeconfig(fake.kubeconfig) });
  const ctrl = new AbortController();
  const informers = new InformerRegistry({ client });
  const pods = podCacheFromInformer(informers.get<KubeObject>(CoreTypes.Pod));
  const running = informers.start(ctrl.signal);
  const cluster = new KubeFarmCluster({ client, pods });
  const frontProxyCA = await createCA({ commonName: "front-proxy-ca" });
  const opts = { cluster, frontProxyCA, storage: "configmap" as const };
  let fx = await startFarmFixture(opts);
  try {
    await client.create(CoreTypes.Pod, {
      metadata: { name: "web", namespace: "default" },
      spec: { containers: [{ name: "a", image: "x" }, { name: "b", image: "y" }] },
    });
    const farmpod = await eventually("farm-web", async () => {
      const res = await fx.call("/apis/farm.example.com/v1alpha/namespaces/default/farmpods/farm-web");
      if (res.status !== 200) {
        await res.body?.cancel();
        return undefined;
      }
      return await res.json();
    });
    assert.equal(farmpod.spec.containers, 2);

    fake.faults.denySubjectAccess((review) => review.spec?.user === "mallory");
    const denied = await fx.call(LLAMAS, { as: { user: "mallory" } });
    assert.equal(denied.status, 403);
    await denied.body?.cancel();

    const created = await fx.call(LLAMAS, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ metadata: { name: "kuzco" }, spec: { weight: 90, height: 1.7 } }),
    });
    assert.equal(created.status, 201);
    const rv = (await created.json()).metadata.resourceVersion;
    const cm = await client.get<KubeObject>(CoreTypes.ConfigMap, "farm-llamas", { namespace: "kube-system" });
    assert.equal(cm.data.resourceVersion, rv);

    await fx.close();
    fx = await startFarmFixture(opts);
    const kuzco = await (await fx.call(`${LLAMAS}/kuzco`)).json();
    assert.equal(kuzco.metadata.resourceVersion, rv);
  } finally {
    await fx.close();
    ctrl.abort();
    await running;
    client.close();
    await fake.stop();
  }
});
