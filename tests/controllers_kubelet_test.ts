/**
 * At and Netperf end to end with the fake kubelet (no hand-written pod status): pods really go Pending → Running →
 * Succeeded, crash-loop under restartPolicy OnFailure, and serve termination messages and logs.
 */

import assert from "node:assert/strict";
import { MAX_RESTARTS } from "../controllers/at/controller.ts";
import { type At, AtType } from "../controllers/at/schema.ts";
import { type Netperf, NetperfType } from "../controllers/netperf/schema.ts";
import { VirtualClock } from "../runtime/clock.ts";
import type { Pod } from "../runtime/builtin_types.ts";
import { CoreTypes, type KubeObject } from "../runtime/types.ts";
import { type ControllerEnv, getOrUndefined, startEnv, waitFor } from "./controllers_env.ts";

const ns = { namespace: "default" };
const NETPERF_OUTPUT = `MIGRATED TCP STREAM TEST from 0.0.0.0 (0.0.0.0) port 0 AF_INET to 10.244.0.2 () port 0 AF_INET
Recv   Send    Send
Socket Socket  Message  Elapsed
Size   Size    Size     Time     Throughput
bytes  bytes   bytes    secs.    10^6bits/sec

 87380  16384  16384    10.00    2500.00
`;

/** The kubelet's script: netserver runs until deleted; the client prints netperf's table. */
function netperfBehaviour(viaLog: boolean) {
  // deno-lint-ignore no-explicit-any
  return (_pod: KubeObject, container: Record<string, any>) => {
    const command = (container.command ?? []).join(" ");
    if (command.startsWith("netserver")) return { exitCode: 0, runMs: Infinity };
    if (command.includes("netperf -H")) {
      return viaLog
        ? { exitCode: 0, log: NETPERF_OUTPUT, runMs: 1000 }
        : { exitCode: 0, terminationMessage: NETPERF_OUTPUT, log: NETPERF_OUTPUT, runMs: 1000 };
    }
    return undefined;
  };
}

async function phaseOf(env: ControllerEnv, name: string) {
  return (await env.client.get<At>(AtType, name, ns)).status?.phase;
}

Deno.test("At with the fake kubelet: echo → DONE; a failing command crash-loops and turns FAILED after the restarts", async () => {
  const clock = new VirtualClock(Date.UTC(2026, 0, 1));
  const env = await startEnv({ controllers: ["at"], clock, kubelet: true });
  try {
    await env.client.create(AtType, {
      metadata: { name: "hello" },
      spec: { schedule: "2020-11-16T10:12:00Z", command: "echo hello world!" },
    }, ns);
    await env.client.create(AtType, {
      metadata: { name: "crash" },
      spec: { schedule: "2020-11-16T10:12:00Z", command: "exit 3" },
    }, ns);
    await waitFor("hello DONE", async () => (await phaseOf(env, "hello")) === "DONE");
    for (let i = 0; i < 20 && (await phaseOf(env, "crash")) !== "FAILED"; i++) {
      await waitFor("crash pod restarted or At failed", async () => {
        const pod = await getOrUndefined<Pod>(env.client, CoreTypes.Pod, "crash-pod");
        return (await phaseOf(env, "crash")) === "FAILED" ||
          pod?.status?.containerStatuses?.[0]?.state?.waiting?.reason === "CrashLoopBackOff";
      });
      await clock.advanceToNext();
    }
    const crashed = await env.client.get<At>(AtType, "crash", ns);
    assert.equal(crashed.status?.phase, "FAILED");
    assert.equal(crashed.status?.conditions?.find((c) => c.type === "Ready")?.reason, "TooManyRestarts");
    assert.match(crashed.status?.message ?? "", new RegExp(`giving up after ${MAX_RESTARTS} restarts`));
  } finally {
    await env.close();
  }
});

for (const viaLog of [false, true]) {
  Deno.test(`Netperf with the fake kubelet: result from the ${viaLog ? "pod log" : "termination message"}`, async () => {
    const env = await startEnv({ controllers: ["netperf"], kubelet: { behaviour: netperfBehaviour(viaLog) } });
    try {
      await env.client.create(NetperfType, { metadata: { name: "example" }, spec: {} }, ns);
      const done = await waitFor("Done", async () => {
        const n = await env.client.get<Netperf>(NetperfType, "example", ns);
        return (n.status?.status === "Done" || n.status?.status === "Error") && n;
      });
      assert.equal(done.status?.status, "Done", done.status?.message);
      assert.equal(done.status?.speedBitsPerSec, 2_500_000_000);
      await waitFor("pods deleted", async () => (await env.client.list(CoreTypes.Pod, ns)).items.length === 0);
    } finally {
      await env.close();
    }
  });
}
