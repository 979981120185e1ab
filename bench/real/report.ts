/**
 * The latest ratio of every benchmark against its goal, as a Markdown table from bench/results/results.jsonl
 * (smoke runs excluded). `deno run -A bench/real/report.ts` prints it; `--write` replaces the table between the
 * `<!-- results-table -->` markers of bench/README.md.
 * @module
 */

import { type BenchResult, RESULTS_PATH } from "../result.ts";

/** Goal per `name|peerName`: the ratio to reach (ratio > 1 = kubeop ahead) and how the issue words it. */
export const GOALS: Record<string, { min: number; text: string }> = {
  "converge-machines|controller-runtime": { min: 1, text: "≤ 1.0× controller-runtime's time" },
  "converge-machines|raw-write-limit": { min: 0.77, text: "≥ 0.77× the raw write rate" },
  "converge-machines-qps20|controller-runtime": { min: 1, text: "≤ controller-runtime's time at QPS 20/burst 30" },
  "requests-per-machine|controller-runtime": { min: 1, text: "no more than controller-runtime" },
  "memory-per-object|controller-runtime": { min: 1, text: "no more than controller-runtime" },
  "startup|controller-runtime": { min: 1, text: "no slower than controller-runtime" },
  "failover-graceful|controller-runtime": { min: 1, text: "no slower than controller-runtime" },
  "failover-crash|controller-runtime": { min: 1, text: "no slower than controller-runtime" },
  "watch-ingest|client-node": { min: 3, text: "≥ 3× client-node" },
  "watch-ingest|json-parse": { min: 0.5, text: "≥ 0.5× bare JSON.parse" },
  "initial-sync|client-node": { min: 2, text: "≤ 0.5× client-node's time" },
  "cache-memory|client-node": { min: 1, text: "≤ 2× the JSON bytes" },
  "queue|goal": { min: 1, text: "≥ 1 M ops/s" },
  "event-latency-p99|goal": { min: 1, text: "p99 < 5 ms" },
};

/** The latest non-smoke result per `name|peerName`, in first-seen order. */
export function latestResults(lines: string[]): Map<string, BenchResult> {
  const latest = new Map<string, BenchResult>();
  for (const line of lines) {
    if (!line.trim()) continue;
    let r: BenchResult;
    try {
      r = JSON.parse(line);
    } catch {
      continue;
    }
    if (r.params?.mode === "smoke") continue;
    latest.set(`${r.name}|${r.peerName}`, r);
  }
  return latest;
}

const fmt = (x: number | null | undefined) => x === null || x === undefined ? "—" : String(x);

/** The Markdown table: benchmark, peer, kubeop, peer value, ratio, goal, met. */
export function resultsTable(latest: Map<string, BenchResult>): string {
  const rows = [
    "| benchmark | peer | kubeop | peer value | unit | ratio | goal | met | mode, date |",
    "| --- | --- | --- | --- | --- | --- | --- | --- | --- |",
  ];
  for (const [key, r] of latest) {
    const goal = GOALS[key];
    const met = goal && r.ratio !== null ? (r.ratio >= goal.min ? "yes" : "**no**") : "";
    rows.push(
      `| ${r.name} | ${r.peerName ?? ""} | ${fmt(r.kubeop)} | ${fmt(r.peer)} | ${r.unit} | ${fmt(r.ratio)} | ${
        goal?.text ?? ""
      } | ${met} | ${r.params?.mode ?? ""}, ${(r.time ?? "").slice(0, 10)} |`,
    );
  }
  return rows.join("\n");
}

if (import.meta.main) {
  const table = resultsTable(latestResults((await Deno.readTextFile(RESULTS_PATH)).split("\n")));
  if (Deno.args.includes("--write")) {
    const path = new URL("../README.md", import.meta.url);
    const text = await Deno.readTextFile(path);
    const re = /(<!-- results-table -->)[\s\S]*?(<!-- \/results-table -->)/;
    if (!re.test(text)) throw new Error("bench/README.md has no <!-- results-table --> markers");
    await Deno.writeTextFile(path, text.replace(re, `$1\n\n${table}\n\n$2`));
    // Like bench/report.ts: the checked-in README stays fmt-clean.
    await new Deno.Command(Deno.execPath(), { args: ["fmt", "--quiet", path.pathname] }).output();
  } else {
    console.log(table);
  }
}
