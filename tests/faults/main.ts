/**
 * `deno task faults [-- --full] [--fault ID,...]`: runs the fault matrix on target `fake` and appends one JSON line
 * per scenario — quick runs to .cache/faults.jsonl, full runs (1 000 objects, longer holds) to
 * tests/faults/results.jsonl, which README's Reliability table is rendered from (tests/faults/render.ts).
 * @module
 */
import { FAULT_IDS, type FaultId, FULL, QUICK, rowFailures, runFakeMatrix } from "./matrix.ts";

const args = Deno.args;
const full = args.includes("--full");
const only = args.find((a) => a.startsWith("--fault="))?.slice("--fault=".length).split(",");
const faults = (only ?? FAULT_IDS) as FaultId[];
for (const f of faults) {
  if (!FAULT_IDS.includes(f)) {
    console.error(`unknown fault ${f}; known: ${FAULT_IDS.join(", ")}`);
    Deno.exit(2);
  }
}
const out = full
  ? new URL("./results.jsonl", import.meta.url).pathname
  : new URL("../../.cache/faults.jsonl", import.meta.url).pathname;
await Deno.mkdir(out.slice(0, out.lastIndexOf("/")), { recursive: true });
let failed = 0;
await runFakeMatrix(faults, { ...(full ? FULL : QUICK), log: (l) => console.log(l) }, async (row) => {
  await Deno.writeTextFile(out, JSON.stringify(row) + "\n", { append: true });
  const failures = rowFailures(row);
  if (failures.length > 0) {
    failed++;
    console.error(`FAILED ${row.fault}: ${failures.join(", ")}`);
  }
});
console.log(`${failed === 0 ? "ok" : `${failed} scenario(s) failed`}: rows appended to ${out}`);
Deno.exit(failed === 0 ? 0 : 1);
