/**
 * Renders the fault results (JSON lines, tests/faults/results.jsonl by default) as the Reliability table of
 * docs/reliability.md: the latest row per (fault, target). `--write` replaces the table between that page's
 * `<!-- faults:begin -->` and `<!-- faults:end -->` markers; otherwise it prints it.
 *
 * `deno run --allow-read --allow-write --allow-run tests/faults/render.ts [results.jsonl] [--write]`
 * @module
 */

/** A row as written by tests/faults/main.ts (fields may be null where a scenario does not measure them). */
export type ResultRow = Record<string, string | number | null | undefined>;

const COLUMNS: [string, string][] = [
  ["fault", "fault"],
  ["target", "target"],
  ["objects", "objects"],
  ["events", "events"],
  ["lost", "lost"],
  ["orphans", "orphans"],
  ["duplicateConcurrent", "dup. concurrent"],
  ["apiCalls", "API calls"],
  ["baselineApiCalls", "baseline"],
  ["recoverySeconds", "recovery s"],
  ["maxConcurrentLeaders", "max leaders"],
  ["writesWhileNotLeader", "writes while not leader"],
  ["time", "measured"],
];

/** The latest row per (fault, target), in first-seen order, as a Markdown table. */
export function renderTable(jsonl: string): string {
  const latest = new Map<string, ResultRow>();
  for (const line of jsonl.split("\n")) {
    if (!line.trim()) continue;
    const row = JSON.parse(line) as ResultRow;
    const key = `${row.fault}|${row.target}`;
    latest.delete(key);
    latest.set(key, row);
  }
  const cell = (row: ResultRow, field: string) => {
    const v = row[field];
    if (v === null || v === undefined) return "–";
    if (field === "time") return String(v).slice(0, 10);
    return String(v);
  };
  const rows = [...latest.values()].sort((a, b) => order(a) - order(b));
  return [
    `| ${COLUMNS.map(([, title]) => title).join(" | ")} |`,
    `| ${COLUMNS.map(() => "---").join(" | ")} |`,
    ...rows.map((row) => `| ${COLUMNS.map(([field]) => cell(row, field)).join(" | ")} |`),
  ].join("\n");
}

/** Per target (fake, then real) its baseline first, then its matrix rows; the leader rows last (real after the rest). */
function order(row: ResultRow): number {
  if (String(row.fault).startsWith("leader")) return row.target === "real" ? 11 : 10;
  return (row.target === "real" ? 2 : 0) + (row.fault === "none" ? 0 : 1);
}

if (import.meta.main) {
  const args = Deno.args.filter((a) => a !== "--write");
  const source = args[0] ?? new URL("./results.jsonl", import.meta.url).pathname;
  const table = renderTable(await Deno.readTextFile(source));
  if (Deno.args.includes("--write")) {
    const page = new URL("../../docs/reliability.md", import.meta.url).pathname;
    const text = await Deno.readTextFile(page);
    const begin = "<!-- faults:begin -->";
    const end = "<!-- faults:end -->";
    const from = text.indexOf(begin);
    const to = text.indexOf(end);
    if (from < 0 || to < from) throw new Error(`docs/reliability.md has no ${begin} … ${end} markers`);
    await Deno.writeTextFile(page, text.slice(0, from + begin.length) + "\n\n" + table + "\n\n" + text.slice(to));
    // deno fmt aligns the columns (the default tier checks docs/ with `deno fmt --check`).
    await new Deno.Command(Deno.execPath(), { args: ["fmt", page], stderr: "null" }).output();
  } else {
    console.log(table);
  }
}
