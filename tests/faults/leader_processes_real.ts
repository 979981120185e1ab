/**
 * Leader safety with real processes against a REAL kube-apiserver v1.37 + etcd (testing/envtest/real_control_plane.ts):
 * three `kubeop run --leader-elect --controllers multisecret` replicas (Leases 2 s / 1.2 s / 300 ms) while the harness
 * churns MultiSecrets, and a fixed sequence of faults — SIGKILL the leader or a standby, SIGSTOP the leader past its
 * renew deadline then SIGCONT, and the control plane down past the renew deadline (kube-apiserver and etcd SIGKILLed,
 * started again after the outage) with its state kept, or with etcd's data directory wiped (the revision bumped past
 * the old one, as the matrix's restart-state-loss does), after which the harness re-applies namespaces, CRDs and
 * MultiSecrets. Killed replicas are replaced; none may exit on its own. After each outage the churn pauses and the run
 * waits for the desired state (tests/faults/desired.ts) and records how long it took.
 *
 * The fake server reports each request as it arrives (tests/faults/leader_processes.ts); kube-apiserver is observed
 * through its audit log instead (tests/faults/leader_audit.ts): every write of the `kubeop` Lease with its response
 * (the holder) and every write of a MultiSecret, Secret or Event by a replica (its identity is in the User-Agent),
 * at the server's receive time. A wipe loses the Lease with everything else: the harness marks that moment (between
 * the old processes' last answer and the new ones' first) as the Lease naming nobody. Each replica's trace log says
 * where its reconciles began and ended (tests/faults/reconcile_overlap.ts).
 *
 * A SIGSTOP waits for a quiet leader, as on `fake`: the churn paused, the desired state reached and no write from the
 * leader for STOP_QUIET_MS, its writes read from the growing audit log (tests/faults/audit_write_times.ts); a stop
 * elsewhere could fall in the fence's documented window (a pause between a passed check and the socket write longer
 * than leaseDuration − renewDeadline = 800 ms). A leader that does not settle within 10 s is SIGKILLed instead.
 * @module
 */
import { KubeClient } from "../../runtime/client/client.ts";
import { loadKubeconfigFile } from "../../runtime/client/kubeconfig.ts";
import { CoreTypes, type KubeObject } from "../../runtime/types.ts";
import { startRealControlPlane } from "../../testing/envtest/real_control_plane.ts";
import { Desired } from "./desired.ts";
import { checkLeaderSafety, type LeaderObservation } from "./leader_checker.ts";
import { LEADER_AUDIT_POLICY, leaderAuditObservations } from "./leader_audit.ts";
import { seeded } from "./leader_model.ts";
import {
  exitLogsOf,
  explainViolation,
  LEADER_SCOPE,
  type LeaderFault,
  leaderObjectNames,
  type LeaderProcessesResult,
  leaderReplicaArgs,
  overlapsOf,
  recoverAfterOutage,
  slower,
} from "./leader_rounds.ts";
import { type Churn, ReplicaPool, runProcessRounds, sleep, startChurn, STOP_QUIET_MS } from "./process_rounds.ts";
import { AuditWriteTimes } from "./audit_write_times.ts";
import { realStore } from "./real_target.ts";

const LEASE = { durationMs: 2_000, renewDeadlineMs: 1_200, retryMs: 300 };
/** MultiSecrets the run churns (its fault row's `objects`). */
export const REAL_LEADER_OBJECTS = 20;
/** Longest wait for the desired state after an outage round (a state loss re-creates every CRD and object). */
const RECOVERY_MS = 120_000;

/** The rounds, in order. */
const FAULTS: LeaderFault[] = [
  "sigkill-leader",
  "sigstop-leader",
  "outage",
  "sigkill-standby",
  "outage-state-loss",
  "sigstop-leader",
  "sigkill-leader",
  "outage-state-loss",
];

