// Real-cluster tier: KEP-5958's `Accept: ...;drop=metadata.managedFields` against a real kube-apiserver. v1.37 has no
// ManagedFieldsOptOut gate and ignores the Accept parameter (negotiate.go collects unknown parameters as
// `Unrecognized`): lists and watches answer 200 with whole objects, and the informer's transform drops managedFields
// itself. A server that knows the gate (v1.38+) is started with it on and must leave them out.
import assert from "node:assert/strict";
import { Informer } from "../../runtime/cache/cache.ts";
import { KubeClient } from "../../runtime/client/client.ts";
import { loadKubeconfigFile } from "../../runtime/client/kubeconfig.ts";
import { CoreTypes, type KubeObject } from "../../runtime/types.ts";
import { eventually } from "../../testing/eventually.ts";
import { realClusterBinDir, startRealCluster } from "../support/real_cluster.ts";

const binDir = await realClusterBinDir();

/** Whether this kube-apiserver binary knows the ManagedFieldsOptOut gate (its --help lists every gate). */
async function knowsGate(dir: string): Promise<boolean> {
  const out = await new Deno.Command(`${dir}/kube-apiserver`, { args: ["--help"], stdout: "piped", stderr: "piped" })
    .output();
  return new TextDecoder().decode(out.stdout).includes("ManagedFieldsOptOut=");
}

const hasManagedFields = (o: KubeObject) => (o.metadata.managedFields?.length ?? 0) > 0;
const quiet = { debug() {}, info() {}, warn() {} };

Deno.test({
  name: "real cluster: lists and watches asking drop=metadata.managedFields succeed; dropped where the gate exists",
  ignore: !binDir,
  sanitizeResources: false,
  sanitizeOps: false,
  async fn() {
    const served = await knowsGate(binDir!);
    const cluster = await startRealCluster({
      binDir,
      apiserverArgs: served ? ["--feature-gates=ManagedFieldsOptOut=true"] : [],
    });
    const client = new KubeClient({ config: await loadKubeconfigFile(cluster.kubeconfigPath) });
    const ctrl = new AbortController();
    try {
      await client.create(CoreTypes.ConfigMap, { metadata: { name: "a", namespace: "default" }, data: { k: "a" } });
      const list = await client.list(CoreTypes.ConfigMap, { namespace: "default", dropManagedFields: true });
      const a = list.items.find((o) => o.metadata.name === "a");
      assert.ok(a, "the list answered (no 406)");
      assert.equal(hasManagedFields(a), !served, served ? "the gate drops them" : "v1.37 ignores the parameter");
      // The informer asks on its list/WatchList and watch, and caches the objects without managedFields either way.
      const informer = new Informer({ client, resource: CoreTypes.ConfigMap, namespace: "default", logger: quiet });
      const running = informer.start(ctrl.signal);
      await informer.waitForSync();
      await client.create(CoreTypes.ConfigMap, { metadata: { name: "b", namespace: "default" }, data: { k: "b" } });
      const b = await eventually("the watch delivers b", () => informer.store.get("default/b"));
      assert.equal(hasManagedFields(b), false);
      ctrl.abort();
      await running;
    } finally {
      ctrl.abort();
      client.close();
      await cluster.stop();
    }
  },
});
