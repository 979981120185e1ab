/**
 * One measurement each, for one operator on one running {@link BenchCluster} (each in its own namespace):
 * converge, raw-write-limit, memory-per-object, startup, failover. The runner (bench/real/main.ts) repeats them on
 * fresh clusters, alternating the operators' order.
 * @module
 */

import { countRequests, type RequestCounts } from "./audit.ts";
import { type BenchCluster, createMachines, createNamespace, machineConverged, waitForMachines } from "./cluster.ts";
import {
  cpuSeconds,
  forceGc,
  type OperatorArtefacts,
  type OperatorKind,
  type OperatorProcess,
  peakRssBytes,
  rssBytes,
  startOperator,
  USER_AGENT_PREFIX,
  waitReady,
} from "./operators.ts";

/** What every scenario needs. */
export interface ScenarioEnv {
  /** The cluster of this repetition. */
  bc: BenchCluster;
  /** Bundle and peer binaries. */
  art: OperatorArtefacts;
  /** Workers on both sides (and the raw writer's concurrency). */
  concurrency: number;
  /** Where operator logs go. */
  logDir: string;
}

const SWITCHES = 3;
const converged = (m: Parameters<typeof machineConverged>[0]) => machineConverged(m);
let nsSeq = 0;

async function freshNamespace(env: ScenarioEnv, prefix: string): Promise<string> {
  const ns = `${prefix}-${nsSeq++}`;
  await createNamespace(env.bc.client, ns);
  return ns;
}

function launch(env: ScenarioEnv, kind: OperatorKind, ns: string, extra: Partial<Parameters<typeof startOperator>[2]>) {
  return startOperator(kind, env.art, {
    kubeconfig: env.bc.real.kubeconfigPath,
    namespace: ns,
    maxConcurrentReconciles: env.concurrency,
    logPath: `${env.logDir}/${kind}-${ns}.log`,
    ...extra,
  });
}

async function withLog<T>(env: ScenarioEnv, op: OperatorProcess, ns: string, fn: () => Promise<T>): Promise<T> {
  try {
    return await fn();
  } catch (err) {
    const log = await Deno.readTextFile(`${env.logDir}/${op.kind}-${ns}.log`).catch(() => "");
    throw new Error(`${op.kind} in ${ns}: ${(err as Error).message}\n${log.slice(-2000)}`);
  }
}

/** One converge run. */
export interface ConvergeSample {
  /** First Machine create → every Machine converged (ms). */
  ms: number;
  /** Operator CPU seconds over the run (user + system, start included). */
  cpuS: number;
  /** Peak RSS of the operator (VmHWM, bytes). */
  peakRssBytes: number;
  /** The operator's requests in the namespace (audit log), after it went quiet. */
  requests: RequestCounts;
}

/** Start the operator, wait for /readyz, create `n` Machines × 3 Switches at once, time until all converged. */
export async function converge(
  env: ScenarioEnv,
  kind: OperatorKind,
  n: number,
  throttle?: { qps: number; burst: number },
): Promise<ConvergeSample> {
  const ns = await freshNamespace(env, "conv");
  const op = launch(env, kind, ns, throttle ?? {});
  try {
    return await withLog(env, op, ns, async () => {
      await waitReady(op);
      const watching = waitForMachines(env.bc.client, ns, n, converged, 600_000);
      const t0 = performance.now();
      await createMachines(env.bc.client, ns, n, { switches: SWITCHES });
      const end = await watching;
      const sample = { ms: end - t0, cpuS: cpuSeconds(op.pid), peakRssBytes: peakRssBytes(op.pid) };
      return { ...sample, requests: await quietCounts(env, kind, ns) };
    });
  } finally {
    await op.stop();
  }
}

/** The operator's request counts in `ns` once they stopped changing for 1 s (bounded by 30 s). */
async function quietCounts(env: ScenarioEnv, kind: OperatorKind, ns: string): Promise<RequestCounts> {
  const deadline = performance.now() + 30_000;
  let last = await countRequests(env.bc.auditPath, USER_AGENT_PREFIX[kind], ns);
  let since = performance.now();
  while (performance.now() - since < 1_000 && performance.now() < deadline) {
    await new Promise((r) => setTimeout(r, 200)); // quiescence of another process: bounded by the deadline
    const now = await countRequests(env.bc.auditPath, USER_AGENT_PREFIX[kind], ns);
    if (now.total !== last.total) since = performance.now();
    last = now;
  }
  return last;
}

/** Warms a fresh kube-apiserver for the converge runs (unmeasured): the raw writer over `n` Machines. */
export async function warmUp(env: ScenarioEnv, n: number): Promise<void> {
  await rawWriteLimit(env, n);
}

/** The raw client-go writer over `n` pre-created Machines: its own time (ms) and write count. */
export async function rawWriteLimit(env: ScenarioEnv, n: number): Promise<{ ms: number; writes: number }> {
  if (!env.art.peerDir) throw new Error("raw writer not built: run bench/real/build_peer.sh");
  const ns = await freshNamespace(env, "raw");
  await createMachines(env.bc.client, ns, n, { switches: SWITCHES });
  const out = await new Deno.Command(`${env.art.peerDir}/rawwrite`, {
    args: [
      "--kubeconfig",
      env.bc.real.kubeconfigPath,
      "--namespace",
      ns,
      "--concurrency",
      String(env.concurrency),
      "--switches",
      String(SWITCHES),
    ],
    stdout: "piped",
    stderr: "piped",
  }).output();
  if (out.code !== 0) throw new Error(`rawwrite failed: ${new TextDecoder().decode(out.stderr).slice(-2000)}`);
  const r = JSON.parse(new TextDecoder().decode(out.stdout).trim().split("\n").pop()!);
  return { ms: r.ms, writes: r.writes };
}

