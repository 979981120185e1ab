/**
 * Leader safety with real processes: three `kubeop run --leader-elect --controllers multisecret` replicas (short
 * leases: 1 s / 600 ms / 200 ms) against the fake API server while the harness churns MultiSecrets, so whoever
 * leads keeps writing. Each round lets a leader lead a little, then SIGKILLs it, or SIGSTOPs it past its renew
 * deadline (sometimes past the whole lease) and SIGCONTs it, or kills a standby; exited replicas are replaced. Every
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
import { multiSecretCrds, MultiSecretType } from "../../controllers/multisecret/schema.ts";
import type { Unstructured as KubeObject } from "../../testing/unstructured.ts";
import { type DenoChild, spawnDeno, startFakeEnv } from "../support/fake_env.ts";
import { checkLeaderSafety, type LeaderObservation, type LeaderSafetyReport } from "./leader_checker.ts";
import { seeded } from "./leader_model.ts";

const MAIN = new URL("../../main.ts", import.meta.url).pathname;
const LEASE_MS = 1_000;
const RENEW_DEADLINE_MS = 600;
const CRD_REF = { group: "apiextensions.k8s.io", version: "v1", plural: "customresourcedefinitions" };
const NS_REF = { group: "", version: "v1", plural: "namespaces" };
const NS = "leader";
const OBJECTS = 20;
/** How long a leader must have sent nothing before the harness SIGSTOPs it. */
const QUIET_MS = 150;

/** What {@link runLeaderProcesses} measured. */
export interface LeaderProcessesResult extends LeaderSafetyReport {
  rounds: number;
  sigkills: number;
  sigstops: number;
  spawned: number;
  /** Rounds in which no replica took the Lease within the deadline. */
  stuckRounds: number;
  seconds: number;
}

interface Replica {
  proc: DenoChild;
  identity?: string;
  exited: boolean;
}

const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

