// The conformance suite against a real kube-apiserver (+ etcd + kube-controller-manager), built by k8s-bin.sh.
import { defineConformance } from "../conformance/index.ts";
import { realClusterBinDir, startRealCluster } from "../support/real_cluster.ts";

const binDir = await realClusterBinDir();
// Aggregator routing off (kube-apiserver's default): a service webhook's Service then resolves as the ClusterIP
// resolver does, so an ExternalName Service reaches the test's webhook on localhost (with routing on, the endpoint
// resolver refuses ExternalName: `unsupported service type "ExternalName"`); as the farm test does for APIServices.
defineConformance(
  "real",
  () => startRealCluster({ binDir: binDir!, apiserverArgs: ["--enable-aggregator-routing=false"] }),
  !binDir,
);
