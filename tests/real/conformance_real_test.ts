// The conformance suite against a real kube-apiserver (+ etcd + kube-controller-manager), built by k8s-bin.sh.
// The server runs with ShardedListAndWatch (KEP-5866, alpha) on; the gate-off cases reach a second kube-apiserver
// started on the same etcd with the gate off (one more process for ~15 s of start-up, no second build).
import { defineConformance } from "../conformance/index.ts";
import { realClusterBinDir, startRealCluster } from "../support/real_cluster.ts";

const binDir = await realClusterBinDir();
// ShardedListAndWatch on (the sharded-list-watch topic; its gate-off case starts a second kube-apiserver on the same
// etcd). Aggregator routing off (kube-apiserver's default): a service webhook's Service then resolves as the ClusterIP
// resolver does, so an ExternalName Service reaches the test's webhook on localhost (with routing on, the endpoint
// resolver refuses ExternalName: `unsupported service type "ExternalName"`); as the farm test does for APIServices.
defineConformance("real", async () => {
  const cluster = await startRealCluster({
    binDir: binDir!,
    apiserverArgs: ["--feature-gates=ShardedListAndWatch=true", "--enable-aggregator-routing=false"],
  });
  let off: Promise<string> | undefined;
  return {
    kubeconfigPath: cluster.kubeconfigPath,
    shardingOff: () =>
      off ??= cluster.startExtraApiServer([
        "--feature-gates=ShardedListAndWatch=false",
        "--enable-aggregator-routing=false",
      ]),
    stop: () => cluster.stop(),
  };
}, !binDir);
