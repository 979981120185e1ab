/**
 * Leader safety with three real `kubeop run --leader-elect` processes (tests/faults/leader_processes.ts): 40 rounds
 * of SIGKILL, SIGSTOP-past-the-renew-deadline on the leader and API server outages past the renew deadline; no write may reach the server while the Lease names
 * another replica. `deno task faults -- --full` runs 1 000 rounds.
 */
import assert from "node:assert/strict";
import { leaderRow, runLeaderProcesses } from "./leader_processes.ts";

Deno.test("leader safety, real processes: 40 rounds of SIGKILL / SIGSTOP+SIGCONT / outage — no write while not leader, no exit", async () => {
  const r = await runLeaderProcesses({ rounds: 40, seed: 7 });
  const out = new URL("../../.cache/faults.jsonl", import.meta.url).pathname;
  await Deno.mkdir(out.slice(0, out.lastIndexOf("/")), { recursive: true });
  await Deno.writeTextFile(out, JSON.stringify(leaderRow(r)) + "\n", { append: true });
  assert.deepEqual(r.violations, []);
  assert.equal(r.writesWhileNotLeader, 0);
  assert.equal(r.maxConcurrentLeaders, 1);
  assert.ok(r.stuckRounds <= 4, `${r.stuckRounds} rounds found no leader within 60 s`);
  // The run must have exercised what it claims to.
  assert.ok(r.sigstops >= 8 && r.sigkills >= 8 && r.outages >= 3, JSON.stringify(r));
  // A lost Lease (SIGSTOP past the renew deadline, an API server outage) is a graceful transition: nobody exits.
  assert.equal(r.exitedOnTheirOwn, 0, JSON.stringify(r));
  assert.ok(r.leaderChanges >= 15, `only ${r.leaderChanges} leader changes`);
  assert.ok(r.writes >= 200, `only ${r.writes} writes`);
});
