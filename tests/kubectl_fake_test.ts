// The kubectl suite against the fake API server, once per kubectl version on this machine (1.32, 1.33, 1.35 + Helm 4).
import { startFakeApiServer } from "../testing/mod.ts";
import { defineKubectlSuite, helmBinary, kubectlBinaries } from "./kubectl/suite.ts";

const binaries = await kubectlBinaries();
const helm = await helmBinary();

for (const label of ["1.32", "1.35"]) {
  defineKubectlSuite(`fake, kubectl ${label}`, binaries[label], async () => {
    const server = await startFakeApiServer({ anonymousAdmin: true });
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
  }, { helm: label === "1.35" ? helm : undefined });
}
