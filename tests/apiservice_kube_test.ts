// The farm server against the fake API server through the runtime's KubeClient and Informer
// (tests/support/farm_on_fake.ts): FarmPods from the pod informer, SubjectAccessReview against the cluster,
// ConfigMap storage surviving a restart.
import { eventually } from "../testing/eventually.ts";
import assert from "node:assert/strict";
import type { ConfigMap } from "../runtime/builtin_types.ts";
import { CoreTypes } from "../runtime/types.ts";
import { startFarmFixture } from "./support/farm_fixture.ts";
import { LLAMAS, startFarmOnFake } from "./support/farm_on_fake.ts";

Deno.test("farm server on the fake cluster: farmpods from the informer, SAR via the cluster, ConfigMap restart", async () => {
  const env = await startFarmOnFake({ storage: "configmap" });
  const { fake, client } = env;
  let fx = env.replicas[0];
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
    const cm = await client.get<ConfigMap>(CoreTypes.ConfigMap, "farm-llamas", { namespace: "kube-system" });
    assert.equal(cm.data?.resourceVersion, rv);

    await fx.close();
    fx = env.replicas[0] = await startFarmFixture({
      cluster: env.cluster,
      frontProxyCA: env.frontProxyCA,
      storage: "configmap",
    });
    const kuzco = await (await fx.call(`${LLAMAS}/kuzco`)).json();
    assert.equal(kuzco.metadata.resourceVersion, rv);
  } finally {
    await env.close();
  }
});
