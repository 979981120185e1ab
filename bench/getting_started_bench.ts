/**
 * docs/getting-started.md from a fresh clone, timed: `git clone` of this checkout into a temporary directory, the
 * guide's `npm install`, then every later step of the guide as tests/scaffold_test.ts runs it in that clone (`kubeop
 * init`, the project's `deno task test`, `deno task dev` with kubectl applying the sample until Ready, `kubeop create
 * api` / `create webhook` and the tests again). The README states the figure. Row `getting-started` (seconds, no peer):
 * `extra` splits clone, npm install and the guide; `load1` says how busy the machine was. The deno cache
 * (`DENO_DIR`) is the user's, as a newcomer's second project would find it; pass `--cold` for an empty one (the
 * project's npm packages downloaded too).
 *
 * Run: deno run --allow-all bench/getting_started_bench.ts [--cold]
 * @module
 */
import { recordResult, round } from "./result.ts";

const REPO = new URL("../", import.meta.url).pathname.replace(/\/$/, "");

/** Runs `cmd` in `cwd` with `env`, failing with its output; returns the seconds it took. */
async function timed(what: string, cmd: string[], cwd: string, env: Record<string, string> = {}): Promise<number> {
  const t0 = performance.now();
  const out = await new Deno.Command(cmd[0], { args: cmd.slice(1), cwd, env, stdout: "piped", stderr: "piped" })
    .output();
  const seconds = (performance.now() - t0) / 1000;
  if (!out.success) {
    const text = new TextDecoder().decode(out.stdout) + new TextDecoder().decode(out.stderr);
    throw new Error(`${what} (${cmd.join(" ")} in ${cwd}) exited ${out.code}:\n${text.slice(-4000)}`);
  }
  console.log(`${what}: ${seconds.toFixed(1)} s`);
  return seconds;
}

if (import.meta.main) {
  const cold = Deno.args.includes("--cold");
  const parent = await Deno.makeTempDir({ prefix: "kubeop-getting-started-bench-" });
  const clone = `${parent}/kubeop`;
  const env: Record<string, string> = { NO_COLOR: "1", ...(cold ? { DENO_DIR: `${parent}/deno-dir` } : {}) };
  try {
    const cloneS = await timed("git clone", ["git", "clone", "--quiet", REPO, clone], parent);
    const npmS = await timed("npm install", ["npm", "install", "--no-audit", "--no-fund"], clone);
    const deno = `${clone}/node_modules/.bin/deno`;
    const guideS = await timed(
      "the guide's steps 2 onwards (tests/scaffold_test.ts)",
      [deno, "test", "--allow-all", "tests/scaffold_test.ts"],
      clone,
      env,
    );
    const total = cloneS + npmS + guideS;
    await recordResult({
      name: "getting-started",
      params: { from: "fresh clone", denoCache: cold ? "empty" : "the user's" },
      unit: "s",
      kubeop: round(total),
      peer: null,
      peerName: null,
      ratio: null,
      extra: { cloneS: round(cloneS), npmInstallS: round(npmS), guideS: round(guideS) },
    });
    console.log(`getting started from a fresh clone: ${total.toFixed(0)} s`);
  } finally {
    await Deno.remove(parent, { recursive: true }).catch(() => {});
  }
}
