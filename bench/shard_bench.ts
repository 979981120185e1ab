/**
 * Sharding benchmarks (issue 15) against the fake API server, each replica its own process (bench/shard_replica.ts,
 * 16 buckets, the `kubeop run` Lease timings 15 s / 10 s / 2 s):
 *
 * - `shard-scaling-{1,2,3}`: 300 ConfigMaps, each reconcile waits a simulated 50 ms external call and patches one
 *   annotation; once the ring is balanced every ConfigMap's `data.want` is bumped and the time until all carry it is
 *   measured; the speed-up is the 1-replica time over the N-replica time (goals ≥ 1.7× with 2, ≥ 2.4× with 3). Run
 *   with ShardedListAndWatch on (server-side slices) and off (client-side filtering); `extra` has each replica's
 *   watch bytes and cache objects for the primary (ConfigMaps) and the child (Secrets, one per ConfigMap, unsliced).
 * - `shard-rebalance-kill`: 3 replicas, one SIGKILLed; the time until all of its keys (bumped at the kill) are
 *   reconciled by the survivors (bounded below by the 15 s bucket Lease duration).
 * - `shard-rebalance-add`: 2 replicas, a third spawned; the time until it holds its share and until its first write.
 *
 * Run: deno run --allow-all bench/shard_bench.ts [--only=scaling|kill|add]
 * @module
 */
import { KubeClient } from "../runtime/client.ts";
import { bucketOf, shardHash } from "../runtime/apimachinery/shard_selector.ts";
import { CoreTypes, type KubeObject } from "../runtime/types.ts";
import { type FakeApiServer, startFakeApiServer } from "../testing/mod.ts";
import { higherIsBetter, recordResult, round } from "./result.ts";
import { BENCH_NS, DONE_ANNOTATION } from "./shard_replica.ts";

const REPLICA = new URL("./shard_replica.ts", import.meta.url).pathname;
const OBJECTS = 300;
const DELAY_MS = 50;
const BUCKETS = 16;
const LEASE_SECONDS = 15;
const only = Deno.args.find((a) => a.startsWith("--only="))?.slice(7);
const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

interface Replica {
  identity: string;
  child: Deno.ChildProcess;
  metricsUrl: Promise<string>;
  spawnedAt: number;
}

interface Env {
  server: FakeApiServer;
  admin: KubeClient;
  kubeconfig: string;
  dir: string;
  uids: string[];
  firstWrite: Map<string, number>;
  replicas: Replica[];
}

async function startEnv(serverSide: boolean): Promise<Env> {
  const server = await startFakeApiServer({ featureGates: { ShardedListAndWatch: serverSide } });
  const dir = await Deno.makeTempDir({ prefix: "kubeop-shard-bench-" });
  const kubeconfig = `${dir}/kubeconfig`;
  await server.writeKubeconfig(kubeconfig);
  const admin = new KubeClient({ config: { server: server.url } });
  await admin.create(CoreTypes.Namespace, { metadata: { name: BENCH_NS } });
  const uids: string[] = [];
  for (let i = 0; i < OBJECTS; i++) {
    const cm = server.store.create(CoreTypes.ConfigMap, {
      metadata: { name: `cm-${i}`, namespace: BENCH_NS, annotations: { [DONE_ANNOTATION]: "1" } },
      data: { want: "1", payload: "x".repeat(200) },
    }, { namespace: BENCH_NS }) as KubeObject;
    uids.push(cm.metadata.uid!);
    server.store.create(CoreTypes.Secret, {
      metadata: {
        name: `cm-${i}`,
        namespace: BENCH_NS,
        ownerReferences: [{
          apiVersion: "v1",
          kind: "ConfigMap",
          name: `cm-${i}`,
          uid: cm.metadata.uid!,
          controller: true,
        }],
      },
      data: { token: btoa("y".repeat(200)) },
    }, { namespace: BENCH_NS });
  }
  const firstWrite = new Map<string, number>();
  server.faults.onRequest((req) => {
    if (req.verb !== "patch" || req.resource !== "configmaps") return;
    const id = req.userAgent.match(/\(([^)]+)\)$/)?.[1];
    if (id && !firstWrite.has(id)) firstWrite.set(id, performance.now());
  });
  return { server, admin, kubeconfig, dir, uids, firstWrite, replicas: [] };
}

function spawnReplica(env: Env, identity: string): Replica {
  const child = new Deno.Command(Deno.execPath(), {
    args: [
      "run",
      "--allow-all",
      REPLICA,
      env.kubeconfig,
      identity,
      String(DELAY_MS),
      String(BUCKETS),
      String(LEASE_SECONDS),
    ],
    stdout: "piped",
    stderr: "inherit",
    env: { HOME: "/nonexistent", KUBECONFIG: "" },
  }).spawn();
  const metricsUrl = (async () => {
    let text = "";
    const decoder = new TextDecoder();
    for await (const chunk of child.stdout) {
      text += decoder.decode(chunk, { stream: true });
      const line = text.split("\n").find((l) => l.startsWith("{"));
      if (line) return JSON.parse(line).metrics as string;
    }
    throw new Error(`replica ${identity} exited before it started`);
  })();
  const r = { identity, child, metricsUrl, spawnedAt: performance.now() };
  env.replicas.push(r);
  return r;
}

