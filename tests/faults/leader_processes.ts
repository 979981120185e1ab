/**
 * Leader safety with real processes: three `kubeop run --leader-elect --controllers multisecret` replicas (short
 * leases: 1 s / 600 ms / 200 ms) against the fake API server while the harness churns MultiSecrets, so whoever
 * leads keeps writing. Each round lets a leader lead a little, then SIGKILLs it, or SIGSTOPs it past its renew
 * deadline (sometimes past the whole lease) and SIGCONTs it, or kills a standby, or takes the API server down past the
 * renew deadline (every request 503, every watch cut) and brings it back — every other such outage with an empty
 * store (state lost: the server restarts empty, the harness re-applies namespaces, CRDs and MultiSecrets); killed
 * replicas are replaced, and none may exit on its own (a lost Lease is a graceful transition: the replica campaigns
 * again). After each outage the churn pauses and the run waits for the desired state (every MultiSecret's last value
 * in its child Secret and status, no orphan: tests/faults/desired.ts) and records how long it took. Every request
 * carries its replica's identity in the User-Agent; the fake server reports each write's receipt and every commit of
 * the Lease to the harness in one order, which tests/faults/leader_checker.ts replays; each replica's trace log says
 * where its reconciles began and ended, which tests/faults/reconcile_overlap.ts replays (duplicate-concurrent).
 *
 * SIGSTOP is sent once the churn is paused with no step running, the desired state is reached and the leader has sent
 * nothing for 150 ms: a stop that lands between a passed fence check and that request's socket write is the one window
 * the fence documents (it holds only while that pause plus transport stays below leaseDuration − renewDeadline), and a
 * leader with work in hand can be anywhere in it. Unconstrained, about one stop in forty hit it on a loaded 2-core
 * machine (the write arrived ~20 ms after SIGCONT, checked ~450 ms after the last renew, before the stop); with the
 * quiet rule alone, a fresh-clone CI run at load ~11 still hit it once in 40 rounds (a leader still catching up with
 * the churn). A leader that does not settle within 10 s is SIGKILLed instead (`stopsSkippedBusy`).
 * tests/faults/leader_model.ts states the same assumption.
 *
 * No clock-offset hook: the fence and the election read only monotonic time (performance.now), so a replica's wrong
 * or stepped wall clock cannot matter here; tests/faults/leader_model.ts covers offsets and steps explicitly.
 * @module
 */
import type { Unstructured as KubeObject } from "../../testing/apiserver/unstructured.ts";
import { startFakeEnv } from "../support/fake_env.ts";
import { Desired } from "./desired.ts";
import { fakeStore } from "./fake_target.ts";
import { checkLeaderSafety, type LeaderObservation } from "./leader_checker.ts";
import { seeded } from "./leader_model.ts";
import {
  exitLogsOf,
  explainViolation,
  LEADER_SCOPE,
  leaderFaultPlan,
  leaderObjectNames,
  type LeaderProcessesResult,
  leaderReplicaArgs,
  overlapsOf,
  recoverAfterOutage,
  slower,
} from "./leader_rounds.ts";
import {
  identityFromUserAgent,
  ReplicaPool,
  runProcessRounds,
  sleep,
  startChurn,
  STOP_QUIET_MS,
} from "./process_rounds.ts";

export { type LeaderProcessesResult, leaderRow } from "./leader_rounds.ts";

const LEASE = { durationMs: 1_000, renewDeadlineMs: 600, retryMs: 200 };
/** MultiSecrets the run churns (its fault row's `objects`). */
export const LEADER_OBJECTS = 20;
/** How long a leader must have sent nothing before the harness SIGSTOPs it. */
/** Longest wait for the desired state after an outage round. */
const RECOVERY_MS = 60_000;

