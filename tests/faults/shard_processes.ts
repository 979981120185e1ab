/**
 * Shard safety with real processes: three `kubeop run --shards auto --controllers multisecret` replicas (8 buckets,
 * short leases: 1 s / 600 ms / 200 ms) against the fake API server while the harness churns MultiSecrets, so the owner
 * of each bucket keeps writing statuses. Each round waits until every bucket is held by a live replica, then SIGKILLs
 * a replica, SIGSTOPs one past its renew deadline and SIGCONTs it, or SIGTERMs one (it hands its buckets over);
 * exited replicas are replaced (an add). Every request carries its replica's identity in the User-Agent; the fake
 * server reports each write's receipt and every commit of a bucket Lease in one order, which
 * tests/faults/shard_checker.ts replays (a write to a MultiSecret counts for that MultiSecret's uid).
 *
 * As in tests/faults/leader_processes.ts, SIGSTOP is sent once the replica has sent nothing for 150 ms: a stop between
 * a passed fence check and that request's socket write is the window the fence documents.
 * @module
 */
import { MultiSecretType } from "../../controllers/multisecret/schema.ts";
import type { Unstructured as KubeObject } from "../../testing/apiserver/unstructured.ts";
import { startFakeEnv } from "../support/fake_env.ts";
import { seeded } from "./leader_model.ts";
import {
  fakeMultiSecretChange,
  identityFromUserAgent,
  kubeopRunArgs,
  type ProcessRoundCounts,
  ReplicaPool,
  runProcessRounds,
  seedFakeMultiSecrets,
  sleep,
  startChurn,
  STOP_QUIET_MS,
  waitFor,
} from "./process_rounds.ts";
import { checkShardSafety, type ShardObservation, type ShardSafetyReport } from "./shard_checker.ts";

const LEASE = { durationMs: 1_000, renewDeadlineMs: 600, retryMs: 200 };
const BUCKETS = 8;
const NS = "shards";
const OBJECTS = 40;

/** What {@link runShardProcesses} measured. */
export interface ShardProcessesResult extends ShardSafetyReport, ProcessRoundCounts {
  sigterms: number;
  /** Most distinct replicas that held buckets at one time. */
  maxHolders: number;
  /** MultiSecrets whose status did not reach their generation within 60 s after the faults stopped (must be 0). */
  unconverged: number;
}

/**
 * The row this run adds to the fault results (tests/faults/matrix.ts ScenarioResult's shape); `where` names another
 * run of the same rounds (the real-cluster one: target `real`, its own object count).
 */
export function shardRow(
  r: ShardSafetyReport & { rounds: number; maxHolders?: number },
  where: { target: "fake" | "real"; objects: number } = { target: "fake", objects: OBJECTS },
): Record<string, unknown> {
  return {
    fault: "shard-sigkill-sigstop-add",
    target: where.target,
    objects: where.objects,
    events: r.rounds,
    lost: null,
    orphans: null,
    duplicateConcurrent: r.overlappingUids,
    apiCalls: r.writes,
    baselineApiCalls: null,
    baselineEvents: null,
    recoverySeconds: null,
    maxConcurrentLeaders: r.maxHolders ?? null,
    writesWhileNotLeader: r.writesWhileNotHolder,
    time: new Date().toISOString(),
  };
}

