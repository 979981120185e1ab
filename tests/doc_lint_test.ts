// Issue 24: `deno doc --lint` stays clean on the entry points a project imports (deno.json "exports": the runtime and
// the testing kit). runtime/builtin_types.ts ("./builtins") is left out: its aliases name client-node's model types,
// which deno doc counts as private (re-exporting them only moves the finding to their hundreds of member types).
import assert from "node:assert/strict";

Deno.test("deno doc --lint is clean on runtime/mod.ts and testing/mod.ts", async () => {
  const root = new URL("..", import.meta.url).pathname;
  const out = await new Deno.Command(Deno.execPath(), {
    args: ["doc", "--lint", "runtime/mod.ts", "testing/mod.ts"],
    cwd: root,
    env: { NO_COLOR: "1" },
    stdout: "piped",
    stderr: "piped",
  }).output();
  const text = new TextDecoder().decode(out.stderr) + new TextDecoder().decode(out.stdout);
  const errors = text.split("\n").filter((l) => /^error\[/.test(l));
  assert.deepEqual(errors, []);
  assert.equal(out.code, 0, text.slice(-2000));
});
