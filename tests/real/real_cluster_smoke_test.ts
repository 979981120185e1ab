// Real-cluster tier: runs when scripts/k8s-bin.sh has built the control plane (CI does; locally opt in by running it).
import assert from "node:assert/strict";
import { DEFAULT_K8S_VERSION, realClusterBinDir, startRealCluster } from "../support/real_cluster.ts";

const binDir = await realClusterBinDir();

Deno.test({
  name: "real cluster: kube-apiserver starts and the kubectl built at its version reaches it",
  ignore: !binDir,
  sanitizeResources: false,
  sanitizeOps: false,
  async fn() {
    const cluster = await startRealCluster({ binDir });
    try {
      const cacheDir = await Deno.makeTempDir();
      const out = await new Deno.Command(`${binDir}/kubectl`, {
        args: ["--kubeconfig", cluster.kubeconfigPath, "--cache-dir", cacheDir, "get", "namespaces", "-o", "name"],
        stdout: "piped",
        stderr: "piped",
      }).output();
      assert.equal(out.code, 0, new TextDecoder().decode(out.stderr));
      assert.match(new TextDecoder().decode(out.stdout), /namespace\/default/);
      const version = await new Deno.Command(`${binDir}/kubectl`, {
        args: ["--kubeconfig", cluster.kubeconfigPath, "--cache-dir", cacheDir, "version", "-o", "json"],
        stdout: "piped",
      }).output();
      const reported = JSON.parse(new TextDecoder().decode(version.stdout));
      const expected = (Deno.env.get("KUBEOP_K8S_VERSION") ?? DEFAULT_K8S_VERSION).replace(/^v/, "").split(".");
      assert.equal(reported.serverVersion.minor, expected[1], "the server runs the release scripts/k8s-bin.sh built");
      assert.equal(reported.clientVersion.minor, expected[1], "kubectl is built at the server's version");
      await Deno.remove(cacheDir, { recursive: true });
    } finally {
      await cluster.stop();
    }
  },
});
