/**
 * `npx deno task bench:real`: kubeop (the bundle, dist/kubeop.js) against its controller-runtime peer
 * (bench/peers/machine-go) and a raw client-go writer on a real kube-apiserver — a fresh etcd + kube-apiserver per
 * repetition, the operators' order alternating. Quick by default (converge 1 000 Machines; memory and startup from
 * 200), `--full` for 10 000 (memory and startup from 1 000), `--smoke` for a tiny run (≤ 3 min, prints but records
 * nothing). Rows (bench/result.ts shape, ratio > 1 = kubeop ahead):
 * converge-machines (vs controller-runtime and vs raw-write-limit), converge-machines-qps20, requests-per-machine,
 * peak-rss (of the converge runs), memory-per-object, startup (→ first reconcile), startup-readyz, failover-graceful,
 * failover-crash.
 *
 * Flags: `--reps N`, `--machines N` (converge), `--memory-machines M` (memory and startup), `--concurrency N` (MaxConcurrentReconciles on both sides, default 4),
 * `--only a,b` (scenario names: converge, raw, qps, memory, startup, failover).
 * Expects KUBEOP_K8S_BIN (scripts/bench-real.sh sets it), the bundle and the peer (built by that script).
 * @module
 */

import { type BenchResult, lowerIsBetter, machineDescription, median, recordResult, round } from "../result.ts";
import { startBenchCluster } from "./cluster.ts";
import { killAll, type OperatorArtefacts, type OperatorKind, shippedRuntime } from "./operators.ts";
import {
  converge,
  type ConvergeSample,
  failover,
  memoryPerObject,
  rawWriteLimit,
  type ScenarioEnv,
  startup,
  warmUp,
} from "./scenarios.ts";

function flag(name: string): string | undefined {
  const i = Deno.args.indexOf(`--${name}`);
  return i >= 0 ? Deno.args[i + 1] : undefined;
}

const smoke = Deno.args.includes("--smoke");
const full = Deno.args.includes("--full") || Deno.env.get("BENCH_FULL") === "1";
const mode = smoke ? "smoke" : full ? "full" : "quick";
/** Converge, raw-write-limit and requests-per-machine: the sizes (quick 1 000, full 10 000 Machines). */
const N = Number(flag("machines") ?? (smoke ? 20 : full ? 10_000 : 1_000));
/** Memory (warm-up to M, slope 2M → 4M) and startup (M/4 existing Machines): quick 200, full 1 000. */
const M = Number(flag("memory-machines") ?? (smoke ? 20 : full ? 1_000 : 200));
const REPS = Number(flag("reps") ?? (smoke ? 1 : 3));
const CONCURRENCY = Number(flag("concurrency") ?? 4);
const THROTTLED_N = smoke ? 10 : full ? 200 : 50;
const ONLY = (flag("only") ?? "converge,raw,qps,memory,startup,failover").split(",");
const ROOT = new URL("../../", import.meta.url).pathname;
const art: OperatorArtefacts = {
  bundle: Deno.env.get("KUBEOP_BUNDLE") ?? `${ROOT}dist/kubeop.js`,
  peerDir: Deno.env.get("KUBEOP_PEER_DIR"),
};
const KINDS: OperatorKind[] = ["kubeop", "controller-runtime"];

type Samples = Record<OperatorKind, number[]>;
const empty = (): Samples => ({ "kubeop": [], "controller-runtime": [] });
const s = {
  converge: empty(),
  convergeCpu: empty(),
  convergePeakRss: empty(),
  requests: empty(),
  requestsWithEvents: empty(),
  writes: empty(),
  throttled: empty(),
  raw: [] as number[],
  memRss: empty(),
  memHeap: empty(),
  memBase: empty(),
  ready: empty(),
  first: empty(),
  graceful: empty(),
  crash: empty(),
};
const lastRequests: Partial<Record<OperatorKind, ConvergeSample["requests"]>> = {};

const log = (msg: string) => console.error(`bench:real: ${msg}`);
let current: { stop(): Promise<void> } | undefined;
for (const signal of ["SIGINT", "SIGTERM"] as const) {
  Deno.addSignalListener(signal, async () => {
    killAll();
    await current?.stop();
    Deno.exit(130);
  });
}
const logDir = await Deno.makeTempDir({ prefix: "kubeop-bench-real-" });
const started = performance.now();

