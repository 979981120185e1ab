/**
 * What the leader process rounds share between their targets (tests/faults/leader_processes.ts on the fake API server,
 * tests/faults/leader_processes_real.ts on kube-apiserver + etcd): the result and its fault row, the replicas'
 * arguments, the faults of their rounds, the recovery measured after an outage (with or without state loss), the
 * duplicate-concurrent count from the replicas' trace logs and the explanation of a checker violation.
 * @module
 */
import type { LeaderObservation, LeaderSafetyReport } from "./leader_checker.ts";
import type { Desired } from "./desired.ts";
import {
  type Churn,
  kubeopRunArgs,
  type LeaseTimings,
  type ReplicaPool,
  type SignalEvent,
  waitFor,
} from "./process_rounds.ts";
import { type HeldStretch, type ReconcileOverlapReport, reconcileOverlaps } from "./reconcile_overlap.ts";
import type { ProcessRoundCounts } from "./process_rounds.ts";
import type { Scope } from "./desired.ts";
import { seededRandom } from "../../runtime/random.ts";

/** One round's fault. */
export type LeaderFault = "sigkill-leader" | "sigstop-leader" | "sigkill-standby" | "outage" | "outage-state-loss";

/**
 * The fault of each of `rounds` rounds, fixed before the run from `seed` alone (a random stream the run also drew
 * from for its churn made the mix depend on timing: a 40-round run once had 7 SIGSTOPs where it asserts 8): every
 * eighth round an API server outage, every other one of them with state loss; the other rounds a deck of 45 %
 * leader SIGSTOPs, 40 % leader SIGKILLs and 15 % standby SIGKILLs, shuffled.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { leaderFaultPlan } from "./leader_rounds.ts";
 * const plan = leaderFaultPlan(40, 7);
 * assert.equal(plan.filter((f) => f === "sigstop-leader").length, 16);
 * assert.deepEqual(plan, leaderFaultPlan(40, 7));
 * ```
 */
export function leaderFaultPlan(rounds: number, seed: number): LeaderFault[] {
  const outage = (round: number): LeaderFault | undefined =>
    round % 16 === 15 ? "outage-state-loss" : round % 8 === 7 ? "outage" : undefined;
  const others = Array.from({ length: rounds }, (_, i) => i).filter((i) => !outage(i)).length;
  const stops = Math.round(others * 0.45);
  const kills = Math.round(others * 0.40);
  const deck: LeaderFault[] = [
    ...Array<LeaderFault>(stops).fill("sigstop-leader"),
    ...Array<LeaderFault>(kills).fill("sigkill-leader"),
    ...Array<LeaderFault>(others - stops - kills).fill("sigkill-standby"),
  ];
  const rand = seededRandom(seed);
  for (let i = deck.length - 1; i > 0; i--) {
    const j = Math.floor(rand() * (i + 1));
    [deck[i], deck[j]] = [deck[j], deck[i]];
  }
  return Array.from({ length: rounds }, (_, round) => outage(round) ?? deck.pop()!);
}

/** What a leader process run measured. */
export interface LeaderProcessesResult extends LeaderSafetyReport, ProcessRoundCounts {
  /** Rounds of an API server outage past the renew deadline, then back with its state. */
  outages: number;
  /** Rounds of an API server outage past the renew deadline, then back with an empty store (the harness re-applies). */
  stateLossOutages: number;
  /** Replicas that exited without a SIGKILL from the harness (a lost Lease must not make one exit). */
  exitedOnTheirOwn: number;
  /** The stderr tails of those replicas (why they exited). */
  exitLogs: string[];
  /** Most objects not in their desired state once an outage round's recovery deadline passed. */
  lost: number;
  /** Most orphaned child Secrets at that point. */
  orphans: number;
  /** Longest recovery after a state-loss outage: from the re-apply's end to the desired state (null: never). */
  recoverySeconds: number | null;
  /** Longest recovery after an outage with state kept (null: never). */
  outageRecoverySeconds: number | null;
  /** Overlapping reconciles of one key, within a replica (across its terms) and across replicas. */
  overlaps: ReconcileOverlapReport;
}

/** The desired MultiSecrets of a leader run: one namespace, children in one selected namespace. */
export const LEADER_SCOPE: Scope = {
  namespace: "leader",
  targets: ["leader-t1"],
  label: { "kubeop-faults/leader": "yes" },
};

/** `ms-00`, `ms-01`, …: the run's MultiSecrets. */
export function leaderObjectNames(count: number): string[] {
  return Array.from({ length: count }, (_, i) => `ms-${String(i).padStart(2, "0")}`);
}

/**
 * `kubeop run --leader-elect` arguments of every replica of a run; at trace level each replica logs where each
 * reconcile begins and ends (tests/faults/reconcile_overlap.ts).
 */
