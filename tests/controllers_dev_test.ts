/**
 * The `kubeop dev` wiring of the seed systems: a fake API server with the fake kubelet scripted by
 * `devKubeletBehaviour`, `startSeedControllers`, and the samples applied unchanged with real kubectl — every
 * system completes as its tutorial describes (At DONE, Netperf Done with a speed, switches down, Secrets copied).
 */

import assert from "node:assert/strict";
import { devKubeletBehaviour, startSeedControllers } from "../controllers/dev.ts";
import { type At, AtType } from "../controllers/at/schema.ts";
import { type Machine, MachineType } from "../controllers/machine/schema.ts";
import { type MultiSecret, MultiSecretType } from "../controllers/multisecret/schema.ts";
import { type Netperf, NetperfType } from "../controllers/netperf/schema.ts";
import { KubeClient } from "../runtime/client/client.ts";
import { VirtualClock } from "../runtime/clock.ts";
import { parseKubeconfig } from "../runtime/client/kubeconfig.ts";
import type { KubeObject, ResourceType } from "../runtime/types.ts";
import { startFakeApiServer } from "../testing/mod.ts";
import { waitFor } from "./controllers_env.ts";

const KUBECTL = "/usr/lib/google-cloud-sdk/bin/kubectl.1.32";
const hasKubectl = await Deno.stat(KUBECTL).then(() => true, () => false);

Deno.test({
  name: "on the dev control plane the samples run to completion",
  ignore: !hasKubectl,
  fn: async () => {
    const clock = new VirtualClock(Date.UTC(2026, 0, 1));
    const server = await startFakeApiServer({
      anonymousAdmin: true,
      clock,
      kubelet: { behaviour: devKubeletBehaviour },
    });
    const dir = await Deno.makeTempDir({ prefix: "kubeop-dev-" });
    const client = new KubeClient({ config: await parseKubeconfig(server.kubeconfig) });
    const stop = await startSeedControllers({ kubeconfig: server.kubeconfig, clock });
    try {
      await server.writeKubeconfig(`${dir}/kubeconfig`);
      const out = await new Deno.Command(KUBECTL, {
        args: [
          `--kubeconfig=${dir}/kubeconfig`,
          `--cache-dir=${dir}/cache`,
          "apply",
          "-n",
          "default",
          "-f",
          new URL("../deploy/samples/", import.meta.url).pathname,
        ],
        stdout: "piped",
        stderr: "piped",
      }).output();
      assert.ok(out.success, new TextDecoder().decode(out.stderr));
      const get = async <T extends KubeObject>(rt: ResourceType, name: string) =>
        await client.get<T>(rt, name, { namespace: "default" });
      // let virtual time pass one second per poll: flips, crash-loop backoffs and the 10 s netperf run happen
      const tick = () => clock.advance(1_000);
      await waitFor("at-sample DONE", async () => (await get<At>(AtType, "at-sample")).status?.phase === "DONE");
      const np = await waitFor("netperf Done", async () => {
        await tick();
        const n = await get<Netperf>(NetperfType, "example");
        return (n.status?.status === "Done" || n.status?.status === "Error") && n;
      });
      assert.equal(np.status?.status, "Done", np.status?.message);
      assert.equal(np.status?.speedBitsPerSec, 9_416_960_000);
      await waitFor("machine-1 down", async () => {
        await tick();
        return (await get<Machine>(MachineType, "machine-1")).spec.switchPosition === "down";
      });
      await waitFor("machine-vf4xk adopted the hand-made switch and flipped it", async () => {
        await tick();
        return (await get<Machine>(MachineType, "machine-vf4xk")).status?.positions === "d";
      });
      await waitFor("multisecret copied", async () => {
        const s = (await get<MultiSecret>(MultiSecretType, "multisecret-sample")).status;
        return s?.wanted !== undefined && s.wanted > 0 && s.created === s.wanted;
      });
    } finally {
      await stop();
      client.close();
      await server.stop();
      await Deno.remove(dir, { recursive: true });
    }
  },
});