for (let rep = 0; rep < REPS; rep++) {
  const order = rep % 2 === 0 ? KINDS : [...KINDS].reverse();
  log(`repetition ${rep + 1}/${REPS} (${order.join(" then ")}), ${N} Machines, concurrency ${CONCURRENCY}`);
  const bc = await startBenchCluster(Deno.env.get("KUBEOP_K8S_BIN"));
  current = bc;
  const env: ScenarioEnv = { bc, art, concurrency: CONCURRENCY, logDir };
  try {
    await warmUp(env, Math.max(10, Math.floor(N / 4))); // the first writes to a fresh apiserver are slower
    for (const kind of order) {
      if (ONLY.includes("converge")) {
        const c = await converge(env, kind, N);
        s.converge[kind].push(c.ms);
        s.convergeCpu[kind].push(c.cpuS);
        s.convergePeakRss[kind].push(c.peakRssBytes);
        s.requests[kind].push((c.requests.total - c.requests.events) / N);
        s.requestsWithEvents[kind].push(c.requests.total / N);
        s.writes[kind].push(c.requests.writes / N);
        lastRequests[kind] = c.requests;
        log(`  converge ${kind}: ${round(c.ms)} ms, ${round(c.cpuS)} CPU s, ${c.requests.total} requests`);
      }
      if (ONLY.includes("raw") && kind === order[0]) {
        const r = await rawWriteLimit(env, N);
        s.raw.push(r.ms);
        log(`  raw-write-limit: ${round(r.ms)} ms for ${r.writes} writes`);
      }
    }
    for (const kind of order) {
      if (ONLY.includes("qps")) {
        const c = await converge(env, kind, THROTTLED_N, { qps: 20, burst: 30 });
        s.throttled[kind].push(c.ms);
        log(`  converge at QPS 20/burst 30 ${kind}: ${round(c.ms)} ms`);
      }
      if (ONLY.includes("memory")) {
        // Warm-up to N, slope between 2N and 4N: below ~400 Machines kubeop's glibc main arena is still growing to its
        // plateau (a one-off ~20 MB, bench/real/ab.ts smaps), which a slope over N/2..N counted as per-object memory.
        const m = await memoryPerObject(env, kind, M, 2 * M, 4 * M);
        s.memRss[kind].push(m.rssPerObject);
        s.memHeap[kind].push(m.heapPerObject);
        s.memBase[kind].push(m.rss[0]);
        log(`  memory ${kind}: ${round(m.rssPerObject)} B RSS/object, ${round(m.heapPerObject)} B heap/object`);
      }
      if (ONLY.includes("startup")) {
        const st = await startup(env, kind, Math.floor(M / 4));
        s.ready[kind].push(st.readyMs);
        s.first[kind].push(st.firstReconcileMs);
        log(`  startup ${kind}: ready ${round(st.readyMs)} ms, first reconcile ${round(st.firstReconcileMs)} ms`);
      }
      if (ONLY.includes("failover")) {
        s.graceful[kind].push(await failover(env, kind, "SIGTERM"));
        s.crash[kind].push(await failover(env, kind, "SIGKILL"));
        log(
          `  failover ${kind}: graceful ${round(s.graceful[kind].at(-1)!)} ms, crash ${
            round(s.crash[kind].at(-1)!)
          } ms`,
        );
      }
    }
  } finally {
    await bc.stop();
    current = undefined;
  }
}

const params = {
  mode,
  reps: REPS,
  machines: N,
  switchesPerMachine: 3,
  maxConcurrentReconciles: CONCURRENCY,
  clientThrottle: "none on either side (controller-runtime's GetConfig sets QPS -1; kubeop has none by default)",
  apiserver: Deno.env.get("KUBEOP_K8S_BIN")?.split("/").pop() ?? "",
  kubeop: `dist/kubeop.js under deno run, as shipped: ${JSON.stringify(shippedRuntime())}`,
  peer: "controller-runtime v0.25.2, client-go v0.37.2 (bench/peers/machine-go)",
  order: "alternating per repetition, fresh etcd + kube-apiserver per repetition, warmed by N/4 raw writes",
};
const med = (x: number[]) => round(median(x));
const mibOf = (x: Samples): Samples => ({
  "kubeop": x.kubeop.map((b) => b / 2 ** 20),
  "controller-runtime": x["controller-runtime"].map((b) => b / 2 ** 20),
});
const rows: BenchResult[] = [];
const pair = (
  name: string,
  unit: string,
  samples: Samples,
  extra: Record<string, unknown> = {},
  more: Record<string, unknown> = {},
) => {
  if (samples.kubeop.length === 0 || samples["controller-runtime"].length === 0) return;
  const k = med(samples.kubeop);
  const p = med(samples["controller-runtime"]);
  rows.push({
    name,
    params: { ...params, ...more },
    unit,
    kubeop: k,
    peer: p,
    peerName: "controller-runtime",
    ratio: lowerIsBetter(k, p),
    extra: {
      samplesKubeop: samples.kubeop.map(round),
      samplesPeer: samples["controller-runtime"].map(round),
      ...extra,
    },
  });
};

