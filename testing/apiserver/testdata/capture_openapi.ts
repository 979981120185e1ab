/**
 * Records the component schemas of the core/v1 kinds the fake serves with real schemas (and everything they
 * reference) from a real kube-apiserver's `/openapi/v3/api/v1`, into testdata/openapi/core_v1_schemas.json. The fake
 * serves them in its own OpenAPI v3 document, so `kubectl explain configmap` shows data, binaryData and immutable.
 * Pod and the volume kinds are left out to keep the file small (their closure alone is ~300 KB).
 *
 *   deno run --allow-all testing/apiserver/testdata/capture_openapi.ts            # starts a real control plane (k8s-bin.sh)
 * @module
 */
import { startRealControlPlane } from "../../envtest/real_control_plane.ts";
import { CORE_V1_RECORDED_KINDS } from "../openapi_recorded.ts";

const out = new URL("./openapi/core_v1_schemas.json", import.meta.url).pathname;
const plane = await startRealControlPlane();
try {
  const token = plane.kubeconfig.match(/token: (\S+)/)![1];
  const client = Deno.createHttpClient({ caCerts: [await Deno.readTextFile(`${plane.dir}/ca.crt`)] });
  const res = await fetch(`${plane.url}/openapi/v3/api/v1`, { headers: { authorization: `Bearer ${token}` }, client });
  const doc = await res.json() as { components: { schemas: Record<string, unknown> } };
  client.close();
  const all = doc.components.schemas;
  const keep = new Set<string>();
  const pending = CORE_V1_RECORDED_KINDS.map((k) => `io.k8s.api.core.v1.${k}`);
  while (pending.length > 0) {
    const name = pending.pop()!;
    if (keep.has(name)) continue;
    keep.add(name);
    JSON.stringify(all[name], (key, value) => {
      if (key === "$ref" && typeof value === "string") pending.push(value.split("/").pop()!);
      return value;
    });
  }
  const schemas = Object.fromEntries([...keep].sort().map((n) => [n, all[n]]));
  await Deno.writeTextFile(out, JSON.stringify(schemas) + "\n");
  await new Deno.Command(Deno.execPath(), { args: ["fmt", out] }).output();
  console.log(`wrote ${keep.size} schemas to ${out}`);
} finally {
  await plane.stop();
}
