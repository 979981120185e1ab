/**
 * The benchmark report: reads bench/results/results.jsonl, takes the latest row per (benchmark, peer), and writes
 * bench/results/report.svg (one bar per row: kubeop's ratio against the peer on a log scale, with the goal marked)
 * and the table between the `report:begin`/`report:end` markers of bench/README.md. Rows it has no goal for
 * (informational figures, or benchmarks added later) are drawn and listed without one.
 *
 * Run: deno run --allow-read --allow-write --allow-run bench/report.ts (`npx deno task bench:report`); the README is
 * passed through `deno fmt` so the checked-in file stays fmt-clean.
 * @module
 */

import type { BenchResult } from "./result.ts";

/** A goal on the ratio (kubeop vs peer, > 1 = kubeop ahead): met when `ratio >= min`. */
export interface Goal {
  /** Smallest ratio that meets the goal. */
  min: number;
  /** The goal as the issue states it. */
  text: string;
}

/** Goals per `name` or `name|peerName` (the more specific wins). */
export const GOALS: Record<string, Goal> = {
  "watch-ingest|client-node": { min: 3, text: "≥ 3× client-node" },
  "watch-ingest|json-parse": { min: 0.5, text: "≥ 0.5× bare JSON.parse" },
  "watch-ingest-10k|client-node": { min: 3, text: "≥ 3× client-node" },
  "watch-ingest-10k|json-parse": { min: 0.5, text: "≥ 0.5× bare JSON.parse" },
  "initial-sync|client-node": { min: 2, text: "≤ 0.5× client-node's time" },
  "queue": { min: 1, text: "≥ 1 M ops/s" },
  "event-latency-p99": { min: 1, text: "p99 < 5 ms" },
  "machines-converge": { min: 0.99, text: "minimal writes (4 per Machine)" },
  "multisecret-converge": { min: 0.99, text: "minimal writes" },
  "fake-watch-fanout-p99": { min: 1, text: "p99 < 50 ms at 1 k writes/s, 1 000 watchers" },
  "converge-machines|controller-runtime": { min: 1, text: "≤ 1.0× controller-runtime's time" },
  "converge-machines|raw-write-limit": { min: 0.77, text: "≥ 0.77× the raw write rate" },
  "requests-per-machine": { min: 1, text: "no more than controller-runtime" },
  "memory-per-object": { min: 1, text: "no more than controller-runtime" },
  "startup": { min: 1, text: "no slower than controller-runtime" },
  "shard-scaling-2|1 replica": { min: 1.7, text: "≥ 1.7× 1 replica's speed" },
  "shard-scaling-3|1 replica": { min: 2.4, text: "≥ 2.4× 1 replica's speed" },
  "shard-scaling-2-real|1 replica": { min: 1.7, text: "≥ 1.7× 1 replica's speed" },
  "shard-scaling-3-real|1 replica": { min: 2.4, text: "≥ 2.4× 1 replica's speed" },
};

/** The goal of a row, if any. */
export function goalOf(r: Pick<BenchResult, "name" | "peerName">): Goal | undefined {
  return GOALS[`${r.name}|${r.peerName}`] ?? GOALS[r.name];
}

/** The latest row per (name, peerName), in first-seen order. */
export function latestRows(jsonl: string): BenchResult[] {
  const latest = new Map<string, BenchResult>();
  for (const line of jsonl.split("\n")) {
    if (!line.trim()) continue;
    const r = JSON.parse(line) as BenchResult;
    const key = `${r.name}|${r.peerName}`;
    const prev = latest.get(key);
    if (!prev || (r.time ?? "") >= (prev.time ?? "")) latest.set(key, r);
  }
  return [...latest.values()];
}

function escapeXml(s: string): string {
  return s.replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;").replace(/"/g, "&quot;");
}

function fmt(x: number | null | undefined): string {
  if (x === null || x === undefined || !Number.isFinite(x)) return "—";
  return Math.abs(x) >= 100 ? Math.round(x).toLocaleString("en-US") : String(Number(x.toPrecision(3)));
}

