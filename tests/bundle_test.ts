// The shipped artefact is `deno compile` output, which needs denort (not downloadable here). CI proves the same
// entry point as one bundled file: `deno task bundle` (scripts/bundle.ts: minified, ASCII only) run under `deno run`.
import assert from "node:assert/strict";

Deno.test("deno task bundle produces one ASCII-only file that runs `kubeop version`, `crds` and `run --help`", async () => {
  const dir = await Deno.makeTempDir();
  try {
    const out = `${dir}/kubeop.js`;
    const bundle = await new Deno.Command(Deno.execPath(), {
      args: ["run", "--allow-all", new URL("../scripts/bundle.ts", import.meta.url).pathname, "--output", out],
      stdout: "piped",
      stderr: "piped",
    }).output();
    assert.equal(bundle.code, 0, new TextDecoder().decode(bundle.stderr));
    // One non-ASCII character would make V8 hold the whole source as two bytes per character (docs/performance.md).
    const nonAscii = /[\u0080-\uffff]/.exec(await Deno.readTextFile(out));
    assert.equal(nonAscii, null, `non-ASCII character in the bundle: ${nonAscii?.[0]}`);
    const run = await new Deno.Command(Deno.execPath(), {
      args: ["run", "--allow-all", out, "version"],
      cwd: dir,
      stdout: "piped",
      stderr: "piped",
    }).output();
    assert.equal(run.code, 0, new TextDecoder().decode(run.stderr));
    assert.match(new TextDecoder().decode(run.stdout), /^kubeop \d+\.\d+\.\d+/);
    // main.ts imports each subcommand when it is chosen: the bundle must still hold them (it is alone in `dir`).
    for (
      const [args, expect] of [[["crds"], /kind: CustomResourceDefinition/], [
        ["run", "--help"],
        /Usage: kubeop run/,
      ]] as const
    ) {
      const sub = await new Deno.Command(Deno.execPath(), {
        args: ["run", "--allow-all", out, ...args],
        cwd: dir,
        stdout: "piped",
        stderr: "piped",
      }).output();
      assert.equal(sub.code, 0, `${args.join(" ")}: ${new TextDecoder().decode(sub.stderr)}`);
      assert.match(new TextDecoder().decode(sub.stdout), expect);
    }
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("every way of running the operator applies the compile tasks' V8 flags (deno task run included)", async () => {
  const root = new URL("../", import.meta.url).pathname;
  const tasks = JSON.parse(await Deno.readTextFile(`${root}deno.json`)).tasks as Record<string, string>;
  const flagsOf = (text: string) => /--v8-flags=(\S+)/.exec(text)?.[1];
  const shipped = flagsOf(tasks["compile:in-cluster"]);
  assert.ok(shipped, "compile:in-cluster embeds V8 flags");
  assert.equal(flagsOf(tasks.compile), shipped);
  // `deno task run` goes through scripts/kubeop.sh, which adds them for `run` only.
  const script = await Deno.readTextFile(`${root}scripts/kubeop.sh`);
  const runLine = script.split("\n").find((l) => l.includes("exec deno run") && l.includes("--v8-flags="));
  assert.equal(runLine && flagsOf(runLine), shipped, "scripts/kubeop.sh runs `run` with the shipped V8 flags");
});
