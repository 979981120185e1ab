import assert from "node:assert/strict";

async function kubeop(...args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  const out = await new Deno.Command(Deno.execPath(), {
    args: ["run", "--allow-all", new URL("../main.ts", import.meta.url).pathname, ...args],
    stdout: "piped",
    stderr: "piped",
  }).output();
  const dec = new TextDecoder();
  return { code: out.code, stdout: dec.decode(out.stdout), stderr: dec.decode(out.stderr) };
}

Deno.test("version prints the version and exits 0", async () => {
  const r = await kubeop("version");
  assert.equal(r.code, 0);
  assert.match(r.stdout, /^kubeop \d+\.\d+\.\d+/);
});

Deno.test("unknown command is a usage error (exit 2)", async () => {
  const r = await kubeop("frobnicate");
  assert.equal(r.code, 2);
  assert.match(r.stderr, /unknown command "frobnicate"/);
});

Deno.test("dev --feature-gates refuses a gate the fake does not implement (exit 2, kube's wording)", async () => {
  const r = await kubeop("dev", "--feature-gates", "ShardedListAndWatch=true,NoSuchGate=true");
  assert.equal(r.code, 2);
  assert.match(r.stderr, /--feature-gates: unrecognized feature gate: NoSuchGate/);
});
