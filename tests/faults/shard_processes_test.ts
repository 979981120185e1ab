/**
 * Shard safety with three real `kubeop run --shards auto` processes (tests/faults/shard_processes.ts): rounds of
 * SIGKILL, SIGSTOP past the renew deadline and SIGTERM on a random replica, replaced after it exits; no write for a
 * MultiSecret may reach the server while its uid's bucket Lease names another replica.
 */
import assert from "node:assert/strict";
import { runShardProcesses, shardRow } from "./shard_processes.ts";

Deno.test("shard safety, real processes: 15 rounds of SIGKILL / SIGSTOP+SIGCONT / SIGTERM and adds — no overlap", async () => {
  const r = await runShardProcesses({ rounds: 15, seed: 15, log: (l) => console.log(l) });
  const out = new URL("../../.cache/faults.jsonl", import.meta.url).pathname;
  await Deno.mkdir(out.slice(0, out.lastIndexOf("/")), { recursive: true });
  await Deno.writeTextFile(out, JSON.stringify(shardRow(r)) + "\n", { append: true });
  console.log(JSON.stringify({ ...r, violations: r.violations }));
  assert.deepEqual(r.violations, []);
  assert.equal(r.writesWhileNotHolder, 0);
  assert.equal(r.overlappingUids, 0);
  assert.equal(r.unconverged, 0, "every MultiSecret is reconciled by its bucket's owner once the faults stop");
  assert.ok(r.stuckRounds <= 2, `${r.stuckRounds} rounds found buckets without a live holder for 60 s`);
  // The run must have exercised what it claims to: the work was shared, and moved.
  assert.ok(r.maxHolders >= 2, `at most ${r.maxHolders} replicas held buckets at once`);
  assert.ok(r.writers >= 3, `only ${r.writers} replicas wrote`);
  assert.ok(r.bucketMoves >= 20, `only ${r.bucketMoves} bucket moves`);
  assert.ok(r.writes >= 100, `only ${r.writes} writes`);
});
