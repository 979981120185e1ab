// The conformance suite against the fake API server (default tier). tests/real/ runs the same cases on a real one.
import { startFakeApiServer } from "../testing/mod.ts";
import { defineConformance } from "./conformance/index.ts";

defineConformance("fake", async () => {
  // Like the real test cluster (no kubelet there either): pods bound to a node wait for their kubelet to go.
  const server = await startFakeApiServer({ gracefulPodDeletion: true });
  const dir = await Deno.makeTempDir();
  const kubeconfigPath = `${dir}/kubeconfig`;
  await server.writeKubeconfig(kubeconfigPath);
  return {
    kubeconfigPath,
    stop: async () => {
      await server.stop();
      await Deno.remove(dir, { recursive: true });
    },
  };
});
