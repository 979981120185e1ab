/**
 * The environment of the sharding benchmarks (bench/shard_bench.ts): a target API server — the fake (in this
 * process; objects read and written straight in its store) or a real kube-apiserver v1.37 (testing/
 * real_control_plane.ts; read and written through an admin client) — with ShardedListAndWatch on or off, the workload
 * (ConfigMaps with one owned Secret each), replica processes (bench/shard_replica.ts) and what is read back: bucket
 * Lease holders, convergence, and each replica's watch bytes and cache sizes from its /metrics.
 * @module
 */
import { KubeClient } from "../runtime/client/client.ts";
import { loadKubeconfigFile } from "../runtime/client/kubeconfig.ts";
import { CoreTypes, type KubeObject, type ResourceType } from "../runtime/types.ts";
import { startFakeApiServer } from "../testing/mod.ts";
import type { RealControlPlane } from "../testing/envtest/real_control_plane.ts";
import { DONE_ANNOTATION } from "./shard_replica.ts";

const REPLICA = new URL("./shard_replica.ts", import.meta.url).pathname;
const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

/** The shape of every run. */
export interface Workload {
  objects: number;
  delayMs: number;
  buckets: number;
  leaseSeconds: number;
}

/** One replica process. */
export interface Replica {
  identity: string;
  child: Deno.ChildProcess;
  metricsUrl: Promise<string>;
  spawnedAt: number;
}

/** Reads and writes of a target, by the same names on the fake and the real server. */
interface Ops {
  create(rt: ResourceType, body: KubeObject): Promise<KubeObject>;
  listConfigMaps(): Promise<KubeObject[]>;
  listLeases(): Promise<KubeObject[]>;
  updateWant(name: string, want: string): Promise<void>;
  close(): Promise<void>;
}

/** A benchmark environment: one namespace (objects and the ring's Leases) on one server. */
export interface Env {
  ns: string;
  kubeconfig: string;
  uids: string[];
  /** First ConfigMap patch per replica identity (fake target only: its server reports each request). */
  firstWrite: Map<string, number>;
  replicas: Replica[];
  workload: Workload;
  ops: Ops;
}

/** Starts a fake API server with ShardedListAndWatch `serverSide` and the workload in namespace `bench`. */
export async function fakeEnv(serverSide: boolean, workload: Workload): Promise<Env> {
  const server = await startFakeApiServer({ featureGates: { ShardedListAndWatch: serverSide } });
  const dir = await Deno.makeTempDir({ prefix: "kubeop-shard-bench-" });
  const kubeconfig = `${dir}/kubeconfig`;
  await server.writeKubeconfig(kubeconfig);
  const firstWrite = new Map<string, number>();
  server.faults.onRequest((req) => {
    if (req.verb !== "patch" || req.resource !== "configmaps") return;
    const id = req.userAgent.match(/\(([^)]+)\)$/)?.[1];
    if (id && !firstWrite.has(id)) firstWrite.set(id, performance.now());
  });
  const ns = "bench";
  server.store.create(CoreTypes.Namespace, { metadata: { name: ns } });
  const ops: Ops = {
    create: (rt, body) => Promise.resolve(server.store.create(rt, body, { namespace: ns }) as KubeObject),
    listConfigMaps: () =>
      Promise.resolve(server.store.list(CoreTypes.ConfigMap, { namespace: ns }).items as KubeObject[]),
    listLeases: () => Promise.resolve(server.store.list(CoreTypes.Lease, { namespace: ns }).items as KubeObject[]),
    updateWant: (name, want) => {
      const cm = server.store.get(CoreTypes.ConfigMap, name, { namespace: ns }) as KubeObject & { data: object };
      server.store.update(CoreTypes.ConfigMap, { ...cm, data: { ...cm.data, want } }, { namespace: ns, name });
      return Promise.resolve();
    },
    close: async () => {
      await server.stop();
      await Deno.remove(dir, { recursive: true });
    },
  };
  return await populate({ ns, kubeconfig, firstWrite, replicas: [], workload, ops, uids: [] });
}

/** The workload in a fresh namespace `ns` of a real control plane, through the server at `kubeconfig`. */
export async function realEnv(kubeconfig: string, ns: string, workload: Workload): Promise<Env> {
  const admin = new KubeClient({
    config: await loadKubeconfigFile(kubeconfig),
    userAgent: "shard-bench",
    qps: 500,
    burst: 500,
  });
  await admin.create(CoreTypes.Namespace, { metadata: { name: ns } });
  const ops: Ops = {
    create: (rt, body) => admin.create<KubeObject>(rt, body, { namespace: ns }),
    listConfigMaps: async () => (await admin.list<KubeObject>(CoreTypes.ConfigMap, { namespace: ns })).items,
    listLeases: async () => (await admin.list<KubeObject>(CoreTypes.Lease, { namespace: ns })).items,
    updateWant: async (name, want) => {
      await admin.patch(CoreTypes.ConfigMap, name, { data: { want } }, { namespace: ns, type: "merge" });
    },
    close: () => Promise.resolve(admin.close()),
  };
  return await populate({ ns, kubeconfig, firstWrite: new Map(), replicas: [], workload, ops, uids: [] });
}

