/**
 * Shard safety with real processes against a REAL kube-apiserver v1.37 (testing/envtest/real_control_plane.ts) started with
 * `--feature-gates=ShardedListAndWatch=true`: three `kubeop run --shards auto --controllers multisecret` replicas
 * (8 buckets, Leases 2 s / 1.2 s / 300 ms) while the harness churns MultiSecrets, and a fixed sequence of faults —
 * SIGKILL, SIGSTOP past the renew deadline then SIGCONT, SIGTERM — each exited replica replaced by a new one (an add).
 *
 * The fake server reports each request as it arrives (tests/faults/shard_processes.ts); a real one is observed
 * through its audit log instead: every bucket Lease write at RequestResponse level (the holder is in the response
 * object) and every MultiSecret write at Metadata level, each with the server's `requestReceivedTimestamp` (µs) and
 * the User-Agent, which names the replica (`kubeop/<version> (<identity>)`). Ordering both by receive time is sound
 * for the checker: a replica writes for a bucket only after its acquiring Lease write returned, and releases it only
 * after its last write for it returned. The same checker (tests/faults/shard_checker.ts) replays them.
 *
 * A SIGSTOP waits, as on `fake`, for a quiet victim (the churn paused, no write from it for STOP_QUIET_MS, read from
 * the growing audit log: tests/faults/audit_write_times.ts); one that does not fall quiet within 10 s gets a SIGKILL
 * instead (counted in `faults.SIGSTOP-skipped`).
 * @module
 */
import { multiSecretCrds, MultiSecretType } from "../../controllers/multisecret/schema.ts";
import { KubeClient } from "../../runtime/client/client.ts";
import { loadKubeconfigFile } from "../../runtime/client/kubeconfig.ts";
import { CoreTypes, type KubeObject } from "../../runtime/types.ts";
import { startRealControlPlane } from "../../testing/envtest/real_control_plane.ts";
import {
  type Churn,
  kubeopRunArgs,
  ReplicaPool,
  runProcessRounds,
  sleep,
  startChurn,
  STOP_QUIET_MS,
  waitFor,
} from "./process_rounds.ts";
import { AuditWriteTimes } from "./audit_write_times.ts";
import { auditObservations, LEASE_NS, SHARD_AUDIT_POLICY } from "./shard_audit.ts";
import { checkShardSafety, type ShardSafetyReport } from "./shard_checker.ts";

const LEASE = { durationMs: 2_000, renewDeadlineMs: 1_200, retryMs: 300 };
const BUCKETS = 8;
const NS = "shards";
/** MultiSecrets the run churns (its fault row's `objects`). */
export const REAL_SHARD_OBJECTS = 30;
/** The faults, in order; each exited replica is replaced before the next. */
const FAULTS: Deno.Signal[] = ["SIGKILL", "SIGSTOP", "SIGTERM", "SIGSTOP", "SIGKILL", "SIGTERM", "SIGKILL", "SIGSTOP"];

/** What {@link runShardProcessesReal} measured. */
export interface ShardProcessesRealResult extends ShardSafetyReport {
  faults: Record<string, number>;
  spawned: number;
  /** Most distinct replicas that held buckets at one time (from the harness's polls). */
  maxHolders: number;
  /** Rounds whose buckets were not all held by live replicas within 60 s. */
  stuckRounds: number;
  /** MultiSecrets whose status did not reach their generation within 60 s after the faults (must be 0). */
  unconverged: number;
  /** Replicas that logged a slice for their primary informer (server-side or client-side). */
  slicedReplicas: number;
  /** Replicas that logged a server-side slice (an echoed `shardInfo`; none for custom resources on v1.37.2). */
  serverSideReplicas: number;
  seconds: number;
}

/** Runs the fault sequence against a fresh real control plane; `log` gets progress lines. */
export async function runShardProcessesReal(opts: { log?: (line: string) => void } = {}): Promise<
  ShardProcessesRealResult