/** Renders the rows as a horizontal bar chart (log-scale ratio axis, 1 = parity, goal ticks). */
export function renderSvg(rows: BenchResult[]): string {
  const withRatio = rows.filter((r) => r.ratio !== null && r.ratio > 0);
  const labelW = 330, barW = 460, rowH = 22, top = 46, right = 150;
  const width = labelW + barW + right;
  const height = top + withRatio.length * rowH + 40;
  const lo = Math.log10(0.01), hi = Math.log10(100);
  const x = (ratio: number) => labelW + ((Math.log10(Math.min(100, Math.max(0.01, ratio))) - lo) / (hi - lo)) * barW;
  const out: string[] = [];
  out.push(
    `<svg xmlns="http://www.w3.org/2000/svg" width="${width}" height="${height}" font-family="sans-serif" font-size="12">`,
    `<rect width="100%" height="100%" fill="white"/>`,
    `<text x="10" y="18" font-size="14" font-weight="bold">kubeop benchmarks: latest ratio per benchmark (log scale; &gt; 1 = kubeop ahead)</text>`,
  );
  for (const tick of [0.01, 0.1, 0.5, 1, 2, 3, 10, 100]) {
    const tx = x(tick);
    out.push(
      `<line x1="${tx}" y1="${top - 8}" x2="${tx}" y2="${height - 30}" stroke="${tick === 1 ? "#444" : "#ddd"}"/>`,
      `<text x="${tx}" y="${top - 12}" text-anchor="middle" fill="#555">${tick}×</text>`,
    );
  }
  withRatio.forEach((r, i) => {
    const y = top + i * rowH;
    const goal = goalOf(r);
    const met = goal ? r.ratio! >= goal.min : undefined;
    const color = met === undefined ? "#8899aa" : met ? "#2e9d4f" : "#d0483c";
    const x0 = x(1), x1 = x(r.ratio!);
    const label = `${r.name}${r.peerName ? ` vs ${r.peerName}` : ""}`;
    out.push(
      `<text x="${labelW - 8}" y="${y + 15}" text-anchor="end">${escapeXml(label.slice(0, 52))}</text>`,
      `<rect x="${Math.min(x0, x1)}" y="${y + 4}" width="${Math.max(1, Math.abs(x1 - x0))}" height="${
        rowH - 8
      }" fill="${color}"><title>${escapeXml(`${label}: ${r.ratio}`)}</title></rect>`,
      `<text x="${labelW + barW + 8}" y="${y + 15}">${fmt(r.ratio)}×${goal ? ` (goal ${fmt(goal.min)}×)` : ""}</text>`,
    );
    if (goal) {
      const gx = x(goal.min);
      out.push(`<line x1="${gx}" y1="${y + 1}" x2="${gx}" y2="${y + rowH - 1}" stroke="black" stroke-width="2"/>`);
    }
  });
  const ly = height - 14;
  out.push(
    `<rect x="10" y="${ly - 10}" width="12" height="10" fill="#2e9d4f"/><text x="26" y="${ly}">goal met</text>`,
    `<rect x="100" y="${ly - 10}" width="12" height="10" fill="#d0483c"/><text x="116" y="${ly}">goal missed</text>`,
    `<rect x="210" y="${ly - 10}" width="12" height="10" fill="#8899aa"/><text x="226" y="${ly}">no goal</text>`,
    `<line x1="310" y1="${ly - 11}" x2="310" y2="${
      ly + 1
    }" stroke="black" stroke-width="2"/><text x="316" y="${ly}">goal</text>`,
    `</svg>`,
  );
  return out.join("\n") + "\n";
}

/** Renders the rows as a Markdown table. */
export function renderTable(rows: BenchResult[]): string {
  const lines = [
    "| benchmark | peer | unit | kubeop | peer value | ratio | goal | met | taken (UTC, load) |",
    "| --- | --- | --- | --- | --- | --- | --- | --- | --- |",
  ];
  for (const r of rows) {
    const goal = goalOf(r);
    const met = goal && r.ratio !== null ? (r.ratio >= goal.min ? "yes" : "**no**") : "—";
    const mode = typeof r.params?.mode === "string" ? ` (${r.params.mode})` : "";
    lines.push(
      `| ${r.name}${mode} | ${r.peerName ?? "—"} | ${r.unit} | ${fmt(r.kubeop)} | ${fmt(r.peer)} | ${fmt(r.ratio)} | ${
        goal ? `${goal.text} (ratio ≥ ${goal.min})` : "—"
      } | ${met} | ${(r.time ?? "").slice(0, 16).replace("T", " ")}${
        r.load1 !== undefined ? `, load ${r.load1}` : ""
      } |`,
    );
  }
  return lines.join("\n") + "\n";
}

const BEGIN = "<!-- report:begin (bench/report.ts writes this part) -->";
const END = "<!-- report:end -->";

/** Replaces the marked part of `readme` (appending the markers when absent). */
export function spliceReport(readme: string, body: string): string {
  const block = `${BEGIN}\n\n${body}\n${END}`;
  const a = readme.indexOf(BEGIN);
  const b = readme.indexOf(END);
  if (a === -1 || b === -1) return `${readme.trimEnd()}\n\n${block}\n`;
  return readme.slice(0, a) + block + readme.slice(b + END.length);
}

if (import.meta.main) {
  const resultsUrl = new URL("./results/results.jsonl", import.meta.url);
  const rows = latestRows(await Deno.readTextFile(resultsUrl));
  await Deno.writeTextFile(new URL("./results/report.svg", import.meta.url), renderSvg(rows));
  const readmeUrl = new URL("./README.md", import.meta.url);
  const readme = await Deno.readTextFile(readmeUrl).catch(() => "# Benchmarks\n");
  const body = `![latest ratio per benchmark](results/report.svg)\n\n${renderTable(rows)}`;
  await Deno.writeTextFile(readmeUrl, spliceReport(readme, body));
  await new Deno.Command(Deno.execPath(), { args: ["fmt", "--quiet", readmeUrl.pathname] }).output();
  console.log(`report: ${rows.length} rows → bench/results/report.svg, bench/README.md`);
}
