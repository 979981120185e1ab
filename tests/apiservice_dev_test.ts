// The farm API as `kubeop dev` runs it: registered in-process with the fake API server, farmpods from its pods,
// llamas persisted in the fake server's ConfigMap.
import assert from "node:assert/strict";
import { startFarmForDev } from "../apiservice/dev_starter.ts";
import { KubeClient } from "../runtime/client/client.ts";
import { parseKubeconfig } from "../runtime/client/kubeconfig.ts";
import type { ConfigMap } from "../runtime/builtin_types.ts";
import { CoreTypes } from "../runtime/types.ts";
import { eventually, startFakeApiServer } from "../testing/mod.ts";

Deno.test("startFarmForDev serves llamas and farmpods through the fake API server", async () => {
  const fake = await startFakeApiServer({ port: 0 });
  const certDir = await Deno.makeTempDir({ prefix: "farm-dev-" });
  const stop = await startFarmForDev(fake, { certDir });
  const client = new KubeClient({ config: await parseKubeconfig(fake.kubeconfig) });
  try {
    const get = async (path: string) => {
      const res = await client.request("GET", path);
      return { status: res.status, body: JSON.parse(new TextDecoder().decode(res.body)) };
    };
    const dolly = await get("/apis/farm.example.com/v1alpha/namespaces/default/llamas/dolly");
    assert.equal(dolly.status, 200);
    assert.equal(dolly.body.spec.height, 0.5);
    const cm = await client.get<ConfigMap>(CoreTypes.ConfigMap, "farm-llamas", { namespace: "kube-system" });
    assert.ok(cm.data?.["llamas.json"].includes("dolly"));

    await client.create(CoreTypes.Pod, {
      metadata: { name: "web", namespace: "default" },
      spec: { containers: [{ name: "a", image: "x" }] },
    });
    const fp = await eventually("FarmPod farm-web appears for Pod web", async () => {
      const res = await get("/apis/farm.example.com/v1alpha/namespaces/default/farmpods/farm-web");
      return res.status === 200 ? res : undefined;
    }, { timeoutMs: 10_000, intervalMs: 20 });
    assert.equal(fp.body.spec.containers, 1);
  } finally {
    client.close();
    await stop();
    await fake.stop();
    await Deno.remove(certDir, { recursive: true });
  }
});
