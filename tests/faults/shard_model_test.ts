/**
 * Shard safety in a model (tests/faults/shard_model.ts): 10 000 steps of joins, graceful leaves, crashes and pauses
 * past the renew deadline over up to four replicas sharing 8 buckets. The independent checker replays the bucket
 * Leases' record against every write's arrival, and the write spans per uid against each other.
 */
import assert from "node:assert/strict";
import { checkerBucket, checkShardSafety } from "./shard_checker.ts";
import { runShardModel } from "./shard_model.ts";
import { bucketOf, shardHash } from "../../runtime/apimachinery/shard_selector.ts";

Deno.test("shard model: 10 000 steps of joins, leaves, crashes and pauses — no uid written by two replicas at once", async () => {
  const r = await runShardModel({ seed: 15, steps: 10_000 });
  console.log(JSON.stringify({ ...r, violations: r.violations.length }));
  assert.deepEqual(r.violations, []);
  assert.equal(r.writesWhileNotHolder, 0);
  assert.equal(r.overlappingUids, 0);
  assert.equal(r.admittedBeforeSync, 0);
  // Every key is eventually owned, by exactly one replica.
  assert.equal(r.unownedAtEnd, 0);
  assert.equal(r.doublyOwnedAtEnd, 0);
  assert.equal(r.bucketsHeldAtEnd, 8);
  // The scenario must exercise what it claims to.
  assert.ok(r.bucketMoves >= 1_000, `only ${r.bucketMoves} bucket moves`);
  assert.ok(r.writes >= 20_000, `only ${r.writes} writes arrived`);
  assert.ok(r.refused >= 50, `the fence stopped only ${r.refused} writes`);
  assert.ok(r.joins >= 200 && r.leaves >= 100 && r.crashes >= 50 && r.pauses >= 200, JSON.stringify(r));
  assert.ok(r.recreates >= 200 && r.uidPreconditionFailed >= 10, JSON.stringify(r));
});

Deno.test("shard model: without the name guard (writes by name only) the checker finds writes to re-created objects", async () => {
  const r = await runShardModel({ seed: 15, steps: 3_000, bypassNameGuard: true });
  assert.ok(r.writesWhileNotHolder > 0, "a reconcile of the old uid wrote the new uid, owned by another replica");
});

Deno.test("shard model: without the bucket fence (writes gated only on admission) the checker finds overlaps", async () => {
  const r = await runShardModel({ seed: 15, steps: 2_000, bypassFence: true });
  assert.ok(r.writesWhileNotHolder > 0, "the checker should catch a paused replica's late writes");
  assert.ok(r.overlappingUids > 0, "and the same uid written by two replicas at once");
});

Deno.test("shard checker: the bucket is FNV-1a 64 of the uid, as kube-apiserver and the runtime compute it", () => {
  for (const uid of ["", "a", "0b5c1e0c-4a4e-4f0e-9a38-6c1b1b1b1b1b", "ünïcode"]) {
    for (const buckets of [1, 3, 16, 1024]) {
      assert.equal(checkerBucket(uid, buckets), bucketOf(shardHash(uid), buckets));
    }
  }
});

Deno.test("shard checker: judges writes by the bucket holder at arrival and finds overlapping reconciles", () => {
  const b = checkerBucket("u", 2);
  const r = checkShardSafety([
    { kind: "lease", seq: 0, at: 0, bucket: b, holder: "a" },
    { kind: "write", seq: 1, at: 1, uid: "u", identity: "a", reconcile: "a/1" },
    { kind: "lease", seq: 2, at: 2, bucket: b, holder: "b" },
    { kind: "write", seq: 3, at: 3, uid: "u", identity: "b", reconcile: "b/1" },
    { kind: "write", seq: 4, at: 4, uid: "u", identity: "a", reconcile: "a/1" }, // a deposed replica's late write
  ], 2);
  assert.equal(r.writes, 3);
  assert.equal(r.writesWhileNotHolder, 1);
  assert.equal(r.overlappingUids, 1);
  assert.equal(r.bucketMoves, 2);
  assert.match(r.violations[0], /a wrote u .* while its Lease named b/);
});
