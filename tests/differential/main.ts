/**
 * `deno run -A tests/differential/main.ts [out.json]`: runs the differential battery (tests/differential/) against
 * the fake API server and kube-apiserver v1.37.2 (binaries from scripts/k8s-bin.sh), prints the shares and writes the
 * full result (every differing request with both normalised answers) as JSON (default differential.json).
 * @module
 */
import { realControlPlaneBinDir } from "../../testing/envtest/real_control_plane.ts";
import { runDifferential } from "./differential.ts";
import { formatSummary } from "./run.ts";

const binDir = await realControlPlaneBinDir();
if (!binDir) {
  console.error("no kube-apiserver binaries: run scripts/k8s-bin.sh (or set KUBEOP_K8S_BIN)");
  Deno.exit(2);
}
const out = Deno.args[0] ?? "differential.json";
const result = await runDifferential(binDir);
await Deno.writeTextFile(out, JSON.stringify(result, null, 2) + "\n");
console.log(formatSummary(result));
console.log(`${result.differing.length} differing requests written to ${out}`);