/**
 * RSS and heap (after a forced GC) at two cache sizes: the slope per cached object (a Machine or a Switch). A first
 * `warm` Machines converge unmeasured, so that code warm-up (JIT, allocator arenas, connection buffers) is not
 * counted as per-object memory.
 */
export async function memoryPerObject(
  env: ScenarioEnv,
  kind: OperatorKind,
  warm: number,
  small: number,
  large: number,
): Promise<{ rssPerObject: number; heapPerObject: number; rss: number[]; heap: number[] }> {
  const ns = await freshNamespace(env, "mem");
  const gcPort = freePort();
  const op = launch(env, kind, ns, { gcPort });
  try {
    return await withLog(env, op, ns, async () => {
      await waitReady(op);
      const rss: number[] = [];
      const heap: number[] = [];
      let made = 0;
      for (const size of [warm, small, large]) {
        await createMachines(env.bc.client, ns, size - made, { switches: SWITCHES }, { first: made });
        made = size;
        await waitForMachines(env.bc.client, ns, size, converged, 600_000);
        const h = await forceGc(op, gcPort);
        if (size === warm) continue;
        heap.push(h);
        rss.push(rssBytes(op.pid));
      }
      const objects = (large - small) * (1 + SWITCHES);
      return { rssPerObject: (rss[1] - rss[0]) / objects, heapPerObject: (heap[1] - heap[0]) / objects, rss, heap };
    });
  } finally {
    await op.stop();
  }
}

function freePort(): number {
  const l = Deno.listen({ hostname: "127.0.0.1", port: 0 });
  const port = (l.addr as Deno.NetAddr).port;
  l.close();
  return port;
}

/**
 * Process start → /readyz (caches synced) and → first reconcile (a waiting Machine's status written), with
 * `existing` converged Machines (× 3 Switches) already in the namespace for the caches to load.
 */
export async function startup(
  env: ScenarioEnv,
  kind: OperatorKind,
  existing: number,
): Promise<{ readyMs: number; firstReconcileMs: number }> {
  const ns = await freshNamespace(env, "start");
  if (existing > 0) {
    const seed = launch(env, kind, ns, {});
    try {
      await withLog(env, seed, ns, async () => {
        await createMachines(env.bc.client, ns, existing, { switches: SWITCHES });
        await waitForMachines(env.bc.client, ns, existing, converged, 600_000);
      });
    } finally {
      await seed.stop();
    }
  }
  await createMachines(env.bc.client, ns, 1, {}, { first: existing });
  const name = `m-${String(existing).padStart(5, "0")}`;
  const reconciled = (m: Parameters<typeof machineConverged>[0]) =>
    m.metadata.name === name && m.status?.observedGeneration !== undefined;
  const watching = waitForMachines(env.bc.client, ns, 1, reconciled, 120_000);
  await new Promise((r) => setTimeout(r, 200)); // let the harness's watch open before the clock starts (not timed)
  const op = launch(env, kind, ns, {});
  try {
    return await withLog(env, op, ns, async () => {
      const ready = await waitReady(op);
      const first = await watching;
      return { readyMs: ready - op.startedAt, firstReconcileMs: first - op.startedAt };
    });
  } finally {
    await op.stop();
  }
}

/**
 * Leader handover: replica A leads (has reconciled), standby B is ready; A gets `signal` (SIGTERM: graceful, the
 * Lease released; SIGKILL: crash, the Lease expires after 15 s); a new Machine is created at once; the time until
 * B has reconciled it.
 */
export async function failover(env: ScenarioEnv, kind: OperatorKind, signal: "SIGTERM" | "SIGKILL"): Promise<number> {
  const ns = await freshNamespace(env, signal === "SIGTERM" ? "fo-term" : "fo-kill");
  const reconciled = (name: string) => (m: Parameters<typeof machineConverged>[0]) =>
    m.metadata.name === name && m.status?.observedGeneration !== undefined;
  const leaderElectionId = `machine-${kind}`;
  const a = launch(env, kind, ns, { leaderElectionId });
  let b: OperatorProcess | undefined;
  try {
    return await withLog(env, a, ns, async () => {
      await createMachines(env.bc.client, ns, 1, {});
      await waitReady(a);
      await waitForMachines(env.bc.client, ns, 1, reconciled("m-00000"), 120_000);
      b = launch(env, kind, ns, { leaderElectionId, logPath: `${env.logDir}/${kind}-${ns}-b.log` });
      await waitReady(b);
      const watching = waitForMachines(env.bc.client, ns, 1, reconciled("m-00001"), 120_000);
      const t0 = performance.now();
      await a.stop(signal);
      await createMachines(env.bc.client, ns, 1, {}, { first: 1 });
      return await watching - t0;
    });
  } finally {
    await a.stop();
    await b?.stop();
  }
}