/** Runs `rounds` rounds; `log` gets progress lines. */
export async function runShardProcesses(
  opts: { rounds: number; seed: number; log?: (line: string) => void },
): Promise<ShardProcessesResult> {
  const started = performance.now();
  const rand = seeded(opts.seed);
  const env = await startFakeEnv();
  const { server } = env;
  const observations: ShardObservation[] = [];
  let seq = 0;
  const holders = new Map<number, string>();
  const terms = new Map<number, number>();
  const lastWriteAt = new Map<string, number>();
  server.store.objects.onCommit((ev) => {
    const obj = ev.object as KubeObject;
    const m = ev.storageKey.includes("leases") ? /^kubeop-bucket-(\d+)$/.exec(obj.metadata.name ?? "") : null;
    if (!m) return;
    const bucket = Number(m[1]);
    const holder = ev.type === "DELETED" ? "" : obj.spec?.holderIdentity ?? "";
    if (holders.get(bucket) !== holder) terms.set(bucket, (terms.get(bucket) ?? 0) + 1);
    holders.set(bucket, holder);
    observations.push({ kind: "lease", seq: seq++, at: performance.now(), bucket, holder });
  });
  const uids = seedFakeMultiSecrets(server, NS, OBJECTS);
  server.faults.onRequest((req) => {
    if (req.method === "GET" || req.resource === "leases.coordination.k8s.io") return;
    const identity = identityFromUserAgent(req.userAgent);
    if (!identity) return; // the harness's own calls
    lastWriteAt.set(identity, performance.now());
    if (req.resource !== "multisecrets.multi.ddnw.ml" || !req.name) return;
    const uid = uids.get(req.name);
    if (!uid) return;
    // One span per (replica, bucket term): the checker's overlap rule then compares terms, not single writes.
    const bucketTerms = [...terms.values()].reduce((a, b) => a + b, 0);
    observations.push({
      kind: "write",
      seq: seq++,
      at: performance.now(),
      uid,
      identity,
      reconcile: `${identity}#${bucketTerms}`,
    });
  });

  const result = { rounds: opts.rounds, sigkills: 0, sigstops: 0, sigterms: 0, spawned: 0, stuckRounds: 0 };
  let maxHolders = 0;
  const pool = new ReplicaPool(
    kubeopRunArgs({
      kubeconfig: env.kubeconfigPath,
      leaseNamespace: "default",
      lease: LEASE,
      gracefulShutdownSeconds: 1,
      extra: ["--shards", "auto", "--shard-buckets", String(BUCKETS)],
    }),
    "joining shard ring",
  );

  function unconvergedCount(): number {
    let n = 0;
    for (let i = 0; i < OBJECTS; i++) {
      const ms = server.store.get(MultiSecretType, `ms-${i}`, { namespace: NS }) as KubeObject & {
        status?: { observedGeneration?: number };
      };
      if (ms.status?.observedGeneration !== ms.metadata.generation) n++;
    }
    return n;
  }

  const churn = startChurn(fakeMultiSecretChange(server, NS, OBJECTS, rand), 30);
  try {
    result.stuckRounds = await runProcessRounds({
      pool,
      size: 3,
      rounds: opts.rounds,
      pollMs: 20,
      // Every bucket held by a live replica.
      settle: () => {
        const ids = pool.liveIdentities();
        const held = [...Array(BUCKETS).keys()].map((b) => holders.get(b) ?? "");
        return held.every((h) => ids.has(h)) ? held : undefined;
      },
      round: async (round, held) => {
        maxHolders = Math.max(maxHolders, new Set(held).size);
        await sleep(200 + rand() * 600); // the owners reconcile (and write) a little
        const candidates = pool.live().filter((r) => r.identity);
        const victim = candidates[Math.floor(rand() * candidates.length)];
        if (!victim) return;
        const r = rand();
        if (r < 0.4) {
          const stoppedMs = LEASE.renewDeadlineMs + 100 + rand() * 2 * LEASE.durationMs;
          if (await pool.stopAndResume(victim, stoppedMs, { churn, lastWriteAt, quietMs: STOP_QUIET_MS })) {
            result.sigstops++;
          } else {
            result.sigkills++; // it never fell quiet: a SIGKILL instead of a stop in the middle of a write
            pool.signal(victim, "SIGKILL");
          }
        } else if (r < 0.8) {
          result.sigkills++;
          pool.signal(victim, "SIGKILL");
        } else {
          result.sigterms++;
          pool.signal(victim, "SIGTERM");
        }
        if (round % 5 === 4) {
          const { violations: _v, ...summary } = checkShardSafety(observations, BUCKETS);
          opts.log?.(`round ${round + 1}: ${JSON.stringify(summary)}`);
        }
      },
    });
    // The faults stop: every MultiSecret must be reconciled by whoever owns its bucket now.
    await churn.stop();
    pool.fill(3);
    await waitFor(() => unconvergedCount() === 0 || undefined, { timeoutMs: 60_000, pollMs: 100 });
  } finally {
    await churn.stop();
    await pool.close();
    await env.close();
  }
  result.spawned = pool.spawned;
  const unconverged = unconvergedCount();
  const failedEarly = pool.failedEarly();
  if (failedEarly.length > 0) opts.log?.(`replicas that exited before joining:\n${failedEarly.join("\n---\n")}`);
  return {
    ...result,
    ...checkShardSafety(observations, BUCKETS),
    maxHolders,
    unconverged,
    seconds: Math.round((performance.now() - started) / 100) / 10,
  };
}