/** Runs `rounds` rounds; `log` gets progress lines. */
export async function runLeaderProcesses(
  opts: { rounds: number; seed: number; log?: (line: string) => void },
): Promise<LeaderProcessesResult> {
  const started = performance.now();
  // The faults are fixed up front (leaderFaultPlan); this stream only paces the rounds and picks the churned names.
  const plan = leaderFaultPlan(opts.rounds, opts.seed);
  const rand = seeded(opts.seed);
  const env = await startFakeEnv();
  const { server } = env;
  const observations: LeaderObservation[] = [];
  let seq = 0;
  let holder = "";
  const lastWriteAt = new Map<string, number>();
  const leaseChanged = (next: string) => {
    holder = next;
    observations.push({ kind: "lease", seq: seq++, at: performance.now(), holder });
  };
  // Every Lease commit; again on the new store after a state loss (the server's store is a new one then).
  const watchLease = () =>
    server.store.objects.onCommit((ev) => {
      const obj = ev.object as KubeObject;
      if (!ev.storageKey.includes("leases") || obj.metadata.name !== "kubeop") return;
      leaseChanged(ev.type === "DELETED" ? "" : obj.spec?.holderIdentity ?? "");
    });
  watchLease();
  server.faults.onRequest((req) => {
    if (req.method === "GET" || req.resource === "leases.coordination.k8s.io") return;
    const identity = identityFromUserAgent(req.userAgent);
    if (!identity) return; // the harness's own calls
    const what = `${req.verb} ${req.resource}${req.name ? `/${req.name}` : ""}`;
    lastWriteAt.set(identity, performance.now());
    observations.push({ kind: "write", seq: seq++, at: performance.now(), identity, what });
  });
  const desired = new Desired(fakeStore(server), LEADER_SCOPE);
  const names = leaderObjectNames(LEADER_OBJECTS);
  await desired.install();
  for (const name of names) await desired.create(name);

  const result = {
    rounds: opts.rounds,
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
  const pool = new ReplicaPool(leaderReplicaArgs(env.kubeconfigPath, LEASE, 1), "attempting to acquire");
  // The churn: a MultiSecret change every 40 ms keeps the leader writing children, statuses and Events.
  const churn = startChurn(async (step) => {
    await desired.change(names[Math.floor(rand() * names.length)], String(step));
  }, 40);

  try {
    result.stuckRounds = await runProcessRounds({
      pool,
      size: 3,
      rounds: opts.rounds,
      pollMs: 20,
      // A live replica holds the Lease.
      settle: () => holder ? pool.byIdentity(holder) : undefined,
      round: async (round, leader) => {
        await sleep(100 + rand() * 500); // it leads (and writes) a little
        if (leader.exited) return;
        const fault = plan[round];
        if (fault === "outage" || fault === "outage-state-loss") {
          // Every eighth round: an API server outage past the renew deadline (every request 503, every watch cut),
          // then back; every other one of them comes back with an empty store (the state lost: no Lease, no CRD, no
          // object) and the harness re-applies namespaces, CRDs and MultiSecrets, as the matrix's
          // restart-state-loss does. Every replica loses or fails to take the Lease; none may exit (graceful leader
          // transition), none may write while another holds the Lease afterwards; the cluster must reach the
          // desired state again.
          const stateLoss = fault === "outage-state-loss";
          server.faults.inject({ code: 503, message: "the API server is down (outage round)" });
          server.faults.dropWatches();
          await sleep(LEASE.renewDeadlineMs + 100 + rand() * 2 * LEASE.durationMs);
          if (stateLoss) {
            result.stateLossOutages++;
            await server.restart({ keepState: false });
            leaseChanged(""); // the Lease is gone with the rest
            watchLease();
          } else {
            result.outages++;
          }
          server.faults.clear();
          if (stateLoss) await desired.reapply(); // what a GitOps tool does after the cluster lost its state
          const r = await recoverAfterOutage(desired, churn, { timeoutMs: RECOVERY_MS, pollMs: 50 });
          result.lost = Math.max(result.lost, r.lost);
          result.orphans = Math.max(result.orphans, r.orphans);
          if (stateLoss) result.recoverySeconds = slower(result.recoverySeconds, r.seconds);
          else result.outageRecoverySeconds = slower(result.outageRecoverySeconds, r.seconds);
          opts.log?.(`round ${round + 1}: outage${stateLoss ? " with state loss" : ""}, recovered in ${r.seconds} s`);
          return;
        }
        if (fault === "sigstop-leader") {
          // SIGSTOP past the renew deadline (up to 2.5 leases), then SIGCONT: it must not write once resumed. The stop
          // comes once the churn is paused, the desired state reached and the leader quiet for STOP_QUIET_MS (see the
          // module doc); a leader that does not settle within 10 s is SIGKILLed instead.
          const stoppedMs = LEASE.renewDeadlineMs + 100 + rand() * 2 * LEASE.durationMs;
          const settled = async () => (await desired.check().catch(() => undefined))?.notConverged.size === 0;
          if (await pool.stopAndResume(leader, stoppedMs, { churn, lastWriteAt, quietMs: STOP_QUIET_MS, settled })) {
            result.sigstops++;
          } else {
            result.stopsSkippedBusy = (result.stopsSkippedBusy ?? 0) + 1;
            result.sigkills++;
            await pool.killAndWait(leader);
          }
        } else if (fault === "sigkill-leader") {
          result.sigkills++;
          await pool.killAndWait(leader);
        } else {
          const standby = pool.live().find((x) => x !== leader);
          if (standby) {
            result.sigkills++;
            await pool.killAndWait(standby);
          }
        }
        if (round % 10 === 9) opts.log?.(`round ${round + 1}: ${JSON.stringify(checkLeaderSafety(observations))}`);
      },
    });
  } finally {
    result.exitedOnTheirOwn = pool.exitedOnTheirOwn().length; // before close() kills the rest
    result.exitLogs = exitLogsOf(pool);
    await churn.stop();
    await pool.close();
    await env.close();
  }
  result.spawned = pool.spawned;
  const failedEarly = pool.failedEarly();
  if (failedEarly.length > 0) opts.log?.(`replicas that exited before campaigning:\n${failedEarly.join("\n---\n")}`);
  const report = checkLeaderSafety(observations);
  report.violations = report.violations.map((v) => `${v} — ${explainViolation(v, pool.timeline, observations)}`);
  return {
    ...result,
    ...report,
    overlaps: overlapsOf(pool),
    seconds: Math.round((performance.now() - started) / 100) / 10,
  };
}
