/**
 * Leader safety with real processes: three `kubeop run --leader-elect --controllers multisecret` replicas (short
 * leases: 1 s / 600 ms / 200 ms) against the fake API server while the harness churns MultiSecrets, so whoever
 * leads keeps writing. Each round lets a leader lead a little, then SIGKILLs it, or SIGSTOPs it past its renew
 * deadline (sometimes past the whole lease) and SIGCONTs it, or kills a standby, or takes the API server down past the
 * renew deadline (every request 503, every watch cut) and brings it back; killed replicas are replaced, and none may
 * exit on its own (a lost Lease is a graceful transition: the replica campaigns again). Every
 * request carries its replica's identity in the User-Agent; the fake server reports each write's receipt and every
 * commit of the Lease to the harness in one order, which tests/faults/leader_checker.ts replays.
 *
 * SIGSTOP is sent once the leader has sent nothing for 150 ms (the churn paused meanwhile): a stop that lands between
 * a passed fence check and that request's socket write is the one window the fence documents (it holds only while
 * that pause plus transport stays below leaseDuration − renewDeadline); unconstrained, about one stop in forty hit it on
 * a loaded 2-core machine (the write arrived ~20 ms after SIGCONT, checked ~450 ms after the last renew, before the
 * stop). tests/faults/leader_model.ts states the same assumption.
 *
 * No clock-offset hook: the fence and the election read only monotonic time (performance.now), so a replica's wrong
 * or stepped wall clock cannot matter here; tests/faults/leader_model.ts covers offsets and steps explicitly.
 * @module
 */
import type { Unstructured as KubeObject } from "../../testing/apiserver/unstructured.ts";
import { startFakeEnv } from "../support/fake_env.ts";
import { checkLeaderSafety, type LeaderObservation, type LeaderSafetyReport } from "./leader_checker.ts";
import { seeded } from "./leader_model.ts";
import {
  fakeMultiSecretChange,
  identityFromUserAgent,
  kubeopRunArgs,
  type ProcessRoundCounts,
  ReplicaPool,
  runProcessRounds,
  seedFakeMultiSecrets,
  type SignalEvent,
  sleep,
  startChurn,
} from "./process_rounds.ts";

const LEASE = { durationMs: 1_000, renewDeadlineMs: 600, retryMs: 200 };
const NS = "leader";
const OBJECTS = 20;
/** How long a leader must have sent nothing before the harness SIGSTOPs it. */
const QUIET_MS = 150;

/** What {@link runLeaderProcesses} measured. */
export interface LeaderProcessesResult extends LeaderSafetyReport, ProcessRoundCounts {
  /** Rounds of an API server outage past the renew deadline (every request 503, watches cut), then back. */
  outages: number;
  /** Replicas that exited without a SIGKILL from the harness (a lost Lease must not make one exit). */
  exitedOnTheirOwn: number;
}

/** The row this run adds to the fault results (tests/faults/matrix.ts ScenarioResult's shape). */
export function leaderRow(r: LeaderProcessesResult): Record<string, unknown> {
  return {
    fault: "leader-sigkill-sigstop",
    target: "fake",
    objects: OBJECTS,
    events: r.rounds,
    lost: null,
    orphans: null,
    duplicateConcurrent: null,
    apiCalls: r.writes,
    baselineApiCalls: null,
    baselineEvents: null,
    recoverySeconds: null,
    maxConcurrentLeaders: r.maxConcurrentLeaders,
    writesWhileNotLeader: r.writesWhileNotLeader,
    time: new Date().toISOString(),
  };
}

