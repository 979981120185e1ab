/**
 * Two kubeop bundles side by side on one real kube-apiserver (`deno run -A bench/real/ab.ts A.js B.js`; either may be
 * `controller-runtime` for the peer): converge (time and operator CPU, `--only converge`), startup
 * (spawn → /readyz and → first reconcile, the two bundles alternating) and where the memory goes (after a forced GC
 * at N, 2N and 4N converged Machines: RSS, V8's committed and used heap per space, external memory). A before/after
 * tool for the startup and memory-per-object rows of bench:real; prints JSON lines, records nothing.
 *
 * Flags: `--reps N` (startup trials per bundle, default 5), `--mem-reps N` (memory runs per bundle, default 1),
 * `--machines N` (default 200), `--sizes a,b,c,…` (memory points, default N,2N,4N as in bench:real), `--only startup,memory`,
 * `--v8-flags-b F` (extra `--v8-flags=` for bundle B only, to try a V8 setting against the same bundle), `--env-b K=V`
 * (an environment variable for B only, e.g. an allocator setting).
 * Expects KUBEOP_K8S_BIN and KUBEOP_PEER_DIR like bench/real/main.ts (scripts/bench-real.sh prints neither; run
 * `bash scripts/k8s-bin.sh` and `bash bench/real/build_peer.sh` for them).
 * @module
 */

import { median, round } from "../result.ts";
import { createMachines, createNamespace, machineConverged, startBenchCluster, waitForMachines } from "./cluster.ts";
import { openInspector } from "./inspector.ts";
import { converge } from "./scenarios.ts";
import {
  cpuSeconds,
  forceGc,
  killAll,
  type OperatorProcess,
  rssBytes,
  smapsSummary,
  startOperator,
  waitReady,
} from "./operators.ts";

function flag(name: string): string | undefined {
  const i = Deno.args.indexOf(`--${name}`);
  return i >= 0 ? Deno.args[i + 1] : undefined;
}

const [bundleA, bundleB] = Deno.args.filter((a, i) => !a.startsWith("--") && !Deno.args[i - 1]?.startsWith("--"));
if (!bundleA || !bundleB) throw new Error("usage: ab.ts A.js B.js [--reps N] [--machines N] [--only startup,memory]");
const REPS = Number(flag("reps") ?? 5);
const N = Number(flag("machines") ?? 200);
const ONLY = (flag("only") ?? "startup,memory").split(",");
/** Cache sizes (Machines) the memory run measures at; the slope is taken between the 2nd and 3rd like bench:real's. */
const SIZES = flag("sizes")?.split(",").map(Number) ?? [N, 2 * N, 4 * N];
const V8_FLAGS_B = flag("v8-flags-b");
const ENV_B = flag("env-b");
const SWITCHES = 3;
/** In place of a bundle: the controller-runtime peer (KUBEOP_PEER_DIR). */
const PEER = "controller-runtime";
const log = (msg: string) => console.error(`ab: ${msg}`);
const logDir = await Deno.makeTempDir({ prefix: "kubeop-ab-" });

const bc = await startBenchCluster(Deno.env.get("KUBEOP_K8S_BIN"));
for (const signal of ["SIGINT", "SIGTERM"] as const) {
  Deno.addSignalListener(signal, async () => {
    killAll();
    await bc.stop();
    Deno.exit(130);
  });
}

function launch(bundle: string, label: string, ns: string, gcPort?: number): OperatorProcess {
  const v8 = label === "B" && V8_FLAGS_B ? V8_FLAGS_B : undefined;
  const kind = bundle === PEER ? "controller-runtime" : "kubeop";
  return startOperator(kind, { bundle, peerDir: Deno.env.get("KUBEOP_PEER_DIR") }, {
    kubeconfig: bc.real.kubeconfigPath,
    namespace: ns,
    maxConcurrentReconciles: 4,
    logPath: `${logDir}/${label}-${ns}.log`,
    gcPort,
    v8Flags: v8,
    env: label === "B" && ENV_B ? Object.fromEntries([ENV_B.split("=", 2) as [string, string]]) : undefined,
  });
}

const reconciled = (name: string) => (m: Parameters<typeof machineConverged>[0]) =>
  m.metadata.name === name && m.status?.observedGeneration !== undefined;

