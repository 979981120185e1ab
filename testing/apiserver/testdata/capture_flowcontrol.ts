/**
 * Records the API Priority and Fairness objects a real kube-apiserver creates at start-up (its
 * `priority-and-fairness-config-producer` post-start hook: the mandatory and suggested PriorityLevelConfigurations
 * and FlowSchemas) into testing/apiserver/testdata/real/flowcontrol_bootstrap.json, as name, annotations and spec.
 * The fake creates the same objects at start (flowcontrol_bootstrap.ts).
 *
 *   deno run --allow-all testing/apiserver/testdata/capture_flowcontrol.ts     # starts a real control plane (k8s-bin.sh)
 * @module
 */
import { startRealControlPlane } from "../../envtest/real_control_plane.ts";
import { eventually } from "../../eventually.ts";

// deno-lint-ignore no-explicit-any
type Any = any;

const out = new URL("./real/flowcontrol_bootstrap.json", import.meta.url).pathname;
const plane = await startRealControlPlane();
try {
  const token = plane.kubeconfig.match(/token: (\S+)/)![1];
  const client = Deno.createHttpClient({ caCerts: [await Deno.readTextFile(`${plane.dir}/ca.crt`)] });
  const get = async (path: string) => {
    const res = await fetch(`${plane.url}${path}`, { headers: { authorization: `Bearer ${token}` }, client });
    if (!res.ok) throw new Error(`GET ${path}: ${res.status} ${await res.text()}`);
    return await res.json();
  };
  const base = "/apis/flowcontrol.apiserver.k8s.io/v1";
  // The producer writes the objects, the consumer then their status: done when every FlowSchema has its condition.
  const flowSchemas = await eventually("every FlowSchema has a Dangling condition", async () => {
    const list = await get(`${base}/flowschemas`);
    const done = list.items.length > 0 && list.items.every((fs: Any) => fs.status?.conditions?.length > 0);
    return done ? list.items : undefined;
  }, { timeoutMs: 60_000, intervalMs: 200 });
  const levels = (await get(`${base}/prioritylevelconfigurations`)).items;
  const strip = (o: Any) => ({
    metadata: { name: o.metadata.name, annotations: o.metadata.annotations },
    spec: o.spec,
  });
  const version = (await get("/version")).gitVersion;
  const recording = {
    serverVersion: version,
    priorityLevelConfigurations: levels.map(strip),
    flowSchemas: flowSchemas.map(strip),
  };
  client.close();
  await Deno.writeTextFile(out, JSON.stringify(recording) + "\n");
  await new Deno.Command(Deno.execPath(), { args: ["fmt", out] }).output();
  console.log(`wrote ${levels.length} priority levels and ${flowSchemas.length} flow schemas to ${out}`);
} finally {
  await plane.stop();
}
