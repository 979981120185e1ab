/**
 * `deno task faults [-- --full] [--target fake|real|all] [--fault=ID,...] [--leader-rounds=N]`: runs the fault matrix
 * on target `fake` (default), `real` (kube-apiserver + etcd from the real tier's binaries, tests/faults/real_target.ts)
 * or both, the real-process leader safety rounds (40, or 1 000 with --full, or N; `--fault=leader` selects them alone)
 * and the shard model and real-process shard rounds (15, or 300 with --full; `--fault=shard`) — neither with `--target
 * real` unless selected by `--fault`; with `--target real|all` the leader rounds (tests/faults/leader_processes_real.ts:
 * eight rounds, outages with and without state loss among them) and the shard rounds
 * (tests/faults/shard_processes_real.ts) also run against kube-apiserver v1.37, each skipped with a note when its
 * binaries are absent — and appends one JSON line per scenario: quick runs to .cache/faults.jsonl, full runs (1 000
 * objects, longer holds) to tests/faults/results.jsonl, which docs/reliability.md's table is rendered from
 * (tests/faults/render.ts).
 * @module
 */
import { configureLogging } from "../../runtime/observe/log.ts";
import { RowEvidence } from "./evidence.ts";
import { runLeaderModel } from "./leader_model.ts";
import { LEADER_OBJECTS, leaderRow, runLeaderProcesses } from "./leader_processes.ts";
import { REAL_LEADER_OBJECTS, runLeaderProcessesReal } from "./leader_processes_real.ts";
import type { LeaderProcessesResult } from "./leader_rounds.ts";
import { runFakeMatrix } from "./fake_target.ts";
import { FAULT_IDS, type FaultId, FULL, QUICK, rowFailures, type ScenarioResult } from "./matrix.ts";
import { runRealMatrix } from "./real_target.ts";
import { runShardModel } from "./shard_model.ts";
import { runShardProcesses, shardRow } from "./shard_processes.ts";
import { REAL_SHARD_OBJECTS, runShardProcessesReal } from "./shard_processes_real.ts";
import { realClusterBinDir } from "../support/real_cluster.ts";

const args = Deno.args;
const full = args.includes("--full");
const targetArg = args.find((a) => a.startsWith("--target="))?.slice("--target=".length) ??
  (args.includes("--target") ? args[args.indexOf("--target") + 1] : "fake");
if (!["fake", "real", "all"].includes(targetArg)) {
  console.error(`unknown target ${targetArg}; known: fake, real, all`);
  Deno.exit(2);
}
const only = args.find((a) => a.startsWith("--fault="))?.slice("--fault=".length).split(",");
const leaderRounds = Number(args.find((a) => a.startsWith("--leader-rounds="))?.slice("--leader-rounds=".length)) ||
  (full ? 1_000 : 40);
const withLeader = (!only && targetArg !== "real") || (only?.includes("leader") ?? false);
const withShards = (!only && targetArg !== "real") || (only?.includes("shard") ?? false);
const faults = (only?.filter((f) => f !== "leader" && f !== "shard") ?? FAULT_IDS) as FaultId[];
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
// The in-process operator's debug log goes to memory; a failed row keeps it (and the requests) and names where.
const evidence = new RowEvidence(new URL("../../.cache/faults-evidence", import.meta.url).pathname);
await configureLogging({ level: "debug", format: "text", write: evidence.log.push });
let failed = 0;
const onRow = async (row: ScenarioResult) => {
  await Deno.writeTextFile(out, JSON.stringify(row) + "\n", { append: true });
  const failures = rowFailures(row);
  if (failures.length > 0) {
    failed++;
    console.error(`FAILED ${row.fault} (${row.target}): ${failures.join(", ")}; evidence in ${row.evidence}`);
  }
};
const sizes = { ...(full ? FULL : QUICK), log: (l: string) => console.log(l), evidence };
if (faults.length > 0 && targetArg !== "real") await runFakeMatrix(faults, sizes, onRow);
if (faults.length > 0 && targetArg !== "fake") await runRealMatrix(faults, sizes, onRow);
if (withLeader && targetArg !== "real") {
  const model = await runLeaderModel({ seed: 11, rounds: full ? 100_000 : 10_000 });
  const modelRow = {
    ...leaderRow({
      ...model,
      sigkills: model.crashes,
      sigstops: model.pauses,
      outages: 0,
      stateLossOutages: 0,
      exitedOnTheirOwn: 0,
      exitLogs: [],
      spawned: 0,
      stuckRounds: 0,
      seconds: 0,
      lost: 0,
      orphans: 0,
      recoverySeconds: null,
      outageRecoverySeconds: null,
      overlaps: { reconciles: 0, sameReplica: 0, crossReplica: 0, examples: [] },
    }, { target: "fake", objects: 0 }),
    fault: "leader-model-pause-crash-clock",
    target: "model",
    lost: null,
    orphans: null,
    duplicateConcurrent: null,
  };
  console.log(JSON.stringify({ ...modelRow, detail: model }));
  await Deno.writeTextFile(out, JSON.stringify(modelRow) + "\n", { append: true });
  if (model.writesWhileNotLeader > 0) failed++;
  const r = await runLeaderProcesses({ rounds: leaderRounds, seed: 7, log: (l) => console.log(l) });
  await leaderResult(r, { target: "fake", objects: LEADER_OBJECTS });
}
if (withLeader && targetArg !== "fake") {
  if (!(await realClusterBinDir())) {
    console.log("leader rounds on target real skipped: no kube-apiserver binaries (KUBEOP_K8S_BIN, ~/.cache/kubeop)");
  } else {
    const real = await runLeaderProcessesReal({ log: (l) => console.log(l) });
    await leaderResult(real, { target: "real", objects: REAL_LEADER_OBJECTS });
  }
}
/** Appends a leader process run's row; counts it failed when a write came while not leader, a round found no leader,
 * a replica exited on its own, an outage did not recover or two reconciles of one key overlapped. */
