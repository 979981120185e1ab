/**
 * `deno task soak [--duration 2h] [--target fake|real] [--check-every 1m] [--fault-every 4m] [--warmup 10m]
 * [--out FILE] [--rss-slope-bound 16] [--seed N]`: the four seed operators (`kubeop run` as a child process) for
 * `--duration` under steady churn, periodic faults and server restarts, checked and sampled every `--check-every`
 * (tests/soak/run.ts). Writes one JSON line per sample to `--out` (default .cache/soak/<target>-<time>.jsonl), prints
 * the summary and exits 1 when anything was lost or missed, the operator exited, or RSS, fds or sockets grew past
 * their bounds (tests/soak/summary.ts), 2 on bad flags. docs/soak.md has the figures of the long runs.
 * @module
 */
import { parseGoDuration } from "../../runtime/apimachinery/go_duration.ts";
import { runSoak } from "./run.ts";
import { DEFAULT_BOUNDS } from "./summary.ts";

const args = Deno.args;
/** `--name value` or `--name=value`. */
function flag(name: string): string | undefined {
  const eq = args.find((a) => a.startsWith(`--${name}=`));
  if (eq) return eq.slice(name.length + 3);
  const i = args.indexOf(`--${name}`);
  return i >= 0 ? args[i + 1] : undefined;
}

function usage(message: string): never {
  console.error(`${message}\nusage: deno task soak --duration 2h --target fake|real [--check-every 1m] ...`);
  Deno.exit(2);
}

function duration(name: string, fallback: string): number {
  try {
    return parseGoDuration(flag(name) ?? fallback);
  } catch (err) {
    usage(`--${name}: ${(err as Error).message}`);
  }
}

const target = flag("target") ?? "fake";
if (target !== "fake" && target !== "real") usage(`unknown target ${target}; known: fake, real`);
const durationMs = duration("duration", "10m");
const checkEveryMs = duration("check-every", "1m");
const warmupMs = duration("warmup", durationMs >= 30 * 60_000 ? "10m" : "1m");
const stamp = new Date().toISOString().replace(/[:.]/g, "-");
const root = new URL("../../", import.meta.url).pathname;
const out = flag("out") ?? `${root}.cache/soak/${target}-${stamp}.jsonl`;
const dir = out.replace(/\.jsonl$/, "") + ".d";
await Deno.mkdir(out.slice(0, out.lastIndexOf("/")), { recursive: true });
const small = target === "real";
// Ctrl-C or SIGTERM ends the soak after its current step, with a summary, the operator and the target stopped.
const interrupted = new AbortController();
for (const sig of ["SIGINT", "SIGTERM"] as const) Deno.addSignalListener(sig, () => interrupted.abort());
const summary = await runSoak({
  target,
  durationMs,
  checkEveryMs,
  // Three of the four faults end every watch: 4 minutes apart, a watch also lives to its own 5–10 min timeout between
  // a 410 and a restart (the 429 in between leaves watches open).
  faultEveryMs: duration("fault-every", "4m"),
  churnEveryMs: small ? 1_000 : 500,
  sizes: small
    ? { multiSecrets: 30, machines: 10, ats: 10, netperfs: 6 }
    : { multiSecrets: 60, machines: 20, ats: 20, netperfs: 10 },
  bounds: {
    ...DEFAULT_BOUNDS,
    warmupMs,
    rssSlopeMiBPerHour: Number(flag("rss-slope-bound") ?? DEFAULT_BOUNDS.rssSlopeMiBPerHour),
  },
  out,
  dir,
  seed: Number(flag("seed") ?? 25),
  log: (line) => console.log(`${new Date().toISOString()} ${line}`),
  signal: interrupted.signal,
});
console.log(JSON.stringify(summary, null, 2));
if (summary.notJudged.length > 0) console.log(`not judged: ${summary.notJudged.join("; ")}`);
console.log(summary.failures.length === 0 ? `ok: ${out}` : `FAILED: ${summary.failures.join(", ")} (${out})`);
Deno.exit(summary.failures.length === 0 ? 0 : 1);
