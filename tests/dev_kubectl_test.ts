// `kubeop dev` as a new user meets it: the samples apply unchanged, the operators act, the farm API answers kubectl.
import assert from "node:assert/strict";
import { startDev } from "../cli/dev.ts";
import { POLL } from "./conformance/index.ts";
import { eventually } from "../testing/eventually.ts";
import { kubectlRunner } from "./support/kubectl_runner.ts";

const KUBECTL = "/usr/lib/google-cloud-sdk/bin/kubectl.1.32";
const haveKubectl = await Deno.stat(KUBECTL).then(() => true, () => false);

Deno.test({
  name:
    "kubeop dev: samples apply, operators converge, webhooks answer, farm API serves llamas and farmpods to kubectl",
  ignore: !haveKubectl,
  sanitizeResources: false,
  sanitizeOps: false,
  async fn() {
    const dir = await Deno.makeTempDir({ prefix: "kubeop-dev-" });
    const dev = await startDev({ kubeconfigOut: `${dir}/dev.kubeconfig` });
    const run = kubectlRunner(KUBECTL, dev.kubeconfigPath, `${dir}/cache`);
    const kubectl = async (...args: string[]) => {
      const out = await run(...args);
      assert.equal(out.code, 0, `kubectl ${args.join(" ")}: ${out.stderr}`);
      return out.stdout;
    };
    try {
      const resources = await kubectl("api-resources");
      assert.match(resources, /llamas\s+.*farm.example.com\/v1alpha\s+true\s+Llama/);
      assert.match(resources, /farmpods\s+.*farm.example.com\/v1alpha\s+true\s+FarmPod/);
      assert.match(resources, /machines\s+mach\s+useless.container.training\/v1alpha1\s+true\s+Machine/);
      const llamas = await kubectl("get", "llamas", "-n", "default");
      assert.match(llamas.split("\n")[0], /^NAME\s+WEIGHT\s+HEIGHT\s+AGE/);
      assert.match(llamas, /^dolly\s+31\.4\s+0\.5\s/m);

      const applied = await kubectl("apply", "-f", new URL("../deploy/samples/", import.meta.url).pathname);
      assert.match(applied, /machine.useless.container.training\/machine-1 created/);
      assert.match(applied, /at.cnat.ishankhare.dev\/at-sample created/);
      await eventually("at-sample DONE", async () => {
        const phase = await kubectl("get", "at", "at-sample", "-o", "jsonpath={.status.phase}");
        return phase === "DONE" ? true : undefined;
      }, POLL);
      const farmpods = await kubectl("get", "farmpods", "-n", "default", "-o", "name");
      assert.match(farmpods, /farmpod.farm.example.com\/farm-at-sample-pod/);
      await eventually("multisecret copied", async () => {
        const created = await kubectl("get", "multisecret", "multisecret-sample", "-o", "jsonpath={.status.created}");
        return Number(created) >= 4 ? true : undefined;
      }, POLL);
      // The seed webhooks run under kubeop dev: a Netperf naming a missing Node is refused with the handler's message,
      // and At's v1beta1 (kubectl's preferred version) is converted by kubeop's webhook.
      await Deno.writeTextFile(
        `${dir}/bad-netperf.yaml`,
        "apiVersion: app.example.com/v1alpha1\nkind: Netperf\nmetadata: { name: bad-node }\nspec: { serverNode: no-such-node }\n",
      );
      const refused = await run("apply", "-f", `${dir}/bad-netperf.yaml`);
      assert.notEqual(refused.code, 0);
      assert.match(
        refused.stderr,
        /admission webhook "vnetperf.app.example.com" denied the request: spec.serverNode: Node "no-such-node" not found/,
      );
      const argv = await kubectl(
        "get",
        "ats.v1beta1.cnat.ishankhare.dev",
        "at-sample",
        "-o",
        "jsonpath={.spec.command}",
      );
      assert.deepEqual(JSON.parse(argv), ["echo", "hello", "world!"]);
      assert.match(await kubectl("get", "ats", "-o", "name"), /^at.cnat.ishankhare.dev\/at-sample$/m);
      const all = await kubectl("get", "kubeop", "-A");
      for (const kind of ["machine", "switch", "at", "netperf", "multisecret"]) {
        assert.match(all, new RegExp(`${kind}\\.`), `kubectl get kubeop lists ${kind}s`);
      }
    } finally {
      await dev.stop();
      await Deno.remove(dir, { recursive: true });
    }
  },
});
