// The conformance suite against a real kube-apiserver (+ etcd + kube-controller-manager), built by k8s-bin.sh.
import { defineConformance } from "../conformance/index.ts";
import { realClusterBinDir, startRealCluster } from "../support/real_cluster.ts";

const binDir = await realClusterBinDir();
defineConformance("real", () => startRealCluster({ binDir }), !binDir);