/** Starts a real control plane for the benchmarks, ShardedListAndWatch on; `gateOff()` adds a server with it off. */
export async function realPlane(): Promise<{ plane: RealControlPlane; gateOn: string; gateOff(): Promise<string> }> {
  const { startRealControlPlane } = await import("../testing/envtest/real_control_plane.ts");
  const plane = await startRealControlPlane({ apiserverArgs: ["--feature-gates=ShardedListAndWatch=true"] });
  let off: Promise<string> | undefined;
  return {
    plane,
    gateOn: plane.kubeconfigPath,
    gateOff: () => off ??= plane.startExtraApiServer(["--feature-gates=ShardedListAndWatch=false"]),
  };
}

/** Creates the ConfigMaps (already done at `want` 1) and one owned Secret each. */
async function populate(env: Env): Promise<Env> {
  const { ns, ops } = env;
  for (let i = 0; i < env.workload.objects; i++) {
    const cm = await ops.create(CoreTypes.ConfigMap, {
      metadata: { name: `cm-${i}`, namespace: ns, annotations: { [DONE_ANNOTATION]: "1" } },
      data: { want: "1", payload: "x".repeat(200) },
    } as KubeObject);
    env.uids.push(cm.metadata.uid!);
    await ops.create(CoreTypes.Secret, {
      metadata: {
        name: `cm-${i}`,
        namespace: ns,
        ownerReferences: [{
          apiVersion: "v1",
          kind: "ConfigMap",
          name: `cm-${i}`,
          uid: cm.metadata.uid!,
          controller: true,
        }],
      },
      data: { token: btoa("y".repeat(200)) },
    } as KubeObject);
  }
  return env;
}

/** Spawns a replica; its metrics URL resolves once it started. */
export function spawnReplica(env: Env, identity: string): Replica {
  const w = env.workload;
  const child = new Deno.Command(Deno.execPath(), {
    args: [
      "run",
      "--allow-all",
      REPLICA,
      env.kubeconfig,
      identity,
      String(w.delayMs),
      String(w.buckets),
      String(w.leaseSeconds),
      env.ns,
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

/** Kills every replica and closes the target's side of the environment. */
export async function stopEnv(env: Env): Promise<void> {
  for (const r of env.replicas) {
    try {
      r.child.kill("SIGKILL");
    } catch { /* exited */ }
    await r.child.status;
    await r.child.stdout.cancel().catch(() => {});
  }
  await env.ops.close();
}

/** The holder of every bucket Lease ("" = none). */
export async function holders(env: Env): Promise<string[]> {
  const leases = await env.ops.listLeases() as (KubeObject & { spec?: { holderIdentity?: string } })[];
  const byName = new Map(leases.map((l) => [l.metadata.name!, l.spec?.holderIdentity ?? ""]));
  return [...Array(env.workload.buckets).keys()].map((b) => byName.get(`kubeop-bucket-${b}`) ?? "");
}

/** Waits until the buckets are split floor/ceil(B/N) among exactly `ids`; resolves with that time. */
export async function balanced(env: Env, ids: string[], timeoutMs = 120_000): Promise<number> {
  const deadline = performance.now() + timeoutMs;
  const floor = Math.floor(env.workload.buckets / ids.length);
  while (performance.now() < deadline) {
    const held = await holders(env);
    const counts = ids.map((id) => held.filter((h) => h === id).length);
    if (held.every((h) => ids.includes(h)) && counts.every((c) => c >= floor)) return performance.now();
    await sleep(100);
  }
  throw new Error(
    `buckets not balanced over ${ids.join(",")} within ${timeoutMs} ms: ${(await holders(env)).join(",")}`,
  );
}

/** Sets `data.want` of the given ConfigMaps (by index) to `want`, 20 at a time. */
export async function bump(env: Env, indexes: number[], want: string): Promise<void> {
  for (let i = 0; i < indexes.length; i += 20) {
    await Promise.all(indexes.slice(i, i + 20).map((n) => env.ops.updateWant(`cm-${n}`, want)));
  }
}

/** Waits until the given ConfigMaps carry `want` in their done annotation; resolves with that time. */
export async function converged(env: Env, indexes: number[], want: string, timeoutMs = 300_000): Promise<number> {
  const deadline = performance.now() + timeoutMs;
  const names = new Set(indexes.map((i) => `cm-${i}`));
  while (performance.now() < deadline) {
    const items = await env.ops.listConfigMaps();
    const left = items.filter((cm) =>
      names.has(cm.metadata.name!) && cm.metadata.annotations?.[DONE_ANNOTATION] !== want
    );
    if (left.length === 0) return performance.now();
    await sleep(50);
  }
  throw new Error(`ConfigMaps not converged to ${want} within ${timeoutMs} ms`);
}

/** Per resource (configmaps, secrets): watch bytes and cached objects of one replica, from its /metrics. */
export async function scrape(r: Replica): Promise<Record<string, { bytes: number; cached: number }>> {
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
