/**
 * Leader safety with three real `kubeop run --leader-elect` processes against kube-apiserver v1.37 + etcd
 * (tests/faults/leader_processes_real.ts): SIGKILLs, SIGSTOPs past the renew deadline and control-plane outages past
 * the renew deadline, with the state kept and with etcd wiped (the harness re-applies); the audit log replayed by the
 * leader checker shows no write while the Lease named another replica, the replicas' trace logs no two reconciles of
 * one key at once, no replica exits, and the cluster reaches the desired state after every outage.
 */
import assert from "node:assert/strict";
import { realClusterBinDir } from "../support/real_cluster.ts";
import { REAL_LEADER_OBJECTS, runLeaderProcessesReal } from "../faults/leader_processes_real.ts";
import { leaderRow } from "../faults/leader_rounds.ts";

const binDir = await realClusterBinDir();

Deno.test({
  name: "real cluster: leader rounds with outages with and without state loss — no write while not leader, no loss",
  ignore: !binDir,
  sanitizeResources: false,
  sanitizeOps: false,
  async fn() {
    const r = await runLeaderProcessesReal({ log: (l) => console.log(l) });
    const row = leaderRow(r, { target: "real", objects: REAL_LEADER_OBJECTS });
    console.log(JSON.stringify({ ...row, detail: r }));
    const out = new URL("../../.cache/faults.jsonl", import.meta.url).pathname;
    await Deno.mkdir(out.slice(0, out.lastIndexOf("/")), { recursive: true });
    await Deno.writeTextFile(out, JSON.stringify(row) + "\n", { append: true });
    assert.deepEqual(r.violations, []);
    assert.equal(r.writesWhileNotLeader, 0);
    assert.equal(r.maxConcurrentLeaders, 1);
    assert.ok(r.stuckRounds <= 1, `${r.stuckRounds} rounds found no live leader within 60 s`);
    assert.equal(
      r.exitedOnTheirOwn,
      0,
      `a lost Lease is a graceful transition: nobody exits\n${r.exitLogs.join("\n---\n")}`,
    );
    assert.equal(r.lost, 0, JSON.stringify(row));
    assert.equal(r.orphans, 0, JSON.stringify(row));
    assert.notEqual(r.recoverySeconds, null, "a state-loss outage never recovered");
    assert.notEqual(r.outageRecoverySeconds, null, "an outage never recovered");
    assert.deepEqual([r.overlaps.sameReplica, r.overlaps.crossReplica], [0, 0], r.overlaps.examples.join("\n"));
    // The run must have exercised what it claims to.
    assert.ok(
      r.stateLossOutages >= 2 && r.outages >= 1 && r.sigstops + (r.stopsSkippedBusy ?? 0) >= 2 && r.sigkills >= 3,
      JSON.stringify(r),
    );
    assert.ok(r.leaderChanges >= 4, `only ${r.leaderChanges} leader changes`);
    assert.ok(r.writes >= 40, `only ${r.writes} writes`);
    assert.ok(r.overlaps.reconciles >= 40, `only ${r.overlaps.reconciles} reconciles in the trace logs`);
  },
});
