// Real kubectl against the farm API reached through the fake API server's aggregation (the in-process handler,
// as `kubeop dev` registers it): api-resources, get (Table columns), describe, create -f, get -w, delete.
import assert from "node:assert/strict";
import { join } from "node:path";
import { FarmApiServer } from "../apiservice/mod.ts";
import { startRunnable } from "../runtime/manager/runnable.ts";
import { startFakeApiServer } from "../testing/mod.ts";

const KUBECTL = "/usr/lib/google-cloud-sdk/bin/kubectl.1.32";

/** Runs `binary` (a kubectl) to completion with `env`. */
async function runKubectl(
  binary: string,
  env: Record<string, string>,
  ...args: string[]
): Promise<{ code: number; out: string; err: string }> {
  const out = await new Deno.Command(binary, { args, env, stdout: "piped", stderr: "piped" }).output();
  const dec = new TextDecoder();
  return { code: out.code, out: dec.decode(out.stdout), err: dec.decode(out.stderr) };
}

/** Runs kubectl 1.32 to completion with `env`. */
function kubectl(env: Record<string, string>, ...args: string[]): Promise<{ code: number; out: string; err: string }> {
  return runKubectl(KUBECTL, env, ...args);
}

/** The farm API aggregated into a fake API server, and a kubectl environment (kubeconfig, cache) in a temp dir. */
async function startFarmBehindFake(prefix: string) {
  const fake = await startFakeApiServer({ anonymousAdmin: true, port: 0 });
  const dir = await Deno.makeTempDir({ prefix });
  const farm = new FarmApiServer({
    port: 0,
    bindAddress: "127.0.0.1",
    certDir: join(dir, "certs"),
    auth: "none",
    log: () => {},
  });
  const stopFarm = new AbortController();
  const serving = startRunnable(farm, stopFarm.signal);
  await serving.ready;
  fake.registerAggregatedApi("farm.example.com", "v1alpha", farm.handler);
  const kubeconfig = join(dir, "kubeconfig");
  await fake.writeKubeconfig(kubeconfig);
  const env = { KUBECONFIG: kubeconfig, KUBECACHEDIR: join(dir, "cache"), HOME: dir };
  return {
    farm,
    dir,
    env,
    async close() {
      stopFarm.abort();
      await serving.done;
      await fake.stop();
      await Deno.remove(dir, { recursive: true });
    },
  };
}

