/**
 * An independent checker for shard safety. Given what the server (or the in-memory Lease store) recorded — every
 * bucket Lease change with its holder, and every write with the uid it touched, the replica that sent it and the
 * reconcile it belonged to, in server-arrival order — it reports
 *
 * - writes that arrived while the Lease of the uid's bucket did not name their sender (the fence's promise), and
 * - uids written by two replicas at overlapping times: two reconciles of one uid, from different replicas, whose
 *   first-to-last write arrivals overlap (judged from the writes alone, without the Leases).
 *
 * It hashes uids itself (FNV-1a 64, bucket = ⌊hash × B / 2⁶⁴⌋) rather than importing the runtime's hashing, and knows
 * nothing of rings, gates or fences.
 * @module
 */

/** One observation, in server-arrival order (`seq` breaks ties of `at`). */
export type ShardObservation =
  /** Bucket `bucket`'s Lease was written: from now on `holder` holds it ("" = nobody). */
  | { kind: "lease"; seq: number; at: number; bucket: number; holder: string }
  /** A write for `uid` sent by replica `identity` within reconcile `reconcile` arrived. */
  | { kind: "write"; seq: number; at: number; uid: string; identity: string; reconcile: string };

/** What {@link checkShardSafety} found. */
export interface ShardSafetyReport {
  /** Writes checked. */
  writes: number;
  /** Writes that arrived while their uid's bucket Lease named someone else. Must be 0. */
  writesWhileNotHolder: number;
  /** Uids with reconciles from two replicas whose write spans overlap. Must be 0. */
  overlappingUids: number;
  /** Bucket Lease changes that moved a bucket to another non-empty holder. */
  bucketMoves: number;
  /** Distinct replicas that wrote at all. */
  writers: number;
  /** The first few offences, readable. */
  violations: string[];
}

const FNV64_OFFSET = 0xcbf29ce484222325n;
const FNV64_PRIME = 0x100000001b3n;

/** The bucket of `uid` among `buckets`, computed here from scratch. */
export function checkerBucket(uid: string, buckets: number): number {
  let h = FNV64_OFFSET;
  for (const byte of new TextEncoder().encode(uid)) h = ((h ^ BigInt(byte)) * FNV64_PRIME) % (1n << 64n);
  return Number((h * BigInt(buckets)) / (1n << 64n));
}

/**
 * Replays `observations` in arrival order.
 *
 * @example
 * ```ts
 * import { checkerBucket, checkShardSafety } from "./shard_checker.ts";
 * const b = checkerBucket("u1", 4);
 * const report = checkShardSafety([
 *   { kind: "lease", seq: 1, at: 0, bucket: b, holder: "a" },
 *   { kind: "write", seq: 2, at: 5, uid: "u1", identity: "a", reconcile: "a/1" },
 *   { kind: "write", seq: 3, at: 6, uid: "u1", identity: "b", reconcile: "b/1" }, // not b's bucket
 * ], 4);
 * console.assert(report.writesWhileNotHolder === 1);
 * ```
 */
export function checkShardSafety(observations: Iterable<ShardObservation>, buckets: number): ShardSafetyReport {
  const sorted = [...observations].sort((a, b) => a.at - b.at || a.seq - b.seq);
  const holders = new Map<number, string>();
  const bucketCache = new Map<string, number>();
  const spans = new Map<string, Map<string, { identity: string; first: number; last: number }>>();
  const writers = new Set<string>();
  const report: ShardSafetyReport = {
    writes: 0,
    writesWhileNotHolder: 0,
    overlappingUids: 0,
    bucketMoves: 0,
    writers: 0,
    violations: [],
  };
  const offend = (line: string) => {
    if (report.violations.length < 10) report.violations.push(line);
  };
  for (const ob of sorted) {
    if (ob.kind === "lease") {
      const prev = holders.get(ob.bucket) ?? "";
      if (ob.holder !== prev && ob.holder !== "") report.bucketMoves++;
      holders.set(ob.bucket, ob.holder);
      continue;
    }
    report.writes++;
    writers.add(ob.identity);
    let bucket = bucketCache.get(ob.uid);
    if (bucket === undefined) bucketCache.set(ob.uid, bucket = checkerBucket(ob.uid, buckets));
    const holder = holders.get(bucket) ?? "";
    if (holder !== ob.identity) {
      report.writesWhileNotHolder++;
      offend(
        `at ${ob.at} (#${ob.seq}) ${ob.identity} wrote ${ob.uid} (bucket ${bucket}) while its Lease named ` +
          `${holder === "" ? "nobody" : holder}`,
      );
    }
    let byReconcile = spans.get(ob.uid);
    if (!byReconcile) spans.set(ob.uid, byReconcile = new Map());
    const span = byReconcile.get(ob.reconcile);
    if (span) span.last = ob.at;
    else byReconcile.set(ob.reconcile, { identity: ob.identity, first: ob.at, last: ob.at });
  }
  for (const [uid, byReconcile] of spans) {
    const list = [...byReconcile.values()].sort((a, b) => a.first - b.first);
    let overlap = false;
    for (let i = 0; i < list.length && !overlap; i++) {
      for (let j = i + 1; j < list.length && list[j].first <= list[i].last; j++) {
        if (list[j].identity !== list[i].identity) {
          overlap = true;
          offend(
            `${uid}: ${list[i].identity} wrote it during [${list[i].first}, ${list[i].last}] and ` +
              `${list[j].identity} during [${list[j].first}, ${list[j].last}]`,
          );
          break;
        }
      }
    }
    if (overlap) report.overlappingUids++;
  }
  report.writers = writers.size;
  return report;
}
