/**
 * `deno run -A tests/soak/render.ts FILE.jsonl... [--write]`: one Markdown table row per soak results file, from its
 * summary line — or, for a run still going, from the samples so far (marked interim, judged with the default bounds
 * and a 10-minute warm-up). With `--write`, replaces the table between the `soak-figures` markers of docs/soak.md;
 * files under docs/soak/ (the runs the page reports, kept in the repository) are linked.
 * @module
 */
import { DEFAULT_BOUNDS, type SoakSample, type SoakSummary, summarize } from "./summary.ts";

/** The summary of a results file's text (`target` names a run still going), and whether the run had ended. */
export function summaryOf(text: string, target = "?"): { summary: SoakSummary; final: boolean } {
  const lines = text.trim().split("\n").filter((l) => l.startsWith("{")).map((l) => JSON.parse(l));
  const last = lines.at(-1);
  if (last?.summary) return { summary: last as SoakSummary, final: true };
  const samples = lines as SoakSample[];
  const durationMs = samples.at(-1)?.elapsedMs ?? 0;
  return {
    summary: summarize(target, durationMs, samples, { ...DEFAULT_BOUNDS, warmupMs: 10 * 60_000 }),
    final: false,
  };
}

/**
 * The table row of `summary`.
 * @example
 * ```ts
 * import { row, summaryOf } from "./render.ts";
 * console.assert(row("fake.jsonl", summaryOf("").summary, false).startsWith("| fake.jsonl |"));
 * ```
 */
export function row(file: string, s: SoakSummary, final: boolean): string {
  const span = (x: { first: number; last: number; max: number } | null) => x ? `${x.first}/${x.last}/${x.max}` : "–";
  const restarts = Object.entries(s.watchRestarts).map(([k, v]) => `${k} ${v}`).join(", ") || "–";
  const faults = Object.entries(s.faults).map(([k, v]) => `${k} ${v}`).join(", ") || "–";
  const minutes = Math.round(s.durationMs / 60_000);
  return `| ${file} | ${s.target} | ${minutes} min${final ? "" : " (interim)"} | ${s.checks} | ${s.lost} | ` +
    `${s.missedEvents} | ${s.operatorExits} | ${s.changes} | ${faults} | ${restarts} | ` +
    `${s.rssSlopeMiBPerHour ?? "–"} | ${s.heapSlopeMiBPerHour ?? "–"} | ${span(s.rssMiB)} | ${span(s.fds)} | ` +
    `${span(s.sockets)} | ${s.failures.join(", ") || "ok"} |`;
}

/** The table's header. */
export const HEADER = [
  "| file | target | duration | checks | lost | missed events | operator exits | changes | faults | watch restarts " +
  "| RSS slope MiB/h | heap slope MiB/h | RSS MiB first/last/max | fds first/last/max | sockets first/last/max " +
  "| verdict |",
  "| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |",
].join("\n");

if (import.meta.main) {
  const files = Deno.args.filter((a) => !a.startsWith("--"));
  const rows = [];
  for (const file of files) {
    const name = file.slice(file.lastIndexOf("/") + 1);
    const { summary, final } = summaryOf(await Deno.readTextFile(file), name.includes("real") ? "real" : "fake");
    // Results kept in the repository (docs/soak/) are linked from the page.
    rows.push(row(/(^|\/)docs\/soak\//.test(file) ? `[${name}](soak/${name})` : name, summary, final));
  }
  const table = `${HEADER}\n${rows.join("\n")}`;
  console.log(table);
  if (Deno.args.includes("--write")) {
    const doc = new URL("../../docs/soak.md", import.meta.url);
    const text = await Deno.readTextFile(doc);
    const begin = "<!-- soak-figures:begin -->";
    const end = "<!-- soak-figures:end -->";
    const at = text.indexOf(begin);
    const to = text.indexOf(end);
    if (at < 0 || to < at) throw new Error(`docs/soak.md has no ${begin} … ${end} markers`);
    await Deno.writeTextFile(doc, `${text.slice(0, at + begin.length)}\n\n${table}\n\n${text.slice(to)}`);
  }
}
