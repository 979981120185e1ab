/**
 * Netperf against the fake API server. The test plays the kubelet (pod status, termination message, log); the
 * controller is restarted mid-test to show it resumes from status.
 */

import assert from "node:assert/strict";
import { clientPodName, serverPodName } from "../controllers/netperf/controller.ts";
import { type Netperf, NetperfType } from "../controllers/netperf/schema.ts";
import type { Pod } from "../runtime/builtin_types.ts";
import { CoreTypes, type KubeObject } from "../runtime/types.ts";
import { type ControllerEnv, getOrUndefined, startEnv, waitFor } from "./controllers_env.ts";

const ns = { namespace: "default" };
const OUTPUT = `MIGRATED TCP STREAM TEST from 0.0.0.0 (0.0.0.0) port 0 AF_INET to 10.244.0.7 () port 0 AF_INET
Recv   Send    Send
Socket Socket  Message  Elapsed
Size   Size    Size     Time     Throughput
bytes  bytes   bytes    secs.    10^6bits/sec

 87380  16384  16384    10.00    941.50
`;

async function np(env: ControllerEnv, name: string): Promise<Netperf> {
  return await env.client.get<Netperf>(NetperfType, name, ns);
}

async function podStatus(env: ControllerEnv, name: string, status: Record<string, unknown>) {
  await env.client.patch(CoreTypes.Pod, name, { status }, { ...ns, type: "merge", subresource: "status" });
}

async function pods(env: ControllerEnv): Promise<KubeObject[]> {
  return (await env.client.list(CoreTypes.Pod, ns)).items;
}

Deno.test("server pod, client pod with the server IP, result from the termination message in bits/s, pods deleted", async () => {
  const env = await startEnv({ controllers: ["netperf"] });
  try {
    await env.client.create(CoreTypes.Pod, {
      metadata: { name: "bystander" },
      spec: { containers: [{ name: "c", image: "x" }] },
    }, ns);
    await env.client.create(NetperfType, { metadata: { name: "example" }, spec: { duration: 5 } }, ns);
    const created = await np(env, "example");
    const server = await waitFor(
      "server pod",
      () => getOrUndefined<Pod>(env.client, CoreTypes.Pod, serverPodName(created)),
    );
    assert.deepEqual(server.spec!.containers[0].command, ["netserver", "-D"]);
    await waitFor("status Server", async () => (await np(env, "example")).status?.status === "Server");

    // restart the controller mid-test: it resumes from status, without a second server pod
    await env.stopManager();
    env.startManager();
    await podStatus(env, serverPodName(created), { phase: "Running", podIP: "10.244.0.7" });
    const client = await waitFor(
      "client pod",
      () => getOrUndefined<Pod>(env.client, CoreTypes.Pod, clientPodName(created)),
    );
    assert.match(client.spec!.containers[0].command!.join(" "), /netperf -H 10\.244\.0\.7 -l 5/);
    assert.equal((await pods(env)).filter((p) => p.metadata.name === serverPodName(created)).length, 1);
    await waitFor("status Test", async () => (await np(env, "example")).status?.status === "Test");

    await podStatus(env, clientPodName(created), {
      phase: "Succeeded",
      containerStatuses: [{ name: "netperf", state: { terminated: { exitCode: 0, message: OUTPUT } } }],
    });
    const done = await waitFor("Done", async () => {
      const n = await np(env, "example");
      return n.status?.status === "Done" && n;
    });
    assert.equal(done.status?.speedBitsPerSec, 941_500_000);
    assert.equal(done.status?.conditions?.find((c) => c.type === "Ready")?.status, "True");
    await waitFor("pods deleted", async () => (await pods(env)).every((p) => p.metadata.name === "bystander"));
    assert.ok(await getOrUndefined(env.client, CoreTypes.Pod, "bystander"), "ownerless pod untouched");
  } finally {
    await env.close();
  }
});

Deno.test("server pod failing → Error with message; unparseable client output → Error with message", async () => {
  const env = await startEnv({ controllers: ["netperf"] });
  try {
    await env.client.create(NetperfType, { metadata: { name: "bad-server" }, spec: {} }, ns);
    await env.client.create(NetperfType, { metadata: { name: "bad-output" }, spec: {} }, ns);
    const a = await np(env, "bad-server");
    const b = await np(env, "bad-output");
    await waitFor("server pods", async () => (await pods(env)).length === 2);
    await podStatus(env, serverPodName(a), { phase: "Failed" });
    const failed = await waitFor("Error", async () => {
      const n = await np(env, "bad-server");
      return n.status?.status === "Error" && n;
    });
    assert.match(failed.status?.message ?? "", /server pod/);

    await podStatus(env, serverPodName(b), { phase: "Running", podIP: "10.244.0.8" });
    await waitFor("client pod", () => getOrUndefined(env.client, CoreTypes.Pod, clientPodName(b)));
    await podStatus(env, clientPodName(b), {
      phase: "Succeeded",
      containerStatuses: [{
        name: "netperf",
        state: {
          terminated: { exitCode: 0, message: "establish control: are you sure there is a netserver listening" },
        },
      }],
    });
    const garbled = await waitFor("Error", async () => {
      const n = await np(env, "bad-output");
      return n.status?.status === "Error" && n;
    });
    assert.match(garbled.status?.message ?? "", /not understood/);
    assert.equal(garbled.status?.conditions?.find((c) => c.type === "Degraded")?.status, "True");
  } finally {
    await env.close();
  }
});