try {
  if (ONLY.includes("converge")) {
    const ms: Record<string, number[]> = { A: [], B: [] };
    const cpu: Record<string, number[]> = { A: [], B: [] };
    for (let rep = 0; rep < REPS; rep++) {
      for (
        const [label, bundle] of rep % 2 === 0 ? [["A", bundleA], ["B", bundleB]] : [["B", bundleB], ["A", bundleA]]
      ) {
        const kind = bundle === PEER ? "controller-runtime" : "kubeop";
        const env = { bc, art: { bundle, peerDir: Deno.env.get("KUBEOP_PEER_DIR") }, concurrency: 4, logDir };
        const c = await converge(env, kind, N);
        ms[label].push(c.ms);
        cpu[label].push(c.cpuS);
        log(`converge ${label}: ${round(c.ms)} ms, ${c.cpuS} CPU s`);
      }
    }
    console.log(JSON.stringify({
      converge: {
        machines: N,
        msMedian: { A: round(median(ms.A)), B: round(median(ms.B)) },
        cpuSecondsMedian: { A: median(cpu.A), B: median(cpu.B) },
        ms,
        cpu,
      },
    }));
  }
  if (ONLY.includes("startup")) {
    const ns = "ab-start";
    await createNamespace(bc.client, ns);
    const existing = Math.floor(N / 4);
    const seed = launch(bundleA, "A", ns);
    await createMachines(bc.client, ns, existing, { switches: SWITCHES });
    await waitForMachines(bc.client, ns, existing, machineConverged, 600_000);
    await seed.stop();
    const ready: Record<string, number[]> = { A: [], B: [] };
    const first: Record<string, number[]> = { A: [], B: [] };
    const cpuAtReady: Record<string, number[]> = { A: [], B: [] };
    let next = existing;
    for (let rep = 0; rep < REPS; rep++) {
      for (
        const [label, bundle] of rep % 2 === 0 ? [["A", bundleA], ["B", bundleB]] : [["B", bundleB], ["A", bundleA]]
      ) {
        const name = `m-${String(next).padStart(5, "0")}`;
        await createMachines(bc.client, ns, 1, {}, { first: next++ });
        const watching = waitForMachines(bc.client, ns, 1, reconciled(name), 120_000);
        await new Promise((r) => setTimeout(r, 200)); // the harness's watch opens before the clock starts (not timed)
        const op = launch(bundle, label, ns);
        try {
          ready[label].push((await waitReady(op)) - op.startedAt);
          cpuAtReady[label].push(cpuSeconds(op.pid) * 1000); // CPU ms spawn → ready: steadier than wall time under load
          first[label].push((await watching) - op.startedAt);
        } finally {
          await op.stop();
        }
        log(
          `startup ${label}: ready ${round(ready[label].at(-1)!)} ms, first ${round(first[label].at(-1)!)} ms, CPU ${
            cpuAtReady[label].at(-1)
          } ms`,
        );
      }
    }
    console.log(JSON.stringify({
      startup: {
        existing,
        readyMedian: { A: round(median(ready.A)), B: round(median(ready.B)) },
        firstMedian: { A: round(median(first.A)), B: round(median(first.B)) },
        cpuMsAtReadyMedian: { A: median(cpuAtReady.A), B: median(cpuAtReady.B) },
        cpuAtReady,
        ready,
        first,
      },
    }));
  }
  if (ONLY.includes("memory")) {
    const memReps = Number(flag("mem-reps") ?? 1);
    for (let rep = 0; rep < memReps; rep++) {
      for (
        const [label, bundle] of rep % 2 === 0 ? [["A", bundleA], ["B", bundleB]] : [["B", bundleB], ["A", bundleA]]
      ) {
        const ns = `ab-mem-${label.toLowerCase()}-${rep}`;
        await createNamespace(bc.client, ns);
        const gcPort = freePort();
        const op = launch(bundle, label, ns, gcPort);
        try {
          await waitReady(op);
          let made = 0;
          const points: Record<string, unknown>[] & { machines: number }[] = [];
          for (const size of SIZES) {
            await createMachines(bc.client, ns, size - made, { switches: SWITCHES }, { first: made });
            made = size;
            await waitForMachines(bc.client, ns, size, machineConverged, 600_000);
            const heapUsed = await forceGc(op, gcPort);
            const detail = op.kind === "kubeop" ? await inspectMemory(gcPort) : {};
            points.push({ machines: size, rss: rssBytes(op.pid), heapUsed, smaps: smapsSummary(op.pid), ...detail });
          }
          const objects = (points[2].machines - points[1].machines) * (1 + SWITCHES);
          const slope = (f: (p: Record<string, unknown>) => number) => round((f(points[2]) - f(points[1])) / objects);
          console.log(JSON.stringify({
            memory: label,
            bundle,
            perObject: {
              rss: slope((p) => p.rss as number),
              heapUsed: slope((p) => p.heapUsed as number),
              heapTotal: slope((p) => (p.memoryUsage as Record<string, number> | undefined)?.heapTotal ?? NaN),
              external: slope((p) => (p.memoryUsage as Record<string, number> | undefined)?.external ?? NaN),
              mallocHeap: slope((p) => (p.smaps as Record<string, number>)["[heap]"] ?? 0),
              anonymous: slope((p) => (p.smaps as Record<string, number>)["[anon]"] ?? 0),
            },
            points,
          }));
        } finally {
          await op.stop();
        }
      }
    }
  }
} finally {
  killAll();
  await bc.stop();
}

function freePort(): number {
  const l = Deno.listen({ hostname: "127.0.0.1", port: 0 });
  const port = (l.addr as Deno.NetAddr).port;
  l.close();
  return port;
}

/** Deno.memoryUsage() and V8's per-space heap statistics of the process behind inspector `port`. */
async function inspectMemory(port: number): Promise<Record<string, unknown>> {
  const session = await openInspector(port);
  const evaluate = async (expression: string) => {
    const result = await session.call("Runtime.evaluate", { expression, returnByValue: true, awaitPromise: true });
    const value = (result.result as { value?: string } | undefined)?.value;
    return value ? JSON.parse(value) : result;
  };
  try {
    const memoryUsage = await evaluate("JSON.stringify(Deno.memoryUsage())");
    const spaces = await evaluate(
      `import("node:v8").then((v8) => JSON.stringify(Object.fromEntries(v8.getHeapSpaceStatistics().map((s) =>
        [s.space_name, { size: s.space_size, used: s.space_used_size, physical: s.physical_space_size }]))))`,
    );
    return { memoryUsage, spaces };
  } finally {
    session.close();
  }
}