Deno.test({
  name: "kubectl get/describe/create/delete/-w llamas and get farmpods through the fake server",
  ignore: !(await Deno.stat(KUBECTL).then(() => true, () => false)),
  async fn() {
    const setup = await startFarmBehindFake("farm-kubectl-");
    const { dir, env } = setup;
    try {
      const resources = await kubectl(env, "api-resources", "--api-group=farm.example.com");
      assert.equal(resources.code, 0, resources.err);
      assert.match(resources.out, /llamas\s+lm\s+farm\.example\.com\/v1alpha\s+true\s+Llama/);
      assert.match(resources.out, /farmpods/);

      const get = await kubectl(env, "get", "llamas");
      assert.equal(get.code, 0, get.err);
      assert.match(get.out, /^NAME\s+WEIGHT\s+HEIGHT\s+AGE\n/);
      assert.match(get.out, /dolly\s+31\.4\s+0\.5\s+/);

      const describe = await kubectl(env, "describe", "llama", "dolly");
      assert.equal(describe.code, 0, describe.err);
      assert.match(describe.out, /Weight:\s+31\.4/);

      const manifest = join(dir, "kuzco.yaml");
      await Deno.writeTextFile(
        manifest,
        "apiVersion: farm.example.com/v1alpha\nkind: Llama\nmetadata:\n  name: kuzco\nspec:\n  weight: 90\n  height: 1.7\n",
      );
      const create = await kubectl(env, "create", "-f", manifest);
      assert.equal(create.code, 0, create.err);
      assert.match(create.out, /llama.farm.example.com\/kuzco created/);
      const invalid = join(dir, "bad.yaml");
      await Deno.writeTextFile(
        invalid,
        "apiVersion: farm.example.com/v1alpha\nkind: Llama\nmetadata:\n  name: bad\nspec:\n  weight: -1\n  height: 1\n",
      );
      const rejected = await kubectl(env, "create", "-f", invalid);
      assert.equal(rejected.code, 1);
      assert.match(rejected.err, /spec\.weight/);

      const watcher = new Deno.Command(KUBECTL, {
        args: ["get", "llamas", "-w", "--output-watch-events"],
        env,
        stdout: "piped",
        stderr: "piped",
      }).spawn();
      const reader = watcher.stdout.pipeThrough(new TextDecoderStream()).getReader();
      let seen = "";
      const deadline = Date.now() + 20_000;
      // The initial list prints dolly and kuzco; wait for it before deleting.
      while (!/kuzco/.test(seen)) {
        if (Date.now() > deadline) throw new Error(`watch printed: ${seen}`);
        const { value, done } = await reader.read();
        if (done) break;
        seen += value;
      }
      const del = await kubectl(env, "delete", "llama", "kuzco");
      assert.equal(del.code, 0, del.err);
      while (!/DELETED\s+kuzco/.test(seen)) {
        if (Date.now() > deadline) throw new Error(`watch printed: ${seen}`);
        const { value, done } = await reader.read();
        if (done) break;
        seen += value;
      }
      assert.match(seen, /DELETED\s+kuzco/);
      watcher.kill("SIGTERM");
      await reader.cancel();
      await watcher.stderr.cancel();
      await watcher.status;

      const farmpods = await kubectl(env, "get", "farmpods");
      assert.equal(farmpods.code, 1, "no pod cache in this setup: a 503 Status, shown as an error");
      assert.match(farmpods.err, /ServiceUnavailable|no cluster connection/);
    } finally {
      await setup.close();
    }
  },
});

const KUBECTL_135 = new URL("../.cache/clients/kubectl", import.meta.url).pathname;

Deno.test({
  name: "kubectl 1.35: apply (client- and server-side), explain, wait --for=delete (WatchList) on llamas",
  ignore: !(await Deno.stat(KUBECTL_135).then(() => true, () => false)),
  async fn() {
    const setup = await startFarmBehindFake("farm-kubectl135-");
    const { farm, dir, env } = setup;
    const run = (...args: string[]) => runKubectl(KUBECTL_135, env, ...args);
    const manifest = join(dir, "kuzco.yaml");
    const write = (weight: number) =>
      Deno.writeTextFile(
        manifest,
        `apiVersion: farm.example.com/v1alpha\nkind: Llama\nmetadata:\n  name: kuzco\nspec:\n  weight: ${weight}\n  height: 1.7\n`,
      );
    try {
      await write(90);
      const created = await run("apply", "-f", manifest);
      assert.equal(created.code, 0, created.err);
      assert.match(created.out, /kuzco created/);
      await write(91);
      const configured = await run("apply", "-f", manifest);
      assert.equal(configured.code, 0, configured.err);
      assert.match(configured.out, /kuzco configured/);
      await write(92);
      const ssa = await run("apply", "--server-side", "-f", manifest);
      assert.equal(ssa.code, 0, ssa.err);
      assert.equal(farm.store.get("default", "kuzco").spec.weight, 92);

      const explain = await run("explain", "llama.spec");
      assert.equal(explain.code, 0, explain.err);
      assert.match(explain.out, /weight\s+<number> -required-/);

      const waiter = new Deno.Command(KUBECTL_135, {
        args: ["wait", "--for=delete", "llama/kuzco", "--timeout=20s"],
        env,
        stdout: "piped",
        stderr: "piped",
      }).spawn();
      const del = await run("delete", "llama", "kuzco");
      assert.equal(del.code, 0, del.err);
      const waited = await waiter.output();
      assert.equal(waited.code, 0, new TextDecoder().decode(waited.stderr));
    } finally {
      await setup.close();
    }
  },
});
