import assert from "node:assert/strict";
import { CoreTypes, KubeClient, type KubeObject, Manager, parseKubeconfig } from "../runtime/mod.ts";
import { startFakeApiServer } from "../testing/mod.ts";
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
    const deadline = Date.now() + 10_000;
    let greeted: KubeObject | undefined;
    while (Date.now() < deadline) {
      greeted = await client.get(CoreTypes.ConfigMap, "friendly", { namespace: "default" });
      if (greeted.data?.greeting === "hello") break;
      await new Promise((r) => setTimeout(r, 20)); // poll with a deadline
    }
    assert.equal(greeted?.data?.greeting, "hello");
    const plain = await client.get(CoreTypes.ConfigMap, "plain", { namespace: "default" });
    assert.equal(plain.data, undefined);
  } finally {
    ac.abort();
    await running;
    client.close();
    await server.stop();
  }
});