pair("converge-machines", "ms", s.converge, {
  cpuSecondsKubeop: med(s.convergeCpu.kubeop),
  cpuSecondsPeer: med(s.convergeCpu["controller-runtime"]),
  peakRssMiBKubeop: round(median(s.convergePeakRss.kubeop) / 2 ** 20),
  peakRssMiBPeer: round(median(s.convergePeakRss["controller-runtime"]) / 2 ** 20),
  goal: "ratio >= 1 (converge <= 1.0x controller-runtime's time)",
});
if (s.raw.length > 0 && s.converge.kubeop.length > 0) {
  const k = med(s.converge.kubeop);
  const raw = med(s.raw);
  rows.push({
    name: "converge-machines",
    params: { ...params, raw: "rawwrite (client-go): 3 Switch creates + 1 status patch + 1 Event per Machine" },
    unit: "ms",
    kubeop: k,
    peer: raw,
    peerName: "raw-write-limit",
    ratio: lowerIsBetter(k, raw),
    extra: {
      peerRatio: s.converge["controller-runtime"].length
        ? lowerIsBetter(med(s.converge["controller-runtime"]), raw)
        : null,
      samplesRaw: s.raw.map(round),
      goal: "ratio >= 0.77 (<= 1.3x the raw writer's time)",
    },
  });
}
pair("converge-machines-qps20", "ms", s.throttled, { goal: "ratio >= 1" }, {
  machines: THROTTLED_N,
  clientThrottle: "QPS 20 / burst 30 on both sides",
});
pair("requests-per-machine", "requests/Machine", s.requests, {
  eventsCounted: false,
  withEventsKubeop: med(s.requestsWithEvents.kubeop),
  withEventsPeer: med(s.requestsWithEvents["controller-runtime"]),
  writesKubeop: med(s.writes.kubeop),
  writesPeer: med(s.writes["controller-runtime"]),
  byVerbKubeop: lastRequests.kubeop?.byVerb,
  byVerbPeer: lastRequests["controller-runtime"]?.byVerb,
  goal: "ratio >= 1",
}, { counted: "kube-apiserver audit log per User-Agent, whole converge run incl. list/watch; Events excluded" });
pair("memory-per-object", "bytes/object", s.memRss, {
  heapPerObjectKubeop: med(s.memHeap.kubeop),
  heapPerObjectPeer: med(s.memHeap["controller-runtime"]),
  rssMiBAt2NKubeop: round(median(s.memBase.kubeop) / 2 ** 20),
  rssMiBAt2NPeer: round(median(s.memBase["controller-runtime"]) / 2 ** 20),
  goal: "ratio >= 1",
}, {
  machines: M,
  method: "RSS slope between 2M and 4M converged Machines (x4 objects each) after a forced GC, M first as warm-up",
});
pair("peak-rss", "MiB", mibOf(s.convergePeakRss), {
  goal: "ratio >= 1 (peak RSS <= controller-runtime's)",
}, { measured: "VmHWM of the operator process over a converge run (start, list, N Machines x 3 Switches)" });
pair("startup-readyz", "ms", s.ready, { goal: "ratio >= 1" }, {
  existingMachines: Math.floor(M / 4),
  measured: "process spawn → /readyz 200 (caches synced)",
});
pair("startup", "ms", s.first, {
  readyzMsKubeop: med(s.ready.kubeop),
  readyzMsPeer: med(s.ready["controller-runtime"]),
  goal: "ratio >= 1",
}, { existingMachines: Math.floor(M / 4), measured: "process spawn → first reconcile's status write seen" });
pair("failover-graceful", "ms", s.graceful, { goal: "ratio >= 1" }, {
  measured: "leader SIGTERM → standby reconciled a new Machine",
});
pair("failover-crash", "ms", s.crash, { goal: "ratio >= 1" }, {
  measured: "leader SIGKILL → standby reconciled a new Machine (Lease 15 s / renew 10 s / retry 2 s on both)",
});

for (const row of rows) {
  if (smoke) console.log(JSON.stringify({ ...row, machine: machineDescription() }));
  else await recordResult(row);
}
log(`done in ${round((performance.now() - started) / 1000)} s (${mode}); operator logs in ${logDir}`);