/** Runs the fault sequence against a fresh real control plane; `log` gets progress lines. */
export async function runLeaderProcessesReal(
  opts: { seed?: number; log?: (line: string) => void } = {},
): Promise<LeaderProcessesResult> {
  const started = performance.now();
  const log = opts.log ?? (() => {});
  const rand = seeded(opts.seed ?? 7);
  const plane = await startRealControlPlane({
    files: { "audit-policy.yaml": LEADER_AUDIT_POLICY },
    apiserverArgs: [
      "--audit-policy-file=audit-policy.yaml",
      "--audit-log-path=audit.log",
      "--audit-log-format=json",
      "--audit-log-maxsize=0",
    ],
  });
  const admin = new KubeClient({ config: await loadKubeconfigFile(plane.kubeconfigPath), userAgent: "leader-harness" });
  const desired = new Desired(realStore(admin), LEADER_SCOPE);
  const names = leaderObjectNames(REAL_LEADER_OBJECTS);
  const writes = new AuditWriteTimes(`${plane.dir}/audit.log`);
  /** Epoch ms of each state loss: the Lease names nobody from then on. */
  const stateLost: number[] = [];
  const result = {
    rounds: FAULTS.length,
    sigkills: 0,
    sigstops: 0,
    stopsSkippedBusy: 0,
    outages: 0,
    stateLossOutages: 0,
    spawned: 0,
    stuckRounds: 0,
    exitedOnTheirOwn: 0,
    exitLogs: [] as string[],
    lost: 0,
    orphans: 0,
    recoverySeconds: 0 as number | null,
    outageRecoverySeconds: 0 as number | null,
  };
  const pool = new ReplicaPool(leaderReplicaArgs(plane.kubeconfigPath, LEASE, 2), "attempting to acquire");
  let churn: Churn | undefined;
  const holder = async () => {
    try {
      const lease = await admin.get<KubeObject & { spec?: { holderIdentity?: string } }>(CoreTypes.Lease, "kubeop", {
        namespace: "default",
      });
      return lease.spec?.holderIdentity || undefined;
    } catch {
      return undefined; // not there yet, or the server is down
    }
  };
  try {
    await desired.install();
    for (const name of names) await createRetrying(() => desired.create(name));
    churn = startChurn(async (step) => {
      await desired.change(names[Math.floor(rand() * names.length)], String(step)).catch(() => {});
    }, 150);
    const running = churn;
    result.stuckRounds = await runProcessRounds({
      pool,
      size: 3,
      rounds: FAULTS.length,
      pollMs: 200,
      settle: async () => {
        const h = await holder();
        return h ? pool.byIdentity(h) : undefined;
      },
      onStuck: (round) => log(`round ${round + 1}: no live leader within 60 s`),
      round: async (round, leader) => {
        await sleep(1_000 + rand() * 1_000); // it leads (and writes) a little
        if (leader.exited) return;
        const fault = FAULTS[round];
        log(`round ${round + 1}: ${fault} (leader ${leader.identity})`);
        switch (fault) {
          case "sigkill-leader":
            result.sigkills++;
            return await pool.killAndWait(leader);
          case "sigkill-standby": {
            const standby = pool.live().find((x) => x !== leader);
            if (standby) {
              result.sigkills++;
              await pool.killAndWait(standby);
            }
            return;
          }
          case "sigstop-leader": {
            const stoppedMs = LEASE.renewDeadlineMs + 100 + rand() * 2 * LEASE.durationMs;
            const settled = async () => {
              await writes.refresh();
              return (await desired.check().catch(() => undefined))?.notConverged.size === 0;
            };
            const quiet = { churn: running, lastWriteAt: writes.lastWriteAt, quietMs: STOP_QUIET_MS, settled };
            if (await pool.stopAndResume(leader, stoppedMs, quiet)) {
              result.sigstops++;
            } else {
              result.stopsSkippedBusy++;
              result.sigkills++;
              await pool.killAndWait(leader);
            }
            return;
          }
          case "outage":
          case "outage-state-loss": {
            const stateLoss = fault === "outage-state-loss";
            const downMs = LEASE.renewDeadlineMs + 100 + rand() * 2 * LEASE.durationMs;
            const t0 = performance.now();
            await plane.restart({
              wipeEtcd: stateLoss,
              downMs,
              whileDown: () => Promise.resolve(void (stateLoss && stateLost.push(Date.now()))),
            });
            log(`round ${round + 1}: control plane back after ${Math.round(performance.now() - t0)} ms`);
            if (stateLoss) {
              result.stateLossOutages++;
              await desired.reapply(); // what a GitOps tool does after the cluster lost its state
            } else {
              result.outages++;
            }
            const r = await recoverAfterOutage(desired, running, { timeoutMs: RECOVERY_MS, pollMs: 500 });
            result.lost = Math.max(result.lost, r.lost);
            result.orphans = Math.max(result.orphans, r.orphans);
            if (stateLoss) result.recoverySeconds = slower(result.recoverySeconds, r.seconds);
            else result.outageRecoverySeconds = slower(result.outageRecoverySeconds, r.seconds);
            log(`round ${round + 1}: recovered in ${r.seconds} s (lost ${r.lost}, orphans ${r.orphans})`);
          }
        }
      },
    });
    result.exitedOnTheirOwn = pool.exitedOnTheirOwn().length; // before close() kills the rest
    result.exitLogs = exitLogsOf(pool);
    await churn.stop();
    await pool.close();
    const audit = await Deno.readTextFile(`${plane.dir}/audit.log`);
    const observations: LeaderObservation[] = leaderAuditObservations(audit, stateLost);
    const report = checkLeaderSafety(observations);
    const toPerformance = (epochMs: number) => epochMs - performance.timeOrigin;
    report.violations = report.violations.map((v) =>
      `${v} — ${explainViolation(v, pool.timeline, observations, toPerformance)}`
    );
    result.spawned = pool.spawned;
    return {
      ...result,
      ...report,
      overlaps: overlapsOf(pool),
      seconds: Math.round((performance.now() - started) / 100) / 10,
    };
  } finally {
    await churn?.stop();
    await pool.close();
    admin.close();
    await plane.stop();
  }
}

/** The first writes to a fresh CRD can wait in kube-apiserver until its storage is ready: retry briefly. */
async function createRetrying(create: () => Promise<void>): Promise<void> {
  for (let attempt = 0;; attempt++) {
    try {
      return await create();
    } catch (err) {
      if (attempt >= 20) throw err;
      await sleep(250);
    }
  }
}
