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
import { multiSecretCrds, MultiSecretType } from "../../controllers/multisecret/schema.ts";
import type { Unstructured as KubeObject } from "../../testing/unstructured.ts";
import { type DenoChild, spawnDeno, startFakeEnv } from "../support/fake_env.ts";
import { seeded } from "./leader_model.ts";
import { checkShardSafety, type ShardObservation, type ShardSafetyReport } from "./shard_checker.ts";

const MAIN = new URL("../../main.ts", import.meta.url).pathname;
const LEASE_MS = 1_000;
const RENEW_DEADLINE_MS = 600;
const BUCKETS = 8;
const CRD_REF = { group: "apiextensions.k8s.io", version: "v1", plural: "customresourcedefinitions" };
const NS_REF = { group: "", version: "v1", plural: "namespaces" };
const NS = "shards";
const OBJECTS = 40;
const QUIET_MS = 150;

/** What {@link runShardProcesses} measured. */
export interface ShardProcessesResult extends ShardSafetyReport {
  rounds: number;
  sigkills: number;
  sigstops: number;
  sigterms: number;
  spawned: number;
  /** Rounds in which the buckets were not all held by live replicas within the deadline. */
  stuckRounds: number;
  /** Most distinct replicas that held buckets at one time. */
  maxHolders: number;
  /** MultiSecrets whose status did not reach their generation within 60 s after the faults stopped (must be 0). */
  unconverged: number;
  seconds: number;
}

interface Replica {
  proc: DenoChild;
  identity?: string;
  exited: boolean;
}

const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

/** The identity a replica joins the ring with, from its JSON log on stderr. */
function identityOf(stderr: string): string | undefined {
  for (const line of stderr.split("\n")) {
    if (!line.startsWith("{") || !line.includes("joining shard ring")) continue;
    try {
      const rec = JSON.parse(line);
      return rec.identity ?? rec.properties?.identity;
    } catch {
      // a partial line
    }
  }
  return undefined;
}

/** The row this run adds to the fault results (tests/faults/matrix.ts ScenarioResult's shape). */
export function shardRow(r: ShardSafetyReport & { rounds: number; maxHolders?: number }): Record<string, unknown> {
  return {
    fault: "shard-sigkill-sigstop-add",
    target: "fake",
    objects: OBJECTS,
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
  const uids = new Map<string, string>();
  let churnPaused = false;
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
  server.faults.onRequest((req) => {
    if (req.method === "GET" || req.resource === "leases.coordination.k8s.io") return;
    const identity = req.userAgent.match(/\(([^)]+)\)$/)?.[1];
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

  for (const crd of multiSecretCrds()) server.store.create(CRD_REF, crd);
  server.store.create(NS_REF, { metadata: { name: NS } });
  for (let i = 0; i < OBJECTS; i++) {
    const created = server.store.create(MultiSecretType, {
      apiVersion: `${MultiSecretType.group}/${MultiSecretType.version}`,
      kind: "MultiSecret",
      metadata: { name: `ms-${i}`, namespace: NS },
      spec: { namespaceSelector: { matchLabels: { "kubernetes.io/metadata.name": NS } }, stringData: { v: "0" } },
    }, { namespace: NS }) as KubeObject;
    uids.set(`ms-${i}`, created.metadata.uid!);
  }

  const result = { rounds: opts.rounds, sigkills: 0, sigstops: 0, sigterms: 0, spawned: 0, stuckRounds: 0 };
  let maxHolders = 0;
  const replicas: Replica[] = [];
  const spawn = () => {
    result.spawned++;
    const proc = spawnDeno(MAIN, [
      "run",
      "--kubeconfig",
      env.kubeconfigPath,
      "--controllers",
      "multisecret",
      "--shards",
      "auto",
      "--shard-buckets",
      String(BUCKETS),
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
      "--graceful-shutdown-timeout-seconds",
      "1",
    ]);
    const r: Replica = { proc, exited: false };
    proc.child.status.then(() => r.exited = true);
    replicas.push(r);
  };
  const live = () => replicas.filter((r) => !r.exited);
  const signal = (r: Replica, sig: Deno.Signal) => {
    try {
      r.proc.child.kill(sig);
    } catch {
      // exited meanwhile
    }
  };
  const liveIdentities = () => {
    for (const r of replicas) r.identity ??= identityOf(r.proc.stderr());
    return new Set(live().map((r) => r.identity).filter((id): id is string => id !== undefined));
  };

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
      await sleep(30);
    }
  })();

  try {
    for (let i = 0; i < 3; i++) spawn();
    for (let round = 0; round < opts.rounds; round++) {
      while (live().length < 3) spawn();
      // Wait until every bucket is held by a live replica.
      const deadline = performance.now() + 60_000;
      let settled = false;
      while (performance.now() < deadline) {
        const ids = liveIdentities();
        const held = [...Array(BUCKETS).keys()].map((b) => holders.get(b) ?? "");
        if (held.every((h) => ids.has(h))) {
          maxHolders = Math.max(maxHolders, new Set(held).size);
          settled = true;
          break;
        }
        await sleep(20);
      }
      if (!settled) {
        result.stuckRounds++;
        continue;
      }
      await sleep(200 + rand() * 600); // the owners reconcile (and write) a little
      const candidates = live().filter((r) => r.identity);
      const victim = candidates[Math.floor(rand() * candidates.length)];
      if (!victim) continue;
      const r = rand();
      if (r < 0.4) {
        result.sigstops++;
        churnPaused = true;
        const quietBy = performance.now() + 5_000;
        while (performance.now() - (lastWriteAt.get(victim.identity!) ?? 0) < QUIET_MS && performance.now() < quietBy) {
          await sleep(10);
        }
        signal(victim, "SIGSTOP");
        churnPaused = false;
        await sleep(RENEW_DEADLINE_MS + 100 + rand() * 2 * LEASE_MS);
        signal(victim, "SIGCONT");
      } else if (r < 0.8) {
        result.sigkills++;
        signal(victim, "SIGKILL");
      } else {
        result.sigterms++;
        signal(victim, "SIGTERM");
      }
      if (round % 5 === 4) {
        const { violations: _v, ...summary } = checkShardSafety(observations, BUCKETS);
        opts.log?.(`round ${round + 1}: ${JSON.stringify(summary)}`);
      }
    }
    // The faults stop: every MultiSecret must be reconciled by whoever owns its bucket now.
    churning = false;
    await churn;
    while (live().length < 3) spawn();
    const convergeBy = performance.now() + 60_000;
    while (unconvergedCount() > 0 && performance.now() < convergeBy) await sleep(100);
  } finally {
    churning = false;
    await churn;
    for (const r of replicas) signal(r, "SIGCONT");
    await Promise.all(replicas.map((r) => r.proc.killAndReap()));
    await env.close();
  }
  const unconverged = unconvergedCount();
  const failedEarly = replicas.filter((r) => !r.identity && r.proc.stderr().includes("error"))
    .map((r) => r.proc.stderr().slice(-2000));
  if (failedEarly.length > 0) opts.log?.(`replicas that exited before joining:\n${failedEarly.join("\n---\n")}`);
  return {
    ...result,
    ...checkShardSafety(observations, BUCKETS),
    maxHolders,
    unconverged,
    seconds: Math.round((performance.now() - started) / 100) / 10,
  };
}
