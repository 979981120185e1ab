// The conformance suite against the fake API server (default tier). tests/real/ runs the same cases on a real one.
import { startFakeApiServer } from "../testing/mod.ts";
import { defineConformance } from "./conformance/index.ts";

defineConformance("fake", async () => {
  // Like the real test cluster (no kubelet there either): pods bound to a node wait for their kubelet to go.
  // KEP-5866 on, as the real tier runs it; the gate-off cases reach a second fake server (its own storage).
  const server = await startFakeApiServer({ gracefulPodDeletion: true, featureGates: { ShardedListAndWatch: true } });
  const dir = await Deno.makeTempDir();
  const kubeconfigPath = `${dir}/kubeconfig`;
  await server.writeKubeconfig(kubeconfigPath);
  let off: ReturnType<typeof startFakeApiServer> | undefined;
  return {
    kubeconfigPath,
    shardingOff: async () => {
      off ??= startFakeApiServer({ gracefulPodDeletion: true });
      await (await off).writeKubeconfig(`${dir}/off.kubeconfig`);
      return `${dir}/off.kubeconfig`;
    },
    stop: async () => {
      if (off) await (await off).stop();
      await server.stop();
      await Deno.remove(dir, { recursive: true });
    },
  };
});
