// `kubeop apiserver` as a process: flags, the generated cert in --cert-dir, serving against the fake cluster,
// SIGTERM → exit 0, and usage errors → exit 2.
import assert from "node:assert/strict";
import { join } from "node:path";
import { startFakeApiServer } from "../testing/mod.ts";

const MAIN = new URL("../main.ts", import.meta.url).pathname;

Deno.test("kubeop apiserver serves llamas with --auth=none --storage=configmap and stops on SIGTERM", async () => {
  const fake = await startFakeApiServer({ port: 0 });
  const dir = await Deno.makeTempDir({ prefix: "farm-cli-" });
  const kubeconfig = join(dir, "kubeconfig");
  await fake.writeKubeconfig(kubeconfig);
  const child = new Deno.Command(Deno.execPath(), {
    args: [
      "run",
      "--allow-all",
      MAIN,
      "apiserver",
      "--secure-port=0",
      "--bind-address=127.0.0.1",
      `--cert-dir=${join(dir, "certs")}`,
      `--kubeconfig=${kubeconfig}`,
      "--auth=none",
      "--storage=configmap",
      "--log-format=text",
    ],
    stdout: "piped",
    stderr: "piped",
  }).spawn();
  const lines = child.stderr.pipeThrough(new TextDecoderStream()).getReader();
  const stdout = child.stdout.cancel();
  let log = "";
  try {
    let url: string | undefined;
    const deadline = Date.now() + 30_000;
    while (!url) {
      if (Date.now() > deadline) throw new Error(`no serving line in: ${log}`);
      const { done, value } = await lines.read();
      if (done) throw new Error(`apiserver exited early: ${log}`);
      log += value;
      url = log.match(/serving farm\.example\.com\/v1alpha on "?(https:\/\/127\.0\.0\.1:\d+)/)?.[1];
    }
    const client = Deno.createHttpClient({ caCerts: [await Deno.readTextFile(join(dir, "certs", "ca.crt"))] });
    try {
      const res = await fetch(`${url}/apis/farm.example.com/v1alpha/namespaces/default/llamas/dolly`, { client });
      assert.equal(res.status, 200);
      assert.equal((await res.json()).spec.weight, 31.4);
    } finally {
      client.close();
    }
    const cm = fake.store.get({ group: "", version: "v1", plural: "configmaps" }, "farm-llamas", {
      namespace: "kube-system",
    });
    assert.match(cm.data["llamas.json"], /dolly/);
    child.kill("SIGTERM");
    const status = await child.status;
    assert.equal(status.code, 0);
  } finally {
    await lines.cancel().catch(() => {});
    await stdout.catch(() => {});
    try {
      child.kill("SIGKILL");
    } catch { /* already exited */ }
    await child.status;
    await fake.stop();
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("kubeop apiserver: a bad flag is a usage error (exit 2) naming the flag", async () => {
  const out = await new Deno.Command(Deno.execPath(), {
    args: ["run", "--allow-all", MAIN, "apiserver", "--storage=etcd"],
    stdout: "piped",
    stderr: "piped",
  }).output();
  assert.equal(out.code, 2);
  assert.match(new TextDecoder().decode(out.stderr), /--storage/);
});
