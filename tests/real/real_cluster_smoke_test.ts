// Real-cluster tier: runs when scripts/k8s-bin.sh has built the control plane (CI does; locally opt in by running it).
import assert from "node:assert/strict";
import { realClusterBinDir, startRealCluster } from "../support/real_cluster.ts";

const binDir = await realClusterBinDir();

Deno.test({
  name: "real cluster: kube-apiserver starts and kubectl 1.33 reaches it",
  ignore: !binDir,
  sanitizeResources: false,
  sanitizeOps: false,
  async fn() {
    const cluster = await startRealCluster({ binDir });
    try {
      const cacheDir = await Deno.makeTempDir();
      const out = await new Deno.Command("/usr/lib/google-cloud-sdk/bin/kubectl.1.33", {
        args: ["--kubeconfig", cluster.kubeconfigPath, "--cache-dir", cacheDir, "get", "namespaces", "-o", "name"],
        stdout: "piped",
        stderr: "piped",
      }).output();
      assert.equal(out.code, 0, new TextDecoder().decode(out.stderr));
      assert.match(new TextDecoder().decode(out.stdout), /namespace\/default/);
      await Deno.remove(cacheDir, { recursive: true });
    } finally {
      await cluster.stop();
    }
  },
});
