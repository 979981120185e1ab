/**
 * The tutorials' manifests, applied unchanged with real kubectl (`kubectl apply -f deploy/samples/`) against the
 * fake API server running all four controllers, start doing what the tutorials describe.
 */

import assert from "node:assert/strict";
import { type Machine, MachineType } from "../controllers/machine/schema.ts";
import { type At, AtType } from "../controllers/at/schema.ts";
import { type Netperf, NetperfType } from "../controllers/netperf/schema.ts";
import { type MultiSecret, MultiSecretType } from "../controllers/multisecret/schema.ts";
import { CoreTypes } from "../runtime/types.ts";
import { getOrUndefined, startEnv, waitFor } from "./controllers_env.ts";

const KUBECTL = "/usr/lib/google-cloud-sdk/bin/kubectl.1.32";

async function kubectl(kubeconfig: string, cacheDir: string, ...args: string[]): Promise<string> {
  const out = await new Deno.Command(KUBECTL, {
    args: [`--kubeconfig=${kubeconfig}`, `--cache-dir=${cacheDir}`, ...args],
    stdout: "piped",
    stderr: "piped",
  }).output();
  const text = new TextDecoder().decode(out.stdout) + new TextDecoder().decode(out.stderr);
  assert.ok(out.success, `kubectl ${args.join(" ")}: ${text}`);
  return text;
}

Deno.test({
  name: "kubectl apply -f deploy/samples/ works unchanged and every system starts acting",
  ignore: !(await Deno.stat(KUBECTL).then(() => true, () => false)),
  fn: async () => {
    const env = await startEnv({ controllers: ["machine", "at", "netperf", "multisecret"] });
    const dir = await Deno.makeTempDir({ prefix: "kubeop-samples-" });
    try {
      await env.server.writeKubeconfig(`${dir}/kubeconfig`);
      const samples = new URL("../deploy/samples/", import.meta.url).pathname;
      const applied = await kubectl(`${dir}/kubeconfig`, `${dir}/cache`, "apply", "-n", "default", "-f", samples);
      assert.match(applied, /machine\.useless\.container\.training\/machine-1 created/);
      assert.match(applied, /at\.cnat\.ishankhare\.dev\/at-sample created/);

      const get = <T>(rt: typeof MachineType, name: string) =>
        getOrUndefined(env.client, rt, name) as Promise<T | undefined>;
      await waitFor("machine-1 seen", async () => (await get<Machine>(MachineType, "machine-1"))?.status?.seenAt);
      await waitFor(
        "machine-cz2vl has 3 switches",
        async () => (await get<Machine>(MachineType, "machine-cz2vl"))?.status?.positions?.length === 3,
      );
      await waitFor("at-sample running", async () => (await get<At>(AtType, "at-sample"))?.status?.phase === "RUNNING");
      assert.ok(await getOrUndefined(env.client, CoreTypes.Pod, "at-sample-pod"));
      await waitFor(
        "at-new-year pending",
        async () => (await get<At>(AtType, "at-new-year"))?.status?.phase === "PENDING",
      );
      await waitFor(
        "netperf server",
        async () => (await get<Netperf>(NetperfType, "example"))?.status?.status === "Server",
      );
      await waitFor("multisecret copies", async () => {
        const s = (await get<MultiSecret>(MultiSecretType, "multisecret-sample"))?.status;
        return s?.wanted !== undefined && s.wanted > 0 && s.created === s.wanted;
      });
      const table = await kubectl(`${dir}/kubeconfig`, `${dir}/cache`, "get", "machines", "-n", "default");
      assert.match(table, /NAME\s+POSITION\s+SWITCHES\s+POSITIONS\s+SEEN/);
    } finally {
      await env.close();
      await Deno.remove(dir, { recursive: true });
    }
  },
});