async function stopEnv(env: Env): Promise<void> {
  for (const r of env.replicas) {
    try {
      r.child.kill("SIGKILL");
    } catch { /* exited */ }
    await r.child.status;
    await r.child.stdout.cancel().catch(() => {});
  }
  env.admin.close();
  await env.server.stop();
  await Deno.remove(env.dir, { recursive: true });
}

function holders(env: Env): string[] {
  return [...Array(BUCKETS).keys()].map((b) => {
    try {
      const lease = env.server.store.get(CoreTypes.Lease, `kubeop-bucket-${b}`, { namespace: BENCH_NS }) as
        & KubeObject
        & {
          spec?: { holderIdentity?: string };
        };
      return lease.spec?.holderIdentity ?? "";
    } catch {
      return "";
    }
  });
}

/** Waits until the buckets are split floor/ceil(B/N) among exactly `ids`. */
async function balanced(env: Env, ids: string[], timeoutMs = 120_000): Promise<number> {
  const deadline = performance.now() + timeoutMs;
  while (performance.now() < deadline) {
    const held = holders(env);
    const counts = ids.map((id) => held.filter((h) => h === id).length);
    if (held.every((h) => ids.includes(h)) && counts.every((c) => c >= Math.floor(BUCKETS / ids.length))) {
      return performance.now();
    }
    await sleep(50);
  }
  throw new Error(`buckets not balanced over ${ids.join(",")} within ${timeoutMs} ms: ${holders(env).join(",")}`);
}

/** Sets `data.want` of the given ConfigMaps to `want` (straight into the store). */
function bump(env: Env, indexes: number[], want: string): void {
  for (const i of indexes) {
    const cm = env.server.store.get(CoreTypes.ConfigMap, `cm-${i}`, { namespace: BENCH_NS }) as KubeObject & {
      data: Record<string, string>;
    };
    env.server.store.update(CoreTypes.ConfigMap, { ...cm, data: { ...cm.data, want } }, {
      namespace: BENCH_NS,
      name: `cm-${i}`,
    });
  }
}

async function converged(env: Env, indexes: number[], want: string, timeoutMs = 180_000): Promise<number> {
  const deadline = performance.now() + timeoutMs;
  while (performance.now() < deadline) {
    const left = indexes.filter((i) => {
      const cm = env.server.store.get(CoreTypes.ConfigMap, `cm-${i}`, { namespace: BENCH_NS }) as KubeObject;
      return cm.metadata.annotations?.[DONE_ANNOTATION] !== want;
    });
    if (left.length === 0) return performance.now();
    await sleep(20);
  }
  throw new Error(`ConfigMaps not converged to ${want} within ${timeoutMs} ms`);
}

/** Per resource (configmaps, secrets): watch bytes and cached objects of one replica. */
async function scrape(r: Replica): Promise<Record<string, { bytes: number; cached: number }>> {
  const text = await (await fetch(`${await r.metricsUrl}/metrics`)).text();
  const value = (metric: string, resource: string) => {
    const line = text.split("\n").find((l) => l.startsWith(`${metric}{`) && l.includes(`resource="${resource}"`));
    return line ? Number(line.slice(line.lastIndexOf(" ") + 1)) : 0;
  };
  const out: Record<string, { bytes: number; cached: number }> = {};
  for (const res of ["configmaps", "secrets"]) {
    out[res] = { bytes: value("kubeop_watch_bytes_total", res), cached: value("kubeop_cache_objects", res) };
  }
  return out;
}

const all = [...Array(OBJECTS).keys()];

/** One scaling run: N replicas, balanced, then every ConfigMap bumped; seconds to converge and per-replica costs. */
async function scalingRun(replicas: number, serverSide: boolean) {
  const env = await startEnv(serverSide);
  try {
    const ids = [...Array(replicas).keys()].map((i) => `r${i}`);
    for (const id of ids) spawnReplica(env, id);
    await Promise.all(env.replicas.map((r) => r.metricsUrl));
    await balanced(env, ids);
    await sleep(1_000); // gained buckets list their slices
    const before = await Promise.all(env.replicas.map(scrape));
    const t0 = performance.now();
    bump(env, all, "2");
    const seconds = (await converged(env, all, "2") - t0) / 1000;
    const after = await Promise.all(env.replicas.map(scrape));
    const per = env.replicas.map((r, i) => ({
      replica: r.identity,
      buckets: holders(env).filter((h) => h === r.identity).length,
      primaryCached: after[i].configmaps.cached,
      primaryBytesTotal: after[i].configmaps.bytes,
      primaryBytesDuringBump: after[i].configmaps.bytes - before[i].configmaps.bytes,
      childCached: after[i].secrets.cached,
      childBytesTotal: after[i].secrets.bytes,
    }));
    const heaviest = Math.max(...ids.map((id) => {
      const held = new Set(holders(env).map((h, b) => h === id ? b : -1));
      return env.uids.filter((u) => held.has(bucketOf(shardHash(u), BUCKETS))).length;
    }));
    return { seconds, per, heaviestShare: round(heaviest / OBJECTS) };
  } finally {
    await stopEnv(env);
  }
}

