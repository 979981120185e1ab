/**
 * The quick fault matrix on target `real` (tests/faults/real_target.ts): one kube-apiserver + etcd for the run, the
 * operator in front of it through the TCP and HTTP fault proxies, a no-fault baseline, then one step per fault. Rows
 * go to .cache/faults.jsonl (a failed row's operator log and requests to .cache/faults-evidence/, named in the row);
 * each must show lost = 0, no orphan, duplicateConcurrent = 0, a recovery, and API calls within budget. `watch-stall`
 * and `dead-connection` recover within the watch's dead-connection deadline (≤ 27 s, docs/http_timeouts.md).
 */
import assert from "node:assert/strict";
import { configureLogging } from "../../runtime/observe/log.ts";
import { RowEvidence } from "../faults/evidence.ts";
import { FAULT_IDS, type MatrixOptions, QUICK, rowFailures, type ScenarioResult } from "../faults/matrix.ts";
import { runRealScenario, startRealTarget } from "../faults/real_target.ts";
import { realClusterBinDir } from "../support/real_cluster.ts";

const binDir = await realClusterBinDir();
const OUT = new URL("../../.cache/faults.jsonl", import.meta.url).pathname;
const EVIDENCE = new URL("../../.cache/faults-evidence", import.meta.url).pathname;

async function record(row: ScenarioResult): Promise<void> {
  await Deno.mkdir(OUT.slice(0, OUT.lastIndexOf("/")), { recursive: true });
  await Deno.writeTextFile(OUT, JSON.stringify(row) + "\n", { append: true });
}

Deno.test({
  name: "fault matrix (quick, real): each fault recovers to the desired state with no loss and no duplicate reconcile",
  ignore: !binDir,
  sanitizeResources: false, // kube-apiserver's child processes and their pipes outlive single steps
  sanitizeOps: false,
  async fn(t) {
    // The operator's debug log goes to memory; a failed row keeps it (and the requests) and names the directory.
    const evidence = new RowEvidence(EVIDENCE);
    await configureLogging({ level: "debug", format: "text", write: evidence.log.push });
    const opts: MatrixOptions = { ...QUICK, evidence };
    const target = await startRealTarget({ binDir });
    try {
      const baseline = await runRealScenario(target, "none", opts);
      await record(baseline);
      assert.deepEqual(rowFailures(baseline), [], JSON.stringify(baseline));
      for (const fault of FAULT_IDS) {
        await t.step({
          name: fault,
          fn: async () => {
            const row = await runRealScenario(target, fault, opts, baseline);
            await record(row);
            assert.deepEqual(rowFailures(row), [], JSON.stringify(row));
          },
        });
      }
    } finally {
      await target.stop();
    }
  },
});
