/**
 * Leader safety with three real `kubeop run --leader-elect` processes (tests/faults/leader_processes.ts): 40 rounds
 * of SIGKILL, SIGSTOP-past-the-renew-deadline on the leader and API server outages past the renew deadline, with and
 * without state loss; no write may reach the server while the Lease names another replica, no two reconciles of one
 * key may overlap, and after every outage the cluster reaches the desired state. `deno task faults -- --full` runs
 * 1 000 rounds.
 */
import assert from "node:assert/strict";
import { LEADER_OBJECTS, leaderRow, runLeaderProcesses } from "./leader_processes.ts";

Deno.test("leader safety, real processes: 40 rounds of SIGKILL / SIGSTOP+SIGCONT / outage with and without state loss — no write while not leader, no exit, no loss", async () => {
  const r = await runLeaderProcesses({ rounds: 40, seed: 7 });
  const out = new URL("../../.cache/faults.jsonl", import.meta.url).pathname;
  await Deno.mkdir(out.slice(0, out.lastIndexOf("/")), { recursive: true });
  const row = leaderRow(r, { target: "fake", objects: LEADER_OBJECTS });
  await Deno.writeTextFile(out, JSON.stringify(row) + "\n", { append: true });
  assert.deepEqual(r.violations, []);
  assert.equal(r.writesWhileNotLeader, 0);
  assert.equal(r.maxConcurrentLeaders, 1);
  assert.ok(r.stuckRounds <= 4, `${r.stuckRounds} rounds found no leader within 60 s`);
  // The run must have exercised what it claims to.
  assert.ok(r.sigstops >= 8 && r.sigkills >= 8 && r.outages >= 2 && r.stateLossOutages >= 2, JSON.stringify(r));
  // After every outage (the state lost or kept) the cluster reached the desired state again; no reconcile of a key
  // overlapped another of the same key, in one replica across its terms or across replicas.
  assert.equal(r.lost, 0, JSON.stringify(row));
  assert.equal(r.orphans, 0, JSON.stringify(row));
  assert.notEqual(r.recoverySeconds, null, "a state-loss outage never recovered");
  assert.notEqual(r.outageRecoverySeconds, null, "an outage never recovered");
  assert.ok(r.overlaps.reconciles >= 100, `only ${r.overlaps.reconciles} reconciles in the replicas' trace logs`);
  assert.deepEqual([r.overlaps.sameReplica, r.overlaps.crossReplica], [0, 0], r.overlaps.examples.join("\n"));
  // A lost Lease (SIGSTOP past the renew deadline, an API server outage) is a graceful transition: nobody exits.
  assert.equal(r.exitedOnTheirOwn, 0, r.exitLogs.join("\n---\n"));
  assert.ok(r.leaderChanges >= 15, `only ${r.leaderChanges} leader changes`);
  assert.ok(r.writes >= 200, `only ${r.writes} writes`);
});