async function leaderResult(r: LeaderProcessesResult, where: { target: "fake" | "real"; objects: number }) {
  const row = leaderRow(r, where);
  console.log(JSON.stringify({ ...row, detail: r }));
  await Deno.writeTextFile(out, JSON.stringify(row) + "\n", { append: true });
  const problems = [
    ...r.violations,
    r.stuckRounds > 0 ? `${r.stuckRounds} stuck rounds` : "",
    r.exitedOnTheirOwn > 0 ? `${r.exitedOnTheirOwn} replicas exited on their own:\n${r.exitLogs.join("\n---\n")}` : "",
    r.lost > 0 || r.orphans > 0 ? `lost ${r.lost}, orphans ${r.orphans} after an outage` : "",
    r.recoverySeconds === null || r.outageRecoverySeconds === null ? "an outage never recovered" : "",
    ...r.overlaps.examples,
  ].filter(Boolean);
  if (r.writesWhileNotLeader > 0 || problems.length > 0) {
    failed++;
    console.error(`FAILED leader safety (${where.target}): ${problems.join("; ")}`);
  }
}

if (withShards) {
  const model = await runShardModel({ seed: 15, steps: full ? 100_000 : 10_000 });
  const modelRow = {
    ...shardRow({ ...model, rounds: model.steps }),
    fault: "shard-model-join-leave-crash-pause",
    target: "model",
    objects: 0,
  };
  console.log(JSON.stringify({ ...modelRow, detail: { ...model, violations: model.violations.length } }));
  await Deno.writeTextFile(out, JSON.stringify(modelRow) + "\n", { append: true });
  if (model.writesWhileNotHolder > 0 || model.overlappingUids > 0 || model.unownedAtEnd > 0) failed++;
  const r = await runShardProcesses({ rounds: full ? 300 : 15, seed: 15, log: (l) => console.log(l) });
  const row = shardRow(r);
  console.log(JSON.stringify({ ...row, detail: r }));
  await Deno.writeTextFile(out, JSON.stringify(row) + "\n", { append: true });
  if (r.writesWhileNotHolder > 0 || r.overlappingUids > 0 || r.unconverged > 0 || r.stuckRounds > 0) {
    failed++;
    console.error(`FAILED shard safety: ${r.violations.join("; ") || `${r.stuckRounds} stuck rounds`}`);
  }
  if (targetArg !== "fake" && !(await realClusterBinDir())) {
    console.log("shard rounds on target real skipped: no kube-apiserver binaries (KUBEOP_K8S_BIN, ~/.cache/kubeop)");
  } else if (targetArg !== "fake") {
    const real = await runShardProcessesReal({ log: (l) => console.log(l) });
    const rounds = Object.values(real.faults).reduce((a, b) => a + b, 0);
    const realRow = shardRow({ ...real, rounds }, { target: "real", objects: REAL_SHARD_OBJECTS });
    console.log(JSON.stringify({ ...realRow, detail: real }));
    await Deno.writeTextFile(out, JSON.stringify(realRow) + "\n", { append: true });
    if (real.writesWhileNotHolder > 0 || real.overlappingUids > 0 || real.unconverged > 0 || real.stuckRounds > 1) {
      failed++;
      console.error(`FAILED shard safety (real): ${real.violations.join("; ") || `${real.stuckRounds} stuck rounds`}`);
    }
  }
}
console.log(`${failed === 0 ? "ok" : `${failed} scenario(s) failed`}: rows appended to ${out}`);
Deno.exit(failed === 0 ? 0 : 1);
