/**
 * Records a real kube-apiserver's discovery of its built-in group-versions into testdata/real/discovery.json: the
 * legacy APIResourceList of every group-version (`/api/v1`, `/apis/<group>/<version>`), and the aggregated discovery
 * v2 documents of `/api` and `/apis`. The fake's discovery serves these entries for the built-ins it serves
 * (discovery_recorded.ts), so verbs, short names, categories, subresources and their kinds are kube's, not a hand-kept
 * table; the real tier checks the recording still matches (tests/real/discovery_drift_real_test.ts).
 *
 *   deno run --allow-all testing/apiserver/testdata/capture_discovery.ts     # starts a real control plane (k8s-bin.sh)
 * @module
 */
import { startRealControlPlane } from "../../envtest/real_control_plane.ts";
import { captureDiscovery } from "../discovery_recorded.ts";

const out = new URL("./real/discovery.json", import.meta.url).pathname;
const plane = await startRealControlPlane();
try {
  const token = plane.kubeconfig.match(/token: (\S+)/)![1];
  const client = Deno.createHttpClient({ caCerts: [await Deno.readTextFile(`${plane.dir}/ca.crt`)] });
  const get = async (path: string, accept = "application/json") => {
    const res = await fetch(`${plane.url}${path}`, { headers: { authorization: `Bearer ${token}`, accept }, client });
    if (!res.ok) throw new Error(`GET ${path}: ${res.status} ${await res.text()}`);
    return await res.json();
  };
  const recording = await captureDiscovery(get);
  client.close();
  await Deno.writeTextFile(out, JSON.stringify(recording) + "\n");
  await new Deno.Command(Deno.execPath(), { args: ["fmt", out] }).output();
  console.log(`wrote ${Object.keys(recording.legacy).length} group-versions to ${out}`);
} finally {
  await plane.stop();
}
