/**
 * Where `kubeop run`'s memory goes, side by side on one real kube-apiserver (`deno run -A bench/real/footprint.ts
 * VARIANT...`): each variant converges `--machines N` Machines (× 3 Switches) in a fresh namespace, the variants
 * alternating for `--reps R` rounds; prints one JSON line per variant with the medians of the peak RSS (VmHWM), the RSS
 * at /readyz (before any Machine) and at the end, spawn → /readyz, the converge time and the CPU seconds. A variant is a bundle path,
 * `controller-runtime` (the peer, KUBEOP_PEER_DIR), `bundle.js@--v8-flag,--other` (extra `--v8-flags=` for that
 * bundle), and either followed by `#K=V,K2=V2` (environment variables, e.g. an allocator setting). Bundles run with
 * exactly what the variant says (not the shipped V8 flags and environment that bench:real applies). The resident memory
 * at the end is split by mapping kind (/proc/<pid>/smaps: `[heap]` glibc's main arena, `[anon]` V8's pages, thread
 * arenas and stacks, `file` the binary). Records nothing: a before/after tool for the peak-rss rows of bench:real (docs/performance.md has its
 * findings). Expects KUBEOP_K8S_BIN and KUBEOP_PEER_DIR like bench/real/ab.ts.
 * @module
 */

import { median, round } from "../result.ts";
import { createMachines, createNamespace, machineConverged, startBenchCluster, waitForMachines } from "./cluster.ts";
import { cpuSeconds, killAll, peakRssBytes, rssBytes, smapsSummary, startOperator, waitReady } from "./operators.ts";

function flag(name: string): string | undefined {
  const i = Deno.args.indexOf(`--${name}`);
  return i >= 0 ? Deno.args[i + 1] : undefined;
}

const variants = Deno.args.filter((a, i) => !a.startsWith("--") && !Deno.args[i - 1]?.startsWith("--"));
if (variants.length === 0) throw new Error("usage: footprint.ts VARIANT... [--machines N] [--reps R]");
const N = Number(flag("machines") ?? 300);
const REPS = Number(flag("reps") ?? 3);
const log = (msg: string) => console.error(`footprint: ${msg}`);
const logDir = await Deno.makeTempDir({ prefix: "kubeop-footprint-" });
log(`operator logs in ${logDir}`);

const bc = await startBenchCluster(Deno.env.get("KUBEOP_K8S_BIN"));
for (const signal of ["SIGINT", "SIGTERM"] as const) {
  Deno.addSignalListener(signal, async () => {
    killAll();
    await bc.stop();
    Deno.exit(130);
  });
}
type Sample = {
  convergeMs: number;
  peak: number;
  ready: number;
  end: number;
  readyMs: number;
  cpuS: number;
  smaps: Record<string, number>;
};
const samples = new Map<string, Sample[]>(variants.map((v) => [v, []]));
let seq = 0;
try {
  for (let rep = 0; rep < REPS; rep++) {
    const order = rep % 2 === 0 ? variants : [...variants].reverse();
    for (const variant of order) {
      const [spec, envSpec] = variant.split("#");
      const [bundle, v8] = spec.split("@");
      const env = envSpec
        ? Object.fromEntries(envSpec.split(",").map((kv) => kv.split("=", 2) as [string, string]))
        : {};
      const kind = bundle === "controller-runtime" ? "controller-runtime" : "kubeop";
      const ns = `fp-${seq++}`;
      await createNamespace(bc.client, ns);
      const op = startOperator(kind, { bundle, peerDir: Deno.env.get("KUBEOP_PEER_DIR") }, {
        kubeconfig: bc.real.kubeconfigPath,
        namespace: ns,
        maxConcurrentReconciles: 4,
        logPath: `${logDir}/${ns}.log`,
        v8Flags: v8,
        stdoutToLog: v8?.includes("--trace-gc"),
        env,
        asIs: true,
      });
      try {
        const readyAt = await waitReady(op);
        const ready = rssBytes(op.pid);
        const watching = waitForMachines(bc.client, ns, N, machineConverged, 600_000);
        const t0 = performance.now();
        await createMachines(bc.client, ns, N, { switches: 3 });
        const convergeMs = await watching - t0;
        const s = {
          convergeMs,
          peak: peakRssBytes(op.pid),
          ready,
          end: rssBytes(op.pid),
          readyMs: readyAt - op.startedAt,
          cpuS: cpuSeconds(op.pid),
          smaps: smapsSummary(op.pid),
        };
        samples.get(variant)!.push(s);
        log(
          `${variant}: peak ${round(s.peak / 2 ** 20)} MiB, ready ${round(s.ready / 2 ** 20)} MiB in ${
            round(s.readyMs)
          } ms, converged in ${round(s.convergeMs)} ms with ${s.cpuS} CPU s`,
        );
      } finally {
        await op.stop();
      }
    }
  }
} finally {
  killAll();
  await bc.stop();
}
const mib = (x: number) => round(x / 2 ** 20);
for (const [variant, xs] of samples) {
  const med = (f: (s: Sample) => number) => median(xs.map(f));
  console.log(JSON.stringify({
    variant,
    machines: N,
    peakMiB: mib(med((s) => s.peak)),
    readyRssMiB: mib(med((s) => s.ready)),
    endRssMiB: mib(med((s) => s.end)),
    readyMs: round(med((s) => s.readyMs)),
    convergeMs: round(med((s) => s.convergeMs)),
    cpuS: med((s) => s.cpuS),
    peaksMiB: xs.map((s) => mib(s.peak)),
    endSmapsMiB: Object.fromEntries(Object.keys(xs[0].smaps).map((k) => [k, mib(med((s) => s.smaps[k] ?? 0))])),
  }));
}
