/**
 * Shard safety with three real `kubeop run --shards auto` processes against a real kube-apiserver v1.37 with
 * ShardedListAndWatch on (tests/faults/shard_processes_real.ts): a SIGKILL, a SIGSTOP past the renew deadline, a
 * SIGTERM and the replacements (adds); the audit log replayed by the shard checker shows no write for a MultiSecret
 * while its bucket's Lease named another replica and no uid written by two replicas at once.
 */
import assert from "node:assert/strict";
import { realClusterBinDir } from "../support/real_cluster.ts";
import { runShardProcessesReal } from "../faults/shard_processes_real.ts";

const binDir = await realClusterBinDir();

Deno.test({
  name: "real cluster: three sharded replicas survive kills, a pause and adds with no overlapping writes",
  ignore: !binDir,
  sanitizeResources: false,
  sanitizeOps: false,
  async fn() {
    const r = await runShardProcessesReal({ log: (l) => console.log(l) });
    console.log(JSON.stringify(r));
    assert.deepEqual(r.violations, []);
    assert.equal(r.writesWhileNotHolder, 0);
    assert.equal(r.overlappingUids, 0);
    assert.equal(r.unconverged, 0, "every MultiSecret is reconciled by its bucket's owner once the faults stop");
    assert.ok(r.stuckRounds <= 1, `${r.stuckRounds} rounds found buckets without a live holder for 60 s`);
    // The run must have exercised what it claims to: the work was shared, and moved.
    assert.ok(r.maxHolders >= 2, `at most ${r.maxHolders} replicas held buckets at once`);
    assert.ok(r.writers >= 3, `only ${r.writers} replicas wrote`);
    assert.ok(r.bucketMoves >= 8, `only ${r.bucketMoves} bucket moves`);
    assert.ok(r.writes >= 30, `only ${r.writes} writes`);
    assert.ok(r.slicedReplicas >= 3, `only ${r.slicedReplicas} replicas sliced their primary informer`);
  },
});
