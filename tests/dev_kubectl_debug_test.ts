// `kubectl debug` against `kubeop dev`: kubectl adds an ephemeral container through pods/ephemeralcontainers and the
// fake kubelet runs it (status.ephemeralContainerStatuses, running).
import assert from "node:assert/strict";
import { startDev } from "../cli/dev.ts";
import { POLL } from "./conformance/index.ts";
import { eventually } from "../testing/eventually.ts";
import { kubectlRunner } from "./support/kubectl_runner.ts";

const KUBECTL = "/usr/lib/google-cloud-sdk/bin/kubectl.1.32";
const haveKubectl = await Deno.stat(KUBECTL).then(() => true, () => false);

Deno.test({
  name: "kubeop dev: kubectl debug --image=busybox --container=dbg adds an ephemeral container the kubelet runs",
  ignore: !haveKubectl,
  sanitizeResources: false,
  sanitizeOps: false,
  async fn() {
    const dir = await Deno.makeTempDir({ prefix: "kubeop-debug-" });
    const dev = await startDev({ kubeconfigOut: `${dir}/dev.kubeconfig` });
    const run = kubectlRunner(KUBECTL, dev.kubeconfigPath, `${dir}/cache`);
    const kubectl = async (...args: string[]) => {
      const out = await run(...args);
      assert.equal(out.code, 0, `kubectl ${args.join(" ")}: ${out.stderr}`);
      return out.stdout;
    };
    const webField = (jsonpath: string) => kubectl("get", "pod", "web", "-n", "default", "-o", `jsonpath=${jsonpath}`);
    try {
      await kubectl("run", "web", "-n", "default", "--image=nginx:1.27", "--restart=Never");
      await eventually("web running", async () => {
        const phase = await webField("{.status.phase}");
        return phase === "Running" ? true : undefined;
      }, POLL);
      await kubectl("debug", "web", "-n", "default", "--image=busybox", "--container=dbg");
      const image = await webField("{.spec.ephemeralContainers[0].name} {.spec.ephemeralContainers[0].image}");
      assert.equal(image, "dbg busybox");
      await eventually("dbg running", async () => {
        const state = await webField('{.status.ephemeralContainerStatuses[?(@.name=="dbg")].state.running.startedAt}');
        return state ? true : undefined;
      }, POLL);
      // The containers are unchanged: the subresource owns only the ephemeral containers.
      const containers = await webField("{.spec.containers[*].name}");
      assert.equal(containers, "web");
    } finally {
      await dev.stop();
      await Deno.remove(dir, { recursive: true });
    }
  },
});