/** For a violation line of the checker: the writer's last signals and the last Lease change before the write. */
function explain(
  violation: string,
  timeline: SignalEvent[],
  observations: LeaderObservation[],
): string {
  const m = violation.match(/^at ([\d.]+) \(#(\d+)\) (\S+) wrote/);
  if (!m) return "";
  const [at, seq, writer] = [Number(m[1]), Number(m[2]), m[3]];
  const signals = timeline.filter((e) => e.identity === writer && e.at <= at).slice(-2)
    .map((e) => `${e.sig} ${Math.round(at - e.at)} ms before`);
  const lastLease = observations.filter((o) => o.kind === "lease" && o.seq < seq).at(-1);
  const writerLease = observations.filter((o) => o.kind === "lease" && o.seq < seq && o.holder === writer).at(-1);
  return [
    `writer signals: ${signals.join(", ") || "none"}`,
    lastLease ? `Lease changed ${Math.round(at - lastLease.at)} ms before` : "",
    writerLease ? `writer's last Lease write ${Math.round(at - writerLease.at)} ms before` : "",
  ].filter(Boolean).join("; ");
}

/** Runs `rounds` rounds; `log` gets progress lines. */
export async function runLeaderProcesses(
  opts: { rounds: number; seed: number; log?: (line: string) => void },
): Promise<LeaderProcessesResult> {
  const started = performance.now();
  const rand = seeded(opts.seed);
  const env = await startFakeEnv();
  const { server } = env;
  const observations: LeaderObservation[] = [];
  let seq = 0;
  let holder = "";
  const lastWriteAt = new Map<string, number>();
  server.store.objects.onCommit((ev) => {
    const obj = ev.object as KubeObject;
    if (!ev.storageKey.includes("leases") || obj.metadata.name !== "kubeop") return;
    holder = ev.type === "DELETED" ? "" : obj.spec?.holderIdentity ?? "";
    observations.push({ kind: "lease", seq: seq++, at: performance.now(), holder });
  });
  server.faults.onRequest((req) => {
    if (req.method === "GET" || req.resource === "leases.coordination.k8s.io") return;
    const identity = identityFromUserAgent(req.userAgent);
    if (!identity) return; // the harness's own calls
    const what = `${req.verb} ${req.resource}${req.name ? `/${req.name}` : ""}`;
    lastWriteAt.set(identity, performance.now());
    observations.push({ kind: "write", seq: seq++, at: performance.now(), identity, what });
  });
  seedFakeMultiSecrets(server, NS, OBJECTS);

  const result = {
    rounds: opts.rounds,
    sigkills: 0,
    sigstops: 0,
    outages: 0,
    spawned: 0,
    stuckRounds: 0,
    exitedOnTheirOwn: 0,
  };
  const pool = new ReplicaPool(
    kubeopRunArgs({
      kubeconfig: env.kubeconfigPath,
      leaseNamespace: "default",
      lease: LEASE,
      gracefulShutdownSeconds: 1,
      extra: ["--leader-elect"],
    }),
    "attempting to acquire",
  );
  // The churn: a MultiSecret change every 40 ms keeps the leader writing children, statuses and Events.
  const churn = startChurn(fakeMultiSecretChange(server, NS, OBJECTS, rand), 40);

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
        if (round % 8 === 7) {
          // Every eighth round: an API server outage past the renew deadline (every request 503, every watch cut),
          // then back. Every replica loses or fails to take the Lease; none may exit (graceful leader transition),
          // none may write while another holds the Lease afterwards.
          result.outages++;
          server.faults.inject({ code: 503, message: "the API server is down (outage round)" });
          server.faults.dropWatches();
          await sleep(LEASE.renewDeadlineMs + 100 + rand() * 2 * LEASE.durationMs);
          server.faults.clear();
          return;
        }
        const r = rand();
        if (r < 0.45) {
          // SIGSTOP past the renew deadline (up to 2.5 leases), then SIGCONT: it must not write once resumed. The stop
          // comes once the leader has been quiet for QUIET_MS with the churn paused (see the module doc).
          result.sigstops++;
          const stoppedMs = LEASE.renewDeadlineMs + 100 + rand() * 2 * LEASE.durationMs;
          await pool.stopAndResume(leader, stoppedMs, { churn, lastWriteAt, quietMs: QUIET_MS });
        } else if (r < 0.85) {
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
    await churn.stop();
    await pool.close();
    await env.close();
  }
  result.spawned = pool.spawned;
  const failedEarly = pool.failedEarly();
  if (failedEarly.length > 0) opts.log?.(`replicas that exited before campaigning:\n${failedEarly.join("\n---\n")}`);
  const report = checkLeaderSafety(observations);
  report.violations = report.violations.map((v) => `${v} — ${explain(v, pool.timeline, observations)}`);
  return {
    ...result,
    ...report,
    seconds: Math.round((performance.now() - started) / 100) / 10,
  };
}
