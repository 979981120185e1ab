import assert from "node:assert/strict";
import { KubeClient } from "../runtime/client/client.ts";
import { parseKubeconfig } from "../runtime/client/kubeconfig.ts";
import { CoreTypes } from "../runtime/types.ts";
import { eventually, startFakeApiServer } from "../testing/mod.ts";
import { startSeedControllers } from "./dev.ts";
import { type Machine, MachineType } from "./machine/schema.ts";

Deno.test("startSeedControllers installs the CRDs (twice is fine) and runs the controllers until stopped", async () => {
  const server = await startFakeApiServer();
  const client = new KubeClient({ config: await parseKubeconfig(server.kubeconfig) });
  try {
    await (await startSeedControllers({ kubeconfig: server.kubeconfig }))(); // stopped at once, on a fresh server
    const stop = await startSeedControllers({ kubeconfig: server.kubeconfig });
    const crds = await client.list(CoreTypes.CustomResourceDefinition);
    assert.equal(crds.items.length, 5);
    await client.create(MachineType, { metadata: { name: "m" }, spec: { switches: 2 } }, { namespace: "default" });
    await eventually("machine m to report positions dd", async () => {
      const machine = await client.get<Machine>(MachineType, "m", { namespace: "default" });
      return machine.status?.positions === "dd";
    });
    await stop();
    const again = await startSeedControllers({ kubeconfig: server.kubeconfig });
    await again();
  } finally {
    client.close();
    await server.stop();
  }
});
