// Real-cluster tier: the CRDs as the README installs them without the operator (`kubeop crds | kubectl apply -f -`)
// on a real kube-apiserver with no webhook running anywhere; the samples apply, and `kubectl get` of every kind reads
// them back — At included, whose v1beta1 (served only next to kubeop's conversion webhook) is absent here.
import assert from "node:assert/strict";
import { allCrdsYaml } from "../../cli/crds.ts";
import { crdManifests } from "../../controllers/crds.ts";
import { realClusterBinDir, startRealCluster } from "../support/real_cluster.ts";

const binDir = await realClusterBinDir();
const root = new URL("../../", import.meta.url);

Deno.test({
  name: "real cluster: kubeop crds | kubectl apply -f -, no webhook: kubectl get of every kind works",
  ignore: !binDir,
  sanitizeResources: false,
  sanitizeOps: false,
  async fn() {
    const cluster = await startRealCluster({ binDir });
    const cacheDir = await Deno.makeTempDir({ prefix: "kubeop-kubectl-cache-" });
    const kubectl = async (args: string[], stdin?: string) => {
      const child = new Deno.Command(`${binDir}/kubectl`, {
        args: ["--kubeconfig", cluster.kubeconfigPath, "--cache-dir", cacheDir, ...args],
        cwd: root.pathname,
        stdin: stdin === undefined ? "null" : "piped",
        stdout: "piped",
        stderr: "piped",
      }).spawn();
      if (stdin !== undefined) {
        const writer = child.stdin.getWriter();
        await writer.write(new TextEncoder().encode(stdin));
        await writer.close();
      }
      const out = await child.output();
      const stdout = new TextDecoder().decode(out.stdout);
      const stderr = new TextDecoder().decode(out.stderr);
      assert.equal(out.code, 0, `kubectl ${args.join(" ")}:\n${stderr}${stdout}`);
      return stdout;
    };
    try {
      const applied = await kubectl(["apply", "-f", "-"], allCrdsYaml());
      assert.match(applied, /customresourcedefinition\.apiextensions\.k8s\.io\/ats\.cnat\.ishankhare\.dev created/);
      await kubectl(["wait", "--for=condition=Established", "crd", "--all", "--timeout=60s"]);
      await kubectl(["apply", "-f", "deploy/samples/"]);
      for (const crd of crdManifests()) {
        const listed = await kubectl(["get", crd.spec.names.plural, "--all-namespaces", "-o", "name"]);
        assert.notEqual(listed.trim(), "", `${crd.spec.names.plural}: the samples hold at least one`);
      }
      assert.match(await kubectl(["get", "ats"]), /^at-sample\s/m);
      assert.match(await kubectl(["get", "kubeop", "--all-namespaces"]), /at-sample/);
    } finally {
      await cluster.stop();
      await Deno.remove(cacheDir, { recursive: true }).catch(() => {});
    }
  },
});
