import assert from "node:assert/strict";
import type { ConfigMap } from "../runtime/builtin_types.ts";
import { CoreTypes, KubeClient, type KubeObject, Manager, parseKubeconfig } from "../runtime/mod.ts";
import { eventually, startFakeApiServer } from "../testing/mod.ts";
import { helloController } from "./hello_operator.ts";

Deno.test("the README's example operator greets labelled ConfigMaps and leaves others alone", async () => {
  const server = await startFakeApiServer();
  const client = new KubeClient({ config: await parseKubeconfig(server.kubeconfig) });
  const ac = new AbortController();
  const running = new Manager({ client }).add(helloController()).start(ac.signal);
  try {
    await client.create<KubeObject>(CoreTypes.ConfigMap, {
      metadata: { name: "plain", namespace: "default" },
    }, { namespace: "default" });
    await client.create<KubeObject>(CoreTypes.ConfigMap, {
      metadata: { name: "friendly", namespace: "default", labels: { greet: "yes" } },
    }, { namespace: "default" });
    const greeted = await eventually("the labelled ConfigMap to be greeted", async () => {
      const cm = await client.get<ConfigMap>(CoreTypes.ConfigMap, "friendly", { namespace: "default" });
      return cm.data?.greeting === "hello" && cm;
    });
    assert.equal(greeted.data?.greeting, "hello");
    const plain = await client.get(CoreTypes.ConfigMap, "plain", { namespace: "default" });
    assert.equal(plain.data, undefined);
  } finally {
    ac.abort();
    await running;
    client.close();
    await server.stop();
  }
});
