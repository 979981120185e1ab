/**
 * The one shape every benchmark reports: printed as one JSON line on stdout and appended to
 * bench/results/results.jsonl. `ratio` says how many times better kubeop is than the peer (> 1 = ahead), whichever
 * way the unit goes.
 * @module
 */

/** One benchmark result. */
export interface BenchResult {
  /** Benchmark name (queue, event-latency-p99, watch-ingest, …). */
  name: string;
  /** Inputs that shaped the run (sizes, rates, mode). */
  params: Record<string, unknown>;
  /** Unit of `kubeop` and `peer` (ops/s, ms, …). */
  unit: string;
  /** kubeop's median. */
  kubeop: number;
  /** The peer's median (or the goal), null when none. */
  peer: number | null;
  /** What the peer is ("client-node", "json-parse", "goal"). */
  peerName: string | null;
  /** How many times better kubeop is (> 1 = ahead). */
  ratio: number | null;
  /** ISO time the result was taken (filled in when absent). */
  time?: string;
  /** Where it ran (filled in when absent). */
  machine?: string;
  /** Optional extra numbers (e.g. p50 beside a p99). */
  extra?: Record<string, unknown>;
  /** The host's 1-minute load average when recorded (filled in when absent; > cores means the figures are pessimistic). */
  load1?: number;
}

/** Where results are appended. */
export const RESULTS_PATH = new URL("./results/results.jsonl", import.meta.url);

/** `os-arch, N cpu, model` — enough to tell machines apart in results.jsonl. */
export function machineDescription(): string {
  let model = "";
  try {
    model = Deno.readTextFileSync("/proc/cpuinfo").match(/model name\s*:\s*(.+)/)?.[1]?.trim() ?? "";
  } catch { /* not Linux */ }
  return `${Deno.build.os}-${Deno.build.arch}, ${navigator.hardwareConcurrency} cpu${model ? `, ${model}` : ""}`;
}

/** The 1-minute load average, or undefined where it cannot be read (no --allow-sys, not Linux/macOS). */
export function loadAverage(): number | undefined {
  try {
    return round(Deno.loadavg()[0]);
  } catch {
    return undefined;
  }
}

/** Ratio for a higher-is-better unit (ops/s): kubeop / peer. */
export function higherIsBetter(kubeop: number, peer: number): number {
  return round(kubeop / peer);
}

/** Ratio for a lower-is-better unit (ms): peer / kubeop. */
export function lowerIsBetter(kubeop: number, peer: number): number {
  return round(peer / kubeop);
}

/** Median of `values` (not mutated). */
export function median(values: number[]): number {
  const s = [...values].sort((a, b) => a - b);
  const mid = s.length >> 1;
  return s.length % 2 ? s[mid] : (s[mid - 1] + s[mid]) / 2;
}

/** The `p`-th percentile (0..100) of `values`, nearest-rank. */
export function percentile(values: number[], p: number): number {
  const s = [...values].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.max(0, Math.ceil((p / 100) * s.length) - 1))];
}

/** Rounds to 4 significant digits (results stay readable). */
export function round(x: number): number {
  return Number.isFinite(x) ? Number(x.toPrecision(4)) : x;
}

/** True when the benchmark should run its long mode (`--full` or BENCH_FULL=1); quick mode is the default. */
export function fullMode(): boolean {
  return Deno.args.includes("--full") || Deno.env.get("BENCH_FULL") === "1";
}

/** Prints `r` as one JSON line and appends it to results.jsonl. */
export async function recordResult(r: BenchResult): Promise<void> {
  const line = JSON.stringify({
    ...r,
    time: r.time ?? new Date().toISOString(),
    machine: r.machine ?? machineDescription(),
    load1: r.load1 ?? loadAverage(),
  });
  console.log(line);
  await Deno.mkdir(new URL("./results/", import.meta.url), { recursive: true });
  await Deno.writeTextFile(RESULTS_PATH, line + "\n", { append: true });
}
