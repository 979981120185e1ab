// The kubectl suite against a real kube-apiserver: proves the suite's expectations are the real server's behaviour.
// The kubectl built at the server's version (scripts/k8s-bin.sh) is the main row; the machine's kubectl 1.33 is an
// older-client row (kubectl supports one minor of skew officially; these rows show what older clients still do).
import { defineKubectlSuite, helmBinary, kubectlBinaries } from "../kubectl/suite.ts";
import { DEFAULT_K8S_VERSION, realClusterBinDir, startRealCluster } from "../support/real_cluster.ts";

const binDir = await realClusterBinDir();
const binaries = await kubectlBinaries();
const serverMinor = (Deno.env.get("KUBEOP_K8S_VERSION") ?? DEFAULT_K8S_VERSION).replace(/^v/, "").split(".").slice(0, 2)
  .join(".");
const helm = await helmBinary();
defineKubectlSuite(
  `real, kubectl ${serverMinor} (server's version)`,
  binDir && `${binDir}/kubectl`,
  () => startRealCluster({ binDir }),
  { helm, ignore: !binDir },
);
defineKubectlSuite("real, kubectl 1.33 (older client)", binaries["1.33"], () => startRealCluster({ binDir }), {
  ignore: !binDir,
});
