/**
 * `deno task bench`: runs every benchmark in bench/ (files named *_bench.ts), each in its own process so heap
 * figures do not mix, in quick mode unless `--full` is given. Each benchmark prints one JSON line per result and
 * appends it to bench/results/results.jsonl (see bench/result.ts); then bench/report.ts refreshes the chart and the
 * table in bench/README.md.
 * @module
 */

const full = Deno.args.includes("--full");
const only = Deno.args.filter((a) => !a.startsWith("--"));
const dir = new URL(".", import.meta.url);
const files = [...Deno.readDirSync(dir)]
  .map((e) => e.name)
  .filter((n) => n.endsWith("_bench.ts") && (only.length === 0 || only.some((o) => n.includes(o))))
  .sort();

let failed = 0;
for (const file of files) {
  console.error(`bench: ${file}${full ? " (full)" : ""}`);
  const out = await new Deno.Command(Deno.execPath(), {
    args: ["run", "--allow-all", "--v8-flags=--expose-gc", new URL(file, dir).pathname, ...(full ? ["--full"] : [])],
    stdout: "inherit",
    stderr: "inherit",
  }).output();
  if (out.code !== 0) {
    failed++;
    console.error(`bench: ${file} exited ${out.code}`);
  }
}
const report = await new Deno.Command(Deno.execPath(), {
  args: ["run", "--allow-read", "--allow-write", "--allow-run", new URL("report.ts", dir).pathname],
  stdout: "inherit",
  stderr: "inherit",
}).output();
if (report.code !== 0) console.error(`bench: report.ts exited ${report.code}`);
Deno.exit(failed === 0 ? 0 : 1);
