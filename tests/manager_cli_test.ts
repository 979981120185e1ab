// `kubeop run` end to end through main.ts (exit codes, stderr); flag parsing itself is tested in cli/run_test.ts.
import assert from "node:assert/strict";

const MAIN = new URL("../main.ts", import.meta.url).pathname;

async function kubeop(...args: string[]): Promise<{ code: number; stderr: string }> {
  const out = await new Deno.Command(Deno.execPath(), {
    args: ["run", "--allow-all", MAIN, ...args],
    stdout: "piped",
    stderr: "piped",
    env: { HOME: "/nonexistent", KUBECONFIG: "" },
  }).output();
  return { code: out.code, stderr: new TextDecoder().decode(out.stderr) };
}

Deno.test("kubeop run exits 2 with a one-line message naming the flag", async () => {
  const bad = await kubeop("run", "--controllers", "machine,nope");
  assert.equal(bad.code, 2);
  assert.equal(bad.stderr.trim().split("\n").length, 1);
  assert.match(bad.stderr, /--controllers/);
  const port = await kubeop("run", "--health-probe-bind-address", ":http");
  assert.equal(port.code, 2);
  assert.match(port.stderr, /--health-probe-bind-address/);
  const lease = await kubeop("run", "--leader-elect-lease-duration", "5s");
  assert.equal(lease.code, 2);
  assert.equal(lease.stderr.trim().split("\n").length, 1);
  assert.match(lease.stderr, /--leader-elect-lease-duration \(5s\) must be greater than --leader-elect-renew-deadline/);
});

Deno.test("kubeop run without any cluster configuration exits 1", async () => {
  const res = await kubeop("run", "--metrics-bind-address", "0", "--health-probe-bind-address", "0");
  assert.equal(res.code, 1);
  assert.match(res.stderr, /no cluster configuration/);
});
