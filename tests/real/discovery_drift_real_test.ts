/**
 * The recorded discovery the fake serves (testing/apiserver/testdata/real/discovery.json) is still what kube-apiserver
 * answers: the real tier's control plane, started as testdata/capture_discovery.ts starts it, gives the same legacy
 * APIResourceLists and aggregated discovery v2 documents. A kube-apiserver upgrade that changes them fails here;
 * re-run the capture script.
 */
import assert from "node:assert/strict";
import { captureDiscovery, DISCOVERY_RECORDING } from "../../testing/apiserver/discovery_recorded.ts";
import { startRealControlPlane } from "../../testing/envtest/real_control_plane.ts";
import { realClusterBinDir } from "../support/real_cluster.ts";

const binDir = await realClusterBinDir();

Deno.test({
  name: "discovery drift: kube-apiserver answers the discovery recorded for the fake",
  ignore: !binDir,
  sanitizeResources: false, // kube-apiserver's child processes and their pipes
  sanitizeOps: false,
  async fn() {
    const plane = await startRealControlPlane({ binDir });
    const token = plane.kubeconfig.match(/token: (\S+)/)![1];
    const client = Deno.createHttpClient({ caCerts: [await Deno.readTextFile(`${plane.dir}/ca.crt`)] });
    try {
      const get = async (path: string, accept = "application/json") => {
        const res = await fetch(`${plane.url}${path}`, {
          headers: { authorization: `Bearer ${token}`, accept },
          client,
        });
        assert.equal(res.status, 200, `GET ${path}`);
        return await res.json();
      };
      const live = await captureDiscovery(get);
      assert.equal(live.serverVersion, DISCOVERY_RECORDING.serverVersion);
      assert.deepEqual(Object.keys(live.legacy).sort(), Object.keys(DISCOVERY_RECORDING.legacy).sort());
      for (const [gv, list] of Object.entries(DISCOVERY_RECORDING.legacy)) {
        assert.deepEqual(live.legacy[gv], list, `legacy discovery of ${gv}`);
      }
      assert.deepEqual(live.v2, DISCOVERY_RECORDING.v2, "aggregated discovery v2 of /api and /apis");
    } finally {
      client.close();
      await plane.stop();
    }
  },
});
