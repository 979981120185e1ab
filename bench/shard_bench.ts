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
 * `--target=real`: the same against kube-apiserver v1.37.2 (testing/envtest/real_control_plane.ts, ShardedListAndWatch on; a
 * second kube-apiserver over the same etcd with it off for the client-side runs); rows get `-real` appended. The
 * add scenario runs on the fake only (its first-write time comes from the fake's request log).
 *
 * `--buckets=N` (default 16, as `kubeop run`) appends `-bN` to the row names.
 *
 * Run: deno run --allow-all bench/shard_bench.ts [--only=scaling|kill|add] [--target=fake|real] [--buckets=N]
 * @module
 */
import { bucketOf, shardHash } from "../runtime/apimachinery/shard_selector.ts";
import { higherIsBetter, recordResult, round } from "./result.ts";
import {
  balanced,
  bump,
  converged,
  type Env,
  fakeEnv,
  holders,
  realEnv,
  realPlane,
  scrape,
  spawnReplica,
  stopEnv,
  type Workload,
} from "./shard_bench_env.ts";

const bucketsArg = Deno.args.find((a) => a.startsWith("--buckets="))?.slice(10);
const WORKLOAD: Workload = { objects: 300, delayMs: 50, buckets: Number(bucketsArg ?? 16), leaseSeconds: 15 };
const { objects: OBJECTS, buckets: BUCKETS, leaseSeconds: LEASE_SECONDS, delayMs: DELAY_MS } = WORKLOAD;
const only = Deno.args.find((a) => a.startsWith("--only="))?.slice(7);
const target = Deno.args.find((a) => a.startsWith("--target="))?.slice(9) ?? "fake";
const suffix = (target === "real" ? "-real" : "") + (BUCKETS === 16 ? "" : `-b${BUCKETS}`);
const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));
const real = target === "real" ? await realPlane() : undefined;
let runs = 0;
/** A fresh environment on the target with ShardedListAndWatch `serverSide`. */
async function startEnv(serverSide: boolean): Promise<Env> {
  if (!real) return await fakeEnv(serverSide, WORKLOAD);
  return await realEnv(serverSide ? real.gateOn : await real.gateOff(), `bench-${++runs}`, WORKLOAD);
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
    await bump(env, all, "2");
    const seconds = (await converged(env, all, "2") - t0) / 1000;
    const after = await Promise.all(env.replicas.map(scrape));
    const finalHolders = await holders(env);
    const per = env.replicas.map((r, i) => ({
      replica: r.identity,
      buckets: finalHolders.filter((h) => h === r.identity).length,
      primaryCached: after[i].configmaps.cached,
      primaryBytesTotal: after[i].configmaps.bytes,
      primaryBytesDuringBump: after[i].configmaps.bytes - before[i].configmaps.bytes,
      childCached: after[i].secrets.cached,
      childBytesTotal: after[i].secrets.bytes,
    }));
    const heaviest = Math.max(...ids.map((id) => {
      const held = new Set(finalHolders.map((h, b) => h === id ? b : -1));
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
      name: `shard-scaling-${n}${suffix}`,
      params: { replicas: n, objects: OBJECTS, reconcileDelayMs: DELAY_MS, buckets: BUCKETS, target },
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
    const held = new Set((await holders(env)).flatMap((h, b) => h === victim.identity ? [b] : []));
    const keys = all.filter((i) => held.has(bucketOf(shardHash(env.uids[i]), BUCKETS)));
    const t0 = performance.now();
    victim.child.kill("SIGKILL");
    await bump(env, keys, "3");
    const [done, rebalanced] = await Promise.all([converged(env, keys, "3"), balanced(env, ["r1", "r2"])]);
    await recordResult({
      name: `shard-rebalance-kill${suffix}`,
      params: { replicas: 3, objects: OBJECTS, buckets: BUCKETS, leaseSeconds: LEASE_SECONDS, target },
      unit: "s",
      kubeop: round((done - t0) / 1000),
      peer: null,
      peerName: null,
      ratio: null,
      extra: {
        victimBuckets: held.size,
        victimKeys: keys.length,
        bucketsRebalancedSeconds: round((rebalanced - t0) / 1000),
      },
    });
  } finally {
    await stopEnv(env);
  }
}

if ((!only || only === "add") && target === "fake") {
  const env = await startEnv(true);
  try {
    for (const id of ["r0", "r1"]) spawnReplica(env, id);
    await Promise.all(env.replicas.map((r) => r.metricsUrl));
    await balanced(env, ["r0", "r1"]);
    await sleep(1_000);
    // Steady work while the third replica joins: every key is bumped at the add.
    const added = spawnReplica(env, "r2");
    const t0 = added.spawnedAt;
    await bump(env, all, "4");
    await added.metricsUrl;
    const started = performance.now();
    const share = await balanced(env, ["r0", "r1", "r2"]);
    await converged(env, all, "4");
    const firstWrite = env.firstWrite.get("r2");
    await recordResult({
      name: `shard-rebalance-add${suffix}`,
      params: { replicas: "2→3", objects: OBJECTS, buckets: BUCKETS, leaseSeconds: LEASE_SECONDS, target },
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

await real?.plane.stop();