const mean = (xs: number[]) => round(xs.reduce((a, b) => a + b, 0) / xs.length);

if (!only || only === "scaling") {
  const runs: Record<string, Awaited<ReturnType<typeof scalingRun>>> = {};
  for (const serverSide of [true, false]) {
    for (const n of [1, 2, 3]) {
      runs[`${n}-${serverSide}`] = await scalingRun(n, serverSide);
      console.error(`scaling replicas=${n} serverSide=${serverSide}: ${JSON.stringify(runs[`${n}-${serverSide}`])}`);
    }
  }
  const base = runs["1-true"].seconds;
  for (const n of [1, 2, 3]) {
    const on = runs[`${n}-true`];
    const off = runs[`${n}-false`];
    await recordResult({
      name: `shard-scaling-${n}`,
      params: { replicas: n, objects: OBJECTS, reconcileDelayMs: DELAY_MS, buckets: BUCKETS, target: "fake" },
      unit: "s",
      kubeop: round(on.seconds),
      peer: n === 1 ? null : round(base),
      peerName: n === 1 ? null : "1 replica",
      ratio: n === 1 ? null : higherIsBetter(base, on.seconds),
      extra: {
        heaviestReplicaShareOfKeys: on.heaviestShare,
        clientSideSlicesSeconds: round(off.seconds),
        serverSideSlices: on.per,
        clientSideSlices: off.per,
        meanPrimaryBytesDuringBump: {
          serverSide: mean(on.per.map((p) => p.primaryBytesDuringBump)),
          clientSide: mean(off.per.map((p) => p.primaryBytesDuringBump)),
        },
        meanPrimaryCached: {
          serverSide: mean(on.per.map((p) => p.primaryCached)),
          clientSide: mean(off.per.map((p) => p.primaryCached)),
        },
        meanChildCached: mean(on.per.map((p) => p.childCached)),
      },
    });
  }
}

if (!only || only === "kill") {
  const env = await startEnv(true);
  try {
    const ids = ["r0", "r1", "r2"];
    for (const id of ids) spawnReplica(env, id);
    await Promise.all(env.replicas.map((r) => r.metricsUrl));
    await balanced(env, ids);
    await sleep(1_000);
    const victim = env.replicas[0];
    const held = new Set(holders(env).map((h, b) => h === victim.identity ? b : -1));
    const keys = all.filter((i) => held.has(bucketOf(shardHash(env.uids[i]), BUCKETS)));
    const t0 = performance.now();
    victim.child.kill("SIGKILL");
    bump(env, keys, "3");
    const [done, rebalanced] = await Promise.all([converged(env, keys, "3"), balanced(env, ["r1", "r2"])]);
    await recordResult({
      name: "shard-rebalance-kill",
      params: { replicas: 3, objects: OBJECTS, buckets: BUCKETS, leaseSeconds: LEASE_SECONDS, target: "fake" },
      unit: "s",
      kubeop: round((done - t0) / 1000),
      peer: null,
      peerName: null,
      ratio: null,
      extra: {
        victimBuckets: held.size - 1,
        victimKeys: keys.length,
        bucketsRebalancedSeconds: round((rebalanced - t0) / 1000),
      },
    });
  } finally {
    await stopEnv(env);
  }
}

if (!only || only === "add") {
  const env = await startEnv(true);
  try {
    for (const id of ["r0", "r1"]) spawnReplica(env, id);
    await Promise.all(env.replicas.map((r) => r.metricsUrl));
    await balanced(env, ["r0", "r1"]);
    await sleep(1_000);
    // Steady work while the third replica joins: every key is bumped at the add.
    const added = spawnReplica(env, "r2");
    const t0 = added.spawnedAt;
    bump(env, all, "4");
    await added.metricsUrl;
    const started = performance.now();
    const share = await balanced(env, ["r0", "r1", "r2"]);
    await converged(env, all, "4");
    const firstWrite = env.firstWrite.get("r2");
    await recordResult({
      name: "shard-rebalance-add",
      params: { replicas: "2→3", objects: OBJECTS, buckets: BUCKETS, leaseSeconds: LEASE_SECONDS, target: "fake" },
      unit: "s",
      kubeop: round(((firstWrite ?? NaN) - t0) / 1000),
      peer: null,
      peerName: null,
      ratio: null,
      extra: {
        measured: "process spawn → the added replica's first write",
        processStartSeconds: round((started - t0) / 1000),
        holdsItsShareSeconds: round((share - t0) / 1000),
        firstWriteAfterStartSeconds: firstWrite ? round((firstWrite - started) / 1000) : null,
      },
    });
  } finally {
    await stopEnv(env);
  }
}