export function leaderReplicaArgs(kubeconfig: string, lease: LeaseTimings, gracefulShutdownSeconds: number): string[] {
  return kubeopRunArgs({
    kubeconfig,
    leaseNamespace: "default",
    lease,
    gracefulShutdownSeconds,
    extra: ["--leader-elect", "--log-level", "trace"],
  });
}

/** The row a run adds to the fault results (tests/faults/matrix.ts ScenarioResult's shape). */
export function leaderRow(
  r: LeaderProcessesResult,
  where: { target: "fake" | "real"; objects: number },
): Record<string, unknown> {
  return {
    fault: "leader-sigkill-sigstop",
    target: where.target,
    objects: where.objects,
    events: r.rounds,
    lost: r.lost,
    orphans: r.orphans,
    duplicateConcurrent: r.overlaps.sameReplica + r.overlaps.crossReplica,
    apiCalls: r.writes,
    baselineApiCalls: null,
    baselineEvents: null,
    recoverySeconds: r.recoverySeconds,
    maxConcurrentLeaders: r.maxConcurrentLeaders,
    writesWhileNotLeader: r.writesWhileNotLeader,
    time: new Date().toISOString(),
  };
}

/** What {@link recoverAfterOutage} measured. */
export interface Recovery {
  seconds: number | null;
  lost: number;
  orphans: number;
}

/**
 * With the churn paused, waits (up to `timeoutMs`) until every MultiSecret's last value is in its child and status,
 * with no orphan; resumes the churn. Returns how long that took and what was still wrong at the end.
 */
export async function recoverAfterOutage(
  desired: Desired,
  churn: Churn,
  opts: { timeoutMs: number; pollMs: number },
): Promise<Recovery> {
  churn.paused = true;
  try {
    const start = performance.now();
    const converged = await waitFor(async () => {
      const c = await desired.check().catch(() => undefined);
      return c && c.lost === 0 && c.orphans === 0 ? true : undefined;
    }, opts);
    const seconds = converged ? Math.round((performance.now() - start) / 10) / 100 : null;
    const { lost, orphans } = await desired.check();
    return { seconds, lost, orphans };
  } finally {
    churn.paused = false;
  }
}

/** The stderr tails of the replicas that exited on their own. */
export function exitLogsOf(pool: ReplicaPool): string[] {
  return pool.exitedOnTheirOwn().map((r) => r.proc.stderr().slice(-3000));
}

/** The larger of two recoveries (null, never recovered, is the largest). */
export function slower(a: number | null, b: number | null): number | null {
  return a === null || b === null ? null : Math.max(a, b);
}

/** Overlapping reconciles in every replica's trace log; SIGSTOP–SIGCONT stretches from the pool's timeline. */
export function overlapsOf(pool: ReplicaPool): ReconcileOverlapReport {
  pool.identify();
  const logs = new Map<string, string>();
  pool.replicas.forEach((r, i) => logs.set(r.identity ?? `replica-${i}`, r.proc.stderr()));
  const held: HeldStretch[] = [];
  const stopped = new Map<string, number>();
  for (const e of pool.timeline) {
    if (!e.identity) continue;
    const at = performance.timeOrigin + e.at;
    if (e.sig === "SIGSTOP") stopped.set(e.identity, at);
    if (e.sig === "SIGCONT" && stopped.has(e.identity)) {
      held.push({ replica: e.identity, from: stopped.get(e.identity)!, to: at });
      stopped.delete(e.identity);
    }
  }
  return reconcileOverlaps(logs, held);
}

/** For a violation line of the checker: the writer's last signals and the last Lease change before the write. */
export function explainViolation(
  violation: string,
  timeline: SignalEvent[],
  observations: LeaderObservation[],
  toPerformance: (at: number) => number = (at) => at,
): string {
  const m = violation.match(/^at ([\d.]+) \(#(\d+)\) (\S+) wrote/);
  if (!m) return "";
  const [at, seq, writer] = [Number(m[1]), Number(m[2]), m[3]];
  const signals = timeline.filter((e) => e.identity === writer && e.at <= toPerformance(at)).slice(-2)
    .map((e) => `${e.sig} ${Math.round(toPerformance(at) - e.at)} ms before`);
  const lastLease = observations.filter((o) => o.kind === "lease" && o.seq < seq).at(-1);
  const writerLease = observations.filter((o) => o.kind === "lease" && o.seq < seq && o.holder === writer).at(-1);
  return [
    `writer signals: ${signals.join(", ") || "none"}`,
    lastLease ? `Lease changed ${Math.round(at - lastLease.at)} ms before` : "",
    writerLease ? `writer's last Lease write ${Math.round(at - writerLease.at)} ms before` : "",
  ].filter(Boolean).join("; ");
}
