// `kubectl debug` against `kubeop dev`: kubectl adds an ephemeral container through pods/ephemeralcontainers and the
// fake kubelet runs it (status.ephemeralContainerStatuses, running).
import assert from "node:assert/strict";
import { startDev } from "../cli/dev.ts";
import { POLL } from "./conformance/index.ts";
import { eventually } from "../testing/eventually.ts";

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
    const kubectl = async (...args: string[]) => {
      const out = await new Deno.Command(KUBECTL, {
        args,
        env: { KUBECONFIG: dev.kubeconfigPath, KUBECACHEDIR: `${dir}/cache` },
        stdout: "piped",
        stderr: "piped",
      }).output();
      const stderr = new TextDecoder().decode(out.stderr);
      assert.equal(out.code, 0, `kubectl ${args.join(" ")}: ${stderr}`);
      return new TextDecoder().decode(out.stdout);
    };
    try {
      await kubectl("run", "web", "-n", "default", "--image=nginx:1.27", "--restart=Never");
      await eventually("web running", async () => {
        const phase = await kubectl("get", "pod", "web", "-n", "default", "-o", "jsonpath={.status.phase}");
        return phase === "Running" ? true : undefined;
      }, POLL);
      await kubectl("debug", "web", "-n", "default", "--image=busybox", "--container=dbg");
      const image = await kubectl(
        "get",
        "pod",
        "web",
        "-n",
        "default",
        "-o",
        "jsonpath={.spec.ephemeralContainers[0].name} {.spec.ephemeralContainers[0].image}",
      );
      assert.equal(image, "dbg busybox");
      await eventually("dbg running", async () => {
        const state = await kubectl(
          "get",
          "pod",
          "web",
          "-n",
          "default",
          "-o",
          'jsonpath={.status.ephemeralContainerStatuses[?(@.name=="dbg")].state.running.startedAt}',
        );
        return state ? true : undefined;
      }, POLL);
      // The containers are unchanged: the subresource owns only the ephemeral containers.
      const containers = await kubectl(
        "get",
        "pod",
        "web",
        "-n",
        "default",
        "-o",
        "jsonpath={.spec.containers[*].name}",
      );
      assert.equal(containers, "web");
    } finally {
      await dev.stop();
      await Deno.remove(dir, { recursive: true });
    }
  },
});
