import assert from "node:assert/strict";
import { parseKubeconfig } from "../runtime/client/kubeconfig.ts";

Deno.test("kubeop dev prints the ready line, serves the kubeconfig it wrote, and exits 0 on SIGTERM", async () => {
  const dir = await Deno.makeTempDir();
  const main = new URL("../main.ts", import.meta.url).pathname;
  const child = new Deno.Command(Deno.execPath(), {
    args: ["run", "--allow-all", main, "dev", "--kubeconfig-out", `${dir}/kc`],
    stdout: "piped",
    stderr: "piped",
  }).spawn();
  const reader = child.stdout.pipeThrough(new TextDecoderStream()).getReader();
  try {
    let out = "";
    while (!out.includes("\n")) {
      const { value, done } = await reader.read();
      if (done) break;
      out += value;
    }
    assert.equal(out.trim(), `kubeop dev ready: KUBECONFIG=${dir}/kc`);
    const kubeconfig = await Deno.readTextFile(`${dir}/kc`);
    const config = await parseKubeconfig(kubeconfig);
    assert.match(config.server, /^https:/, "HTTPS, so kubectl sends a kubeconfig's token");
    const client = Deno.createHttpClient({ caCerts: [config.caPEM!], cert: config.certPEM, key: config.keyPEM });
    const res = await fetch(`${config.server}/api/v1/namespaces/default`, { client });
    assert.equal((await res.json()).metadata.name, "default");
    client.close();
    child.kill("SIGTERM");
    const status = await child.status;
    assert.equal(status.code, 0);
  } finally {
    await reader.cancel().catch(() => {});
    await child.stderr.cancel().catch(() => {});
    try {
      child.kill("SIGKILL");
    } catch { /* exited */ }
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("kubeop dev: a bad flag is a usage error (exit 2) naming the flag", async () => {
  const main = new URL("../main.ts", import.meta.url).pathname;
  const res = await new Deno.Command(Deno.execPath(), {
    args: ["run", "--allow-all", main, "dev", "--port", "abc"],
    stdout: "piped",
    stderr: "piped",
  }).output();
  assert.equal(res.code, 2);
  assert.match(new TextDecoder().decode(res.stderr), /--port/);
});
