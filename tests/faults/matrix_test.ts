/**
 * The quick fault matrix in the default tier (target `fake`, 200 MultiSecrets): every fault but `watch-stall`, whose
 * recovery is bounded below by the client's 90 s read-idle floor (it runs in `deno task faults`). Rows go to
 * .cache/faults.jsonl; each must show lost = 0, no orphan, duplicateConcurrent = 0, a recovery, and API calls within
 * budget.
 */
import assert from "node:assert/strict";
import { FAULT_IDS, QUICK, rowFailures, runFakeMatrix, type ScenarioResult } from "./matrix.ts";

Deno.test("fault matrix (quick, fake): each fault recovers to the desired state with no loss and no duplicate reconcile", async () => {
  const out = new URL("../../.cache/faults.jsonl", import.meta.url).pathname;
  await Deno.mkdir(out.slice(0, out.lastIndexOf("/")), { recursive: true });
  const failures: string[] = [];
  const rows: ScenarioResult[] = await runFakeMatrix(
    FAULT_IDS.filter((f) => f !== "watch-stall"),
    QUICK,
    async (row) => {
      await Deno.writeTextFile(out, JSON.stringify(row) + "\n", { append: true });
      const failed = rowFailures(row);
      if (failed.length > 0) failures.push(`${row.fault}: ${failed.join(", ")}`);
    },
  );
  assert.equal(rows.length, FAULT_IDS.length);
  assert.deepEqual(failures, []);
});