> {
  const started = performance.now();
  const log = opts.log ?? (() => {});
  const plane = await startRealControlPlane({
    files: { "audit-policy.yaml": SHARD_AUDIT_POLICY },
    apiserverArgs: [
      "--feature-gates=ShardedListAndWatch=true",
      "--audit-policy-file=audit-policy.yaml",
      "--audit-log-path=audit.log",
      "--audit-log-format=json",
      "--audit-log-maxsize=0",
    ],
  });
  const admin = new KubeClient({ config: await loadKubeconfigFile(plane.kubeconfigPath), userAgent: "shard-harness" });
  const uids = new Map<string, string>();
  const writes = new AuditWriteTimes(`${plane.dir}/audit.log`);
  const faults: Record<string, number> = {};
  let maxHolders = 0;
  let churn: Churn | undefined;
  const pool = new ReplicaPool(
    kubeopRunArgs({
      kubeconfig: plane.kubeconfigPath,
      leaseNamespace: LEASE_NS,
      lease: LEASE,
      gracefulShutdownSeconds: 2,
      extra: ["--shards", "auto", "--shard-buckets", String(BUCKETS)],
    }),
    "joining shard ring",
  );
  const holders = async () => {
    const leases = await admin.list<KubeObject & { spec?: { holderIdentity?: string } }>(CoreTypes.Lease, {
      namespace: LEASE_NS,
    });
    const byName = new Map(leases.items.map((l) => [l.metadata.name!, l.spec?.holderIdentity ?? ""]));
    return [...Array(BUCKETS).keys()].map((b) => byName.get(`kubeop-bucket-${b}`) ?? "");
  };
  const unconverged = async () => {
    const list = await admin.list<KubeObject & { status?: { observedGeneration?: number } }>(MultiSecretType, {
      namespace: NS,
    });
    return list.items.filter((ms) => ms.status?.observedGeneration !== ms.metadata.generation).length;
  };
  try {
    for (const crd of multiSecretCrds()) await admin.create(CoreTypes.CustomResourceDefinition, crd);
    for (const crd of multiSecretCrds()) {
      const deadline = performance.now() + 60_000;
      for (;;) {
        const got = await admin.get<KubeObject & { status?: { conditions?: { type: string; status: string }[] } }>(
          CoreTypes.CustomResourceDefinition,
          crd.metadata.name!,
        );
        if (got.status?.conditions?.some((c) => c.type === "Established" && c.status === "True")) break;
        if (performance.now() > deadline) throw new Error(`CRD ${crd.metadata.name} not Established in 60 s`);
        await sleep(200);
      }
    }
    await admin.create(CoreTypes.Namespace, { metadata: { name: NS } });
    for (let i = 0; i < REAL_SHARD_OBJECTS; i++) {
      const body = {
        apiVersion: `${MultiSecretType.group}/${MultiSecretType.version}`,
        kind: "MultiSecret",
        metadata: { name: `ms-${i}`, namespace: NS },
        spec: { namespaceSelector: { matchLabels: { "kubernetes.io/metadata.name": NS } }, stringData: { v: "0" } },
      };
      // The first write to a fresh CRD can wait in kube-apiserver until its storage is ready: retry briefly.
      for (let attempt = 0;; attempt++) {
        try {
          const created = await admin.create<KubeObject>(MultiSecretType, body, { namespace: NS });
          uids.set(`ms-${i}`, created.metadata.uid!);
          break;
        } catch (err) {
          if (attempt >= 20) throw err;
          await sleep(250);
        }
      }
    }
    churn = startChurn(async (step) => {
      await admin.patch(MultiSecretType, `ms-${step % REAL_SHARD_OBJECTS}`, {
        spec: { stringData: { v: String(step) } },
      }, {
        namespace: NS,
        type: "merge",
      }).catch(() => {});
    }, 100);
    const running = churn;

    const stuckRounds = await runProcessRounds({
      pool,
      size: 3,
      rounds: FAULTS.length,
      pollMs: 200,
      settle: async () => {
        const ids = pool.liveIdentities();
        const held = await holders();
        // Every bucket held by a live replica, and every live replica joined (so each can be the victim).
        return held.every((h) => ids.has(h)) && ids.size === pool.live().length ? held : undefined;
      },
      onStuck: (round) => log(`round ${round + 1}: buckets not all held by live replicas within 60 s`),
      round: async (round, held) => {
        maxHolders = Math.max(maxHolders, new Set(held).size);
        await sleep(1_000); // the owners reconcile (and write) a little
        const joined = pool.live().filter((r) => r.identity);
        const victim = joined[round % joined.length];
        if (!victim) return;
        const fault = FAULTS[round];
        faults[fault] = (faults[fault] ?? 0) + 1;
        log(`round ${round + 1}: ${fault} ${victim.identity}`);
        if (fault !== "SIGSTOP") return pool.signal(victim, fault);
        const settled = () => writes.refresh().then(() => true);
        const quiet = { churn: running, lastWriteAt: writes.lastWriteAt, quietMs: STOP_QUIET_MS, settled };
        if (!await pool.stopAndResume(victim, LEASE.renewDeadlineMs + LEASE.durationMs, quiet)) {
          faults["SIGSTOP-skipped"] = (faults["SIGSTOP-skipped"] ?? 0) + 1;
          pool.signal(victim, "SIGKILL"); // it never fell quiet: a SIGKILL instead of a stop in the middle of a write
        }
      },
    });
    await churn.stop();
    pool.fill(3);
    await waitFor(async () => await unconverged() === 0 || undefined, { timeoutMs: 60_000, pollMs: 500 });
    const left = await unconverged();
    // Replicas whose primary informer was sliced; and those that saw the server echo the slice (KEP-5866 shardInfo:
    // v1.37.2 echoes it for built-in resources only, so a MultiSecret slice is filtered by the server without an echo
    // and the informer reports client-side filtering).
    const logs = pool.replicas.map((r) => r.proc.stderr());
    const slicedReplicas = logs.filter((l) => l.includes("shard slice")).length;
    const serverSideReplicas = logs.filter((l) => l.includes("watches its shard slice server-side")).length;
    await pool.close();
    const audit = await Deno.readTextFile(`${plane.dir}/audit.log`);
    const report = checkShardSafety(auditObservations(audit, (name) => uids.get(name)), BUCKETS);
    return {
      ...report,
      faults,
      spawned: pool.spawned,
      maxHolders,
      stuckRounds,
      unconverged: left,
      slicedReplicas,
      serverSideReplicas,
      seconds: Math.round((performance.now() - started) / 100) / 10,
    };
  } finally {
    await churn?.stop();
    await pool.close();
    admin.close();
    await plane.stop();
  }
}
