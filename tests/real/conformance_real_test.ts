// The conformance suite against a real kube-apiserver (+ etcd + kube-controller-manager), built by k8s-bin.sh.
// The server runs with ShardedListAndWatch (KEP-5866, alpha) on; the gate-off cases reach a second kube-apiserver
// started on the same etcd with the gate off (one more process for ~15 s of start-up, no second build).
import { defineConformance } from "../conformance/index.ts";
import { realClusterBinDir, startRealCluster } from "../support/real_cluster.ts";

const binDir = await realClusterBinDir();
defineConformance("real", async () => {
  const cluster = await startRealCluster({ binDir, apiserverArgs: ["--feature-gates=ShardedListAndWatch=true"] });
  let off: Promise<string> | undefined;
  return {
    kubeconfigPath: cluster.kubeconfigPath,
    shardingOff: () => off ??= cluster.startExtraApiServer(["--feature-gates=ShardedListAndWatch=false"]),
    stop: () => cluster.stop(),
  };
}, !binDir);