/** The identity a replica campaigns with, from its JSON log on stderr. */
function identityOf(stderr: string): string | undefined {
  for (const line of stderr.split("\n")) {
    if (!line.startsWith("{") || !line.includes("attempting to acquire")) continue;
    try {
      const rec = JSON.parse(line);
      return rec.identity ?? rec.properties?.identity; // zap-shaped (fields at the top) or logtape's JSON lines
    } catch {
      // a partial line
    }
  }
  return undefined;
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
  timeline: { at: number; identity?: string; sig: Deno.Signal }[],
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
  let churnPaused = false;
  server.store.objects.onCommit((ev) => {
    const obj = ev.object as KubeObject;
    if (!ev.storageKey.includes("leases") || obj.metadata.name !== "kubeop") return;
    holder = ev.type === "DELETED" ? "" : obj.spec?.holderIdentity ?? "";
    observations.push({ kind: "lease", seq: seq++, at: performance.now(), holder });
  });
  server.faults.onRequest((req) => {
    if (req.method === "GET" || req.resource === "leases.coordination.k8s.io") return;
    const identity = req.userAgent.match(/\(([^)]+)\)$/)?.[1];
    if (!identity) return; // the harness's own calls
    const what = `${req.verb} ${req.resource}${req.name ? `/${req.name}` : ""}`;
    lastWriteAt.set(identity, performance.now());
    observations.push({ kind: "write", seq: seq++, at: performance.now(), identity, what });
  });

  for (const crd of multiSecretCrds()) server.store.create(CRD_REF, crd);
  server.store.create(NS_REF, { metadata: { name: NS } });
  for (let i = 0; i < OBJECTS; i++) {
    server.store.create(MultiSecretType, {
      apiVersion: `${MultiSecretType.group}/${MultiSecretType.version}`,
      kind: "MultiSecret",
      metadata: { name: `ms-${i}`, namespace: NS },
      spec: { namespaceSelector: { matchLabels: { "kubernetes.io/metadata.name": NS } }, stringData: { v: "0" } },
    }, { namespace: NS });
  }

  const result = { rounds: opts.rounds, sigkills: 0, sigstops: 0, spawned: 0, stuckRounds: 0 };
  const replicas: Replica[] = [];
  const spawn = () => {
    result.spawned++;
    const proc = spawnDeno(MAIN, [
      "run",
      "--kubeconfig",
      env.kubeconfigPath,
      "--controllers",
      "multisecret",
      "--leader-elect",
      "--leader-election-namespace",
      "default",
      "--leader-elect-lease-duration",
      `${LEASE_MS}ms`,
      "--leader-elect-renew-deadline",
      `${RENEW_DEADLINE_MS}ms`,
      "--leader-elect-retry-period",
      "200ms",
      "--health-probe-bind-address",
      "0",
      "--metrics-bind-address",
      "0",
      // Three replicas on one host: multisecret's webhook server would contend for :9443.
      "--webhook-bind-address",
      "0",
      "--graceful-shutdown-timeout-seconds",
      "1",
    ]);
    const r: Replica = { proc, exited: false };
    proc.child.status.then(() => r.exited = true);
    replicas.push(r);
  };
  const live = () => replicas.filter((r) => !r.exited);
  /** What the harness did to whom, when (performance.now): explains a violation. */
  const timeline: { at: number; identity?: string; sig: Deno.Signal }[] = [];
  const signal = (r: Replica, sig: Deno.Signal) => {
    timeline.push({ at: performance.now(), identity: r.identity, sig });
    try {
      r.proc.child.kill(sig);
    } catch {
      // exited meanwhile
    }
  };
  const byIdentity = (id: string) => {
    for (const r of replicas) r.identity ??= identityOf(r.proc.stderr());
    return live().find((r) => r.identity === id);
  };

  // The churn: a MultiSecret change every 40 ms keeps the leader writing children, statuses and Events.
  let churning = true;
  const churn = (async () => {
    for (let step = 1; churning; step++) {
      if (churnPaused) {
        await sleep(10);
        continue;
      }
      const name = `ms-${Math.floor(rand() * OBJECTS)}`;
      const current = server.store.get(MultiSecretType, name, { namespace: NS });
      server.store.update(MultiSecretType, { ...current, spec: { ...current.spec, stringData: { v: String(step) } } }, {
        namespace: NS,
        name,
      });
      await sleep(40);
    }
  })();

  try {
    for (let i = 0; i < 3; i++) spawn();
    for (let round = 0; round < opts.rounds; round++) {
      while (live().length < 3) spawn();
      // Wait for a live replica to hold the Lease.
      const deadline = performance.now() + 60_000; // spawning under load is slow
      let leader: Replica | undefined;
      while (performance.now() < deadline) {
        leader = holder ? byIdentity(holder) : undefined;
        if (leader) break;
        await sleep(20);
      }
      if (!leader) {
        result.stuckRounds++;
        continue;
      }
      await sleep(100 + rand() * 500); // it leads (and writes) a little
      if (leader.exited) continue;
      const r = rand();
      if (r < 0.45) {
        // SIGSTOP past the renew deadline (up to 2.5 leases), then SIGCONT: it must not write once resumed. The stop
        // comes once the leader has been quiet for QUIET_MS with the churn paused, so it does not land between a
        // fence check and that write's socket write — the window the fence documents (see the module doc); the churn
        // resumes during the stop, so the resumed leader finds work waiting and must refuse it.
        result.sigstops++;
        churnPaused = true;
        const quietBy = performance.now() + 5_000;
        while (performance.now() - (lastWriteAt.get(leader.identity!) ?? 0) < QUIET_MS && performance.now() < quietBy) {
          await sleep(10);
        }
        signal(leader, "SIGSTOP");
        churnPaused = false;
        await sleep(RENEW_DEADLINE_MS + 100 + rand() * 2 * LEASE_MS);
        signal(leader, "SIGCONT");
      } else if (r < 0.85) {
        result.sigkills++;
        signal(leader, "SIGKILL");
      } else {
        const standby = live().find((x) => x !== leader);
        if (standby) {
          result.sigkills++;
          signal(standby, "SIGKILL");
        }
      }
      if (round % 10 === 9) opts.log?.(`round ${round + 1}: ${JSON.stringify(checkLeaderSafety(observations))}`);
    }
  } finally {
    churning = false;
    await churn;
    for (const r of replicas) signal(r, "SIGCONT");
    await Promise.all(replicas.map((r) => r.proc.killAndReap()));
    await env.close();
  }
  const failedEarly = replicas.filter((r) => !r.identity && r.proc.stderr().includes("error"))
    .map((r) => r.proc.stderr().slice(-2000));
  if (failedEarly.length > 0) opts.log?.(`replicas that exited before campaigning:\n${failedEarly.join("\n---\n")}`);
  const report = checkLeaderSafety(observations);
  report.violations = report.violations.map((v) => `${v} — ${explain(v, timeline, observations)}`);
  return {
    ...result,
    ...report,
    seconds: Math.round((performance.now() - started) / 100) / 10,
  };
}
