import assert from "node:assert/strict";
import { goalOf, latestRows, renderSvg, renderTable, spliceReport } from "./report.ts";

const rows = [
  { name: "watch-ingest", peerName: "client-node", ratio: 2, time: "2026-01-01T00:00:00Z" },
  { name: "watch-ingest", peerName: "client-node", ratio: 3.5, time: "2026-01-02T00:00:00Z" },
  { name: "watch-ingest", peerName: "json-parse", ratio: 0.3, time: "2026-01-02T00:00:00Z" },
  { name: "startup", peerName: "controller-runtime", ratio: 1.2, time: "2026-01-02T00:00:00Z" },
  { name: "something-new", peerName: null, ratio: null, time: "2026-01-02T00:00:00Z" },
].map((r) => JSON.stringify({ params: {}, unit: "x", kubeop: 1, peer: 1, ...r })).join("\n");

Deno.test("report: the latest row per (benchmark, peer), judged against its goal; unknown rows are kept", () => {
  const latest = latestRows(rows + "\n");
  assert.deepEqual(latest.map((r) => `${r.name}|${r.peerName}|${r.ratio}`), [
    "watch-ingest|client-node|3.5",
    "watch-ingest|json-parse|0.3",
    "startup|controller-runtime|1.2",
    "something-new|null|null",
  ]);
  assert.equal(goalOf(latest[0])?.min, 3);
  assert.equal(goalOf(latest[1])?.min, 0.5);
  assert.equal(goalOf(latest[3]), undefined);
  const table = renderTable(latest);
  assert.match(table, /watch-ingest \| client-node .* \| yes \|/);
  assert.match(table, /watch-ingest \| json-parse .* \| \*\*no\*\* \|/);
  assert.match(table, /something-new/);
  const svg = renderSvg(latest);
  assert.ok(svg.startsWith("<svg") && svg.trim().endsWith("</svg>"));
  assert.equal((svg.match(/<title>/g) ?? []).length, 3, "one bar per row with a ratio");
});

Deno.test("report: the README part between the markers is replaced, the rest kept; markers are added when absent", () => {
  const first = spliceReport("# Benchmarks\n\nintro\n", "table 1\n");
  assert.match(first, /intro\n\n<!-- report:begin[^>]*>\n\ntable 1\n\n<!-- report:end -->\n$/);
  const second = spliceReport(first + "\nafter\n", "table 2\n");
  assert.ok(
    second.includes("table 2") && !second.includes("table 1") && second.includes("intro") && second.endsWith("after\n"),
  );
});
