// The kubectl suite against a real kube-apiserver: proves the suite's expectations are the real server's behaviour.
import { defineKubectlSuite, helmBinary, kubectlBinaries } from "../kubectl/suite.ts";
import { realClusterBinDir, startRealCluster } from "../support/real_cluster.ts";

const binDir = await realClusterBinDir();
const binaries = await kubectlBinaries();
defineKubectlSuite("real, kubectl 1.33", binaries["1.33"], () => startRealCluster({ binDir }), {
  helm: await helmBinary(),
  ignore: !binDir,
});
